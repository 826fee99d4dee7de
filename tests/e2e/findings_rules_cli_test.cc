// End-to-end tests of `gpuroof findings` through the binary, one rule at a time: a builder-made
// nsys export with the pattern planted (cost worked out by hand in the comment) reports the
// finding with that cost_ns, and the same trace without the pattern reports nothing for that
// rule; every rule the same way on a builder-made Kineto trace; the per-step costs of a trace
// with ProfilerStep ranges; the report page's section is tested in report_cli_test.cc.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli_runner.h"
#include "support/kineto_json_builder.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path WriteTrace(const TempDir& dir, const std::string& name,
                                 const std::string& body) {
  std::filesystem::path file = dir / name;
  testsupport::BuildFromDescription("gpu 0 \"Test GPU\"\n" + body, name, file);
  return file;
}

// `gpuroof findings FILE ARGS --format csv`: rule id -> its row.
std::map<std::string, std::map<std::string, std::string>> FindingsByRule(
    const std::filesystem::path& trace, std::vector<std::string> args) {
  std::vector<std::string> command = {"findings", trace.string(), "--format", "csv"};
  command.insert(command.end(), args.begin(), args.end());
  CliResult run = RunGpuroof(command);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& row : ParseCsv(run.out))
    out[row.at("id")] = row;
  return out;
}

struct RuleCase {
  const char* name;
  const char* rule;
  const char* planted;  // the pattern, with its cost by hand in `cost_ns`
  const char* without;  // the same trace without it
  std::vector<std::string> args;
  const char* cost_ns;
};

// Each case is worked in its comment. Options: --min-cost-pct 0 so a small cost is kept, and
// --gap-min 100ns where gaps matter (the default 100 us would hide these nanosecond gaps).
const std::vector<RuleCase>& Cases() {
  static const std::vector<RuleCase> cases = {
      // A cudaDeviceSynchronize (250-1400) returns after the kernel 300-1300; the next kernel
      // starts at 1700: idle 1300-1700 after the call began = 400 ns. Without: no sync call.
      {"sync",
       "sync-call",
       "api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000\n"
       "kernel start=300 end=1300 stream=7 corr=1 name=k\n"
       "api start=250 end=1400 corr=2 name=cudaDeviceSynchronize_v3020\n"
       "api start=1500 end=1600 corr=3 name=cudaLaunchKernel_v7000\n"
       "kernel start=1700 end=2700 stream=7 corr=3 name=k\n",
       "api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000\n"
       "kernel start=300 end=1300 stream=7 corr=1 name=k\n"
       "api start=1500 end=1600 corr=3 name=cudaLaunchKernel_v7000\n"
       "kernel start=1700 end=2700 stream=7 corr=3 name=k\n",
       {"--min-cost-pct", "0"},
       "400"},
      // cudaMemcpyAsync of 1000 bytes from pageable memory, copy 300-800: its copy time, 500 ns
      // (window all: the copy is before the kernel). Without: the host side pinned.
      {"pageable",
       "pageable-copy",
       "api start=100 end=250 corr=1 name=cudaMemcpyAsync_v3020\n"
       "memcpy start=300 end=800 kind=HtoD bytes=1000 src=pageable dst=device stream=7 corr=1\n"
       "api start=260 end=290 corr=2 name=cudaLaunchKernel_v7000\n"
       "kernel start=800 end=1800 stream=7 corr=2 name=k\n",
       "api start=100 end=250 corr=1 name=cudaMemcpyAsync_v3020\n"
       "memcpy start=300 end=800 kind=HtoD bytes=1000 src=pinned dst=device stream=7 corr=1\n"
       "api start=260 end=290 corr=2 name=cudaLaunchKernel_v7000\n"
       "kernel start=800 end=1800 stream=7 corr=2 name=k\n",
       {"--window", "all", "--min-cost-pct", "0"},
       "500"},
      // The GPU goes idle at 1000; the next kernel (1500-2500) is launched by a call starting at
      // 1200, after that: a host-bound gap of 500 ns. Without: the call is made at 500, before
      // the GPU went idle (then the gap is a gpu-gap, not host-bound).
      {"host",
       "host-bound",
       "api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000\n"
       "kernel start=0 end=1000 stream=7 corr=1 name=a\n"
       "api start=1200 end=1300 corr=2 name=cudaLaunchKernel_v7000\n"
       "kernel start=1500 end=2500 stream=7 corr=2 name=b\n",
       "api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000\n"
       "kernel start=0 end=1000 stream=7 corr=1 name=a\n"
       "api start=500 end=600 corr=2 name=cudaLaunchKernel_v7000\n"
       "kernel start=1500 end=2500 stream=7 corr=2 name=b\n",
       {"--gap-min", "100ns", "--min-cost-pct", "0"},
       "500"},
      // The same gap 1000-1500 with its kernel launched at 500 and no sync: an unexplained
      // gpu-gap of 500 ns. Without: the kernels back to back.
      {"gap",
       "gpu-gap",
       "api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000\n"
       "kernel start=0 end=1000 stream=7 corr=1 name=a\n"
       "api start=500 end=600 corr=2 name=cudaLaunchKernel_v7000\n"
       "kernel start=1500 end=2500 stream=7 corr=2 name=b\n",
       "api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000\n"
       "kernel start=0 end=1000 stream=7 corr=1 name=a\n"
       "api start=500 end=600 corr=2 name=cudaLaunchKernel_v7000\n"
       "kernel start=1000 end=2000 stream=7 corr=2 name=b\n",
       {"--gap-min", "100ns", "--min-cost-pct", "0"},
       "500"},
      // 20 kernels of 10 ns, each launched by a 100 ns call: 20 x (100 - 10) = 1800 ns (all 20
      // short, >= 10 and >= 50 %). Without: kernels of 1000 ns.
      {"launch",
       "launch-bound",
       "repeat 20 step=2000 {\n"
       "  api start=0 end=100 corr=1+i name=cudaLaunchKernel_v7000\n"
       "  kernel start=150 end=160 stream=7 corr=1+i name=tiny\n"
       "}\n",
       "repeat 20 step=2000 {\n"
       "  api start=0 end=100 corr=1+i name=cudaLaunchKernel_v7000\n"
       "  kernel start=150 end=1150 stream=7 corr=1+i name=tiny\n"
       "}\n",
       {"--min-cost-pct", "0"},
       "1800"},
      // An all-reduce 1000-1500 after the compute kernel 0-1000: 500 ns of collective time with
      // no compute under it. Without: the all-reduce at 200-700, under the kernel.
      {"comm",
       "exposed-comm",
       "kernel start=0 end=1000 stream=7 name=compute\n"
       "kernel start=1000 end=1500 stream=8 name=ncclKernel_AllReduce_RING_LL_Sum_float\n",
       "kernel start=0 end=1000 stream=7 name=compute\n"
       "kernel start=200 end=700 stream=8 name=ncclKernel_AllReduce_RING_LL_Sum_float\n",
       {"--window", "all", "--min-cost-pct", "0"},
       "500"},
      // One stream: H2D 0-500, kernel 500-1500, D2H 1500-2000 (window all). Copies busy 1000,
      // none under compute; compute 1000; busy 2000. Overlapped at best max(1000, 1000) = 1000:
      // cost min(1000 exposed, 2000 - 1000) = 1000 ns. Without: both copies under the kernel.
      {"serial",
       "serialised-copies",
       "memcpy start=0 end=500 kind=HtoD bytes=4096 src=pinned dst=device stream=7\n"
       "kernel start=500 end=1500 stream=7 name=k\n"
       "memcpy start=1500 end=2000 kind=DtoH bytes=4096 src=device dst=pinned stream=7\n",
       "memcpy start=500 end=1000 kind=HtoD bytes=4096 src=pinned dst=device stream=8\n"
       "kernel start=500 end=1500 stream=7 name=k\n"
       "memcpy start=1000 end=1500 kind=DtoH bytes=4096 src=device dst=pinned stream=9\n",
       {"--window", "all", "--min-cost-pct", "0"},
       "1000"},
  };
  return cases;
}

TEST(FindingsRulesCli, EachPlantedPatternIsFoundWithItsHandWorkedCost) {
  TempDir dir;
  for (const RuleCase& c : Cases()) {
    SCOPED_TRACE(c.rule);
    auto planted =
        FindingsByRule(WriteTrace(dir, std::string(c.name) + ".sqlite", c.planted), c.args);
    ASSERT_EQ(planted.count(c.rule), 1U);
    EXPECT_EQ(planted[c.rule].at("cost_ns"), c.cost_ns);
    EXPECT_EQ(planted[c.rule].at("device"), "0");
    EXPECT_FALSE(planted[c.rule].at("evidence").empty());
    EXPECT_FALSE(planted[c.rule].at("advice").empty());
    auto without =
        FindingsByRule(WriteTrace(dir, std::string(c.name) + "_without.sqlite", c.without), c.args);
    EXPECT_EQ(without.count(c.rule), 0U) << without[c.rule]["evidence"];
  }
}

// The same rules on Kineto traces (builder-made JSON, read by the binary).
std::filesystem::path WriteKineto(const TempDir& dir, const std::string& name,
                                  const KinetoJsonBuilder& builder) {
  std::filesystem::path file = dir / (name + ".pt.trace.json");
  WriteFile(file, builder.ObjectJson());
  return file;
}

TEST(FindingsRulesCli, KinetoPatternsAsOnNsys) {
  TempDir dir;
  // low-occupancy: 3000 ns at 20 % and 1000 ns at 80 %: weighted 35 % < 50 %, cost the 3000 ns
  // below the threshold. Swapped (65 %): nothing.
  KinetoJsonBuilder low;
  low.KernelWithOccupancy("narrow", "0", "3", 20).KernelWithOccupancy("wide", "3", "1", 80);
  auto rows = FindingsByRule(WriteKineto(dir, "low", low), {"--window", "all"});
  ASSERT_EQ(rows.count("low-occupancy"), 1U);
  EXPECT_EQ(rows["low-occupancy"].at("cost_ns"), "3000");
  KinetoJsonBuilder high;
  high.KernelWithOccupancy("narrow", "0", "1", 20).KernelWithOccupancy("wide", "1", "3", 80);
  EXPECT_EQ(
      FindingsByRule(WriteKineto(dir, "high", high), {"--window", "all"}).count("low-occupancy"),
      0U);

  // sync-call: the nsys case in microseconds (Kineto's unit): 400 ns of idle time after the
  // first cudaDeviceSynchronize. Without the syncs: nothing.
  KinetoJsonBuilder sync;
  sync.Runtime("cudaLaunchKernel", "0.1", "0.1", 1)
      .Kernel("k", "0.3", "1", 0, 7, 1)
      .Runtime("cudaDeviceSynchronize", "0.25", "1.15", 2)
      .Runtime("cudaLaunchKernel", "1.5", "0.1", 3)
      .Kernel("k", "1.7", "1", 0, 7, 3);
  rows = FindingsByRule(WriteKineto(dir, "sync", sync), {"--min-cost-pct", "0"});
  ASSERT_EQ(rows.count("sync-call"), 1U);
  EXPECT_EQ(rows["sync-call"].at("cost_ns"), "400");
  KinetoJsonBuilder nosync;
  nosync.Runtime("cudaLaunchKernel", "0.1", "0.1", 1)
      .Kernel("k", "0.3", "1", 0, 7, 1)
      .Runtime("cudaLaunchKernel", "1.5", "0.1", 3)
      .Kernel("k", "1.7", "1", 0, 7, 3);
  EXPECT_EQ(FindingsByRule(WriteKineto(dir, "nosync", nosync), {"--min-cost-pct", "0"})
                .count("sync-call"),
            0U);
}

// The other rules' nsys cases above as Kineto traces (microseconds, Kineto's unit; the calls on
// the host thread 100/100, the GPU ops on device 0), with the same hand-worked costs.
struct KinetoRuleCase {
  const char* rule;
  KinetoJsonBuilder planted;
  KinetoJsonBuilder without;
  std::vector<std::string> args;
  const char* cost_ns;
};

std::vector<KinetoRuleCase> KinetoCases() {
  std::vector<KinetoRuleCase> cases;
  {
    // pageable: cudaMemcpyAsync of 1000 bytes from pageable memory, copy 0.3-0.8 us: 500 ns.
    KinetoRuleCase c{"pageable-copy", {}, {}, {"--window", "all", "--min-cost-pct", "0"}, "500"};
    for (auto [builder, host] : {std::pair{&c.planted, "Pageable"}, {&c.without, "Pinned"}}) {
      builder->Runtime("cudaMemcpyAsync", "0.1", "0.15", 1)
          .Memcpy(fmt::format("Memcpy HtoD ({} -> Device)", host), "0.3", "0.5", 1000, 0, 7, 1)
          .Runtime("cudaLaunchKernel", "0.26", "0.03", 2)
          .Kernel("k", "0.8", "1", 0, 7, 2);
    }
    cases.push_back(std::move(c));
  }
  {
    // host: idle 1.0-1.5 us, the next kernel launched by a call starting at 1.2 (after the GPU
    // went idle): 500 ns. Without: the call at 0.5 (then it is a gpu-gap).
    KinetoRuleCase c{"host-bound", {}, {}, {"--gap-min", "100ns", "--min-cost-pct", "0"}, "500"};
    for (auto [builder, call] : {std::pair{&c.planted, "1.2"}, {&c.without, "0.5"}}) {
      builder->Runtime("cudaLaunchKernel", "0", "0.1", 1)
          .Kernel("a", "0", "1", 0, 7, 1)
          .Runtime("cudaLaunchKernel", call, "0.1", 2)
          .Kernel("b", "1.5", "1", 0, 7, 2);
    }
    cases.push_back(std::move(c));
  }
  {
    // gap: the same idle 1.0-1.5 us with the launch at 0.5 and no sync: unexplained, 500 ns.
    // Without: the kernels back to back.
    KinetoRuleCase c{"gpu-gap", {}, {}, {"--gap-min", "100ns", "--min-cost-pct", "0"}, "500"};
    for (auto [builder, next] : {std::pair{&c.planted, "1.5"}, {&c.without, "1"}}) {
      builder->Runtime("cudaLaunchKernel", "0", "0.1", 1)
          .Kernel("a", "0", "1", 0, 7, 1)
          .Runtime("cudaLaunchKernel", "0.5", "0.1", 2)
          .Kernel("b", next, "1", 0, 7, 2);
    }
    cases.push_back(std::move(c));
  }
  {
    // launch: 20 kernels of 10 ns, each launched by a 100 ns call: 20 x 90 = 1800 ns. Without:
    // kernels of 1 us.
    KinetoRuleCase c{"launch-bound", {}, {}, {"--min-cost-pct", "0"}, "1800"};
    for (int i = 0; i < 20; ++i) {
      const std::string call = std::to_string(2 * i);
      const std::string kernel = fmt::format("{}.15", 2 * i);
      c.planted.Runtime("cudaLaunchKernel", call, "0.1", 1 + i)
          .Kernel("tiny", kernel, "0.01", 0, 7, 1 + i);
      c.without.Runtime("cudaLaunchKernel", call, "0.1", 1 + i)
          .Kernel("tiny", kernel, "1", 0, 7, 1 + i);
    }
    cases.push_back(std::move(c));
  }
  {
    // comm: an all-reduce 1.0-1.5 us after the compute kernel 0-1: 500 ns exposed. Without: the
    // all-reduce at 0.2-0.7, under the kernel.
    KinetoRuleCase c{"exposed-comm", {}, {}, {"--window", "all", "--min-cost-pct", "0"}, "500"};
    for (auto [builder, at] : {std::pair{&c.planted, "1"}, {&c.without, "0.2"}}) {
      builder->Kernel("compute", "0", "1", 0, 7)
          .Kernel("ncclKernel_AllReduce_RING_LL_Sum_float", at, "0.5", 0, 8);
    }
    cases.push_back(std::move(c));
  }
  {
    // serial: one stream, H2D 0-0.5 us, kernel 0.5-1.5, D2H 1.5-2.0: 1000 ns (the nsys case).
    // Without: both copies on their own streams under the kernel.
    KinetoRuleCase c{
        "serialised-copies", {}, {}, {"--window", "all", "--min-cost-pct", "0"}, "1000"};
    c.planted.Memcpy("Memcpy HtoD (Pinned -> Device)", "0", "0.5", 4096, 0, 7)
        .Kernel("k", "0.5", "1", 0, 7)
        .Memcpy("Memcpy DtoH (Device -> Pinned)", "1.5", "0.5", 4096, 0, 7);
    c.without.Memcpy("Memcpy HtoD (Pinned -> Device)", "0.5", "0.5", 4096, 0, 8)
        .Kernel("k", "0.5", "1", 0, 7)
        .Memcpy("Memcpy DtoH (Device -> Pinned)", "1", "0.5", 4096, 0, 9);
    cases.push_back(std::move(c));
  }
  return cases;
}

TEST(FindingsRulesCli, EveryOtherRuleOnKinetoAsOnNsys) {
  TempDir dir;
  for (const KinetoRuleCase& c : KinetoCases()) {
    SCOPED_TRACE(c.rule);
    auto planted = FindingsByRule(WriteKineto(dir, c.rule, c.planted), c.args);
    ASSERT_EQ(planted.count(c.rule), 1U);
    EXPECT_EQ(planted[c.rule].at("cost_ns"), c.cost_ns);
    EXPECT_EQ(planted[c.rule].at("device"), "0");
    EXPECT_FALSE(planted[c.rule].at("evidence").empty());
    auto without =
        FindingsByRule(WriteKineto(dir, std::string(c.rule) + "_without", c.without), c.args);
    EXPECT_EQ(without.count(c.rule), 0U) << without[c.rule]["evidence"];
  }
}

// Three ProfilerStep ranges; a sync in step 1 costs 400 ns of idle time, one in step 2 600 ns
// (docs/findings.md, "Per step"; the same trace as findings_test.cc's). By hand: 1000 ns, over
// the 3 steps that overlap the window [300, 4300): 333.33 ns per step, steps 1 to 2, worst 2.
constexpr const char* kStepsTrace =
    "api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000\n"
    "kernel start=300 end=1300 stream=7 corr=1 name=k\n"
    "api start=250 end=1400 corr=2 name=cudaDeviceSynchronize_v3020\n"
    "api start=1500 end=1600 corr=3 name=cudaLaunchKernel_v7000\n"
    "kernel start=1700 end=2700 stream=7 corr=3 name=k\n"
    "api start=1650 end=2800 corr=4 name=cudaDeviceSynchronize_v3020\n"
    "api start=3000 end=3100 corr=5 name=cudaLaunchKernel_v7000\n"
    "kernel start=3300 end=4300 stream=7 corr=5 name=k\n"
    "nvtx start=0 end=1500 text=\"ProfilerStep#1\"\n"
    "nvtx start=1500 end=3000 text=\"ProfilerStep#2\"\n"
    "nvtx start=3000 end=4500 text=\"ProfilerStep#3\"\n";

TEST(FindingsRulesCli, ATraceWithoutGpuActivityIsRefusedEvenAsAGate) {
  // Every record lost (here: none there) must not let --fail-on pass.
  TempDir dir;
  const std::filesystem::path empty = dir / "empty.json";
  WriteFile(empty, "{\"traceEvents\": []}\n");
  CliResult r = RunGpuroof({"findings", empty.string(), "--fail-on", "gpu-gap"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find(empty.string() + ": no GPU activity"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(FindingsRulesCli, CostPerStepInCsvJsonAndText) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "steps.sqlite", kStepsTrace);
  auto rows = FindingsByRule(trace, {"--min-cost-pct", "0"});
  ASSERT_EQ(rows.count("sync-call"), 1U);
  EXPECT_EQ(rows["sync-call"].at("cost_ns"), "1000");
  EXPECT_EQ(std::stod(rows["sync-call"].at("cost_per_step_ns")), 1000.0 / 3.0);
  EXPECT_EQ(rows["sync-call"].at("steps"), "1-2 (worst 2)");

  CliResult json = RunGpuroof({"findings", trace.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"steps\": \"'ProfilerStep#*' (3 instances)\""), std::string::npos)
      << json.out;
  EXPECT_NE(json.out.find("\"worst_cost_ns\": 600"), std::string::npos) << json.out;

  CliResult text = RunGpuroof({"findings", trace.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("per step: "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("worst ProfilerStep#2 (600 ns)"), std::string::npos) << text.out;

  // Without steps the per-step cells are empty and JSON says null.
  std::filesystem::path plain = WriteTrace(dir, "plain.sqlite", Cases()[0].planted);
  auto no_steps = FindingsByRule(plain, {"--min-cost-pct", "0"});
  ASSERT_EQ(no_steps.count("sync-call"), 1U);
  EXPECT_EQ(no_steps["sync-call"].at("cost_per_step_ns"), "");
  EXPECT_EQ(no_steps["sync-call"].at("steps"), "");

  CliResult unknown = RunGpuroof({"findings", trace.string(), "--iteration-range", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--iteration-range"), std::string::npos) << unknown.err;
}

// Steps that are a numbered family are named by their own number (ProfilerStep#550-#552 here),
// not by their position 1..3: the CSV `steps` cell, the text's per-step line and JSON's
// first/last/worst_number (first/last/worst stay positions).
TEST(FindingsRulesCli, NumberedStepsAreNamedByTheirNumber) {
  TempDir dir;
  std::string spec = kStepsTrace;
  for (const auto& [from, to] :
       {std::pair{"#1\"", "#550\""}, std::pair{"#2\"", "#551\""}, std::pair{"#3\"", "#552\""}}) {
    spec.replace(spec.find(from), std::string(from).size(), to);
  }
  std::filesystem::path trace = WriteTrace(dir, "steps550.sqlite", spec);
  auto rows = FindingsByRule(trace, {"--min-cost-pct", "0"});
  ASSERT_EQ(rows.count("sync-call"), 1U);
  EXPECT_EQ(rows["sync-call"].at("steps"), "550-551 (worst 551)");

  CliResult text = RunGpuroof({"findings", trace.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("in 2 steps, ProfilerStep#550 to #551, worst ProfilerStep#551 (600 ns)"),
            std::string::npos)
      << text.out;

  CliResult json = RunGpuroof({"findings", trace.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"worst\": 2,"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"first_number\": 550,"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"last_number\": 551,"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"worst_number\": 551,"), std::string::npos) << json.out;
}

// One nsys capture of two ranks (pid 1 on device 0, pid 2 on device 1), each with 2 steps of
// its own, the second rank's 50 ns later: each device's per-step cost is over its own 2 steps
// (sync-call 400 ns: 200 ns per step), not over all 4, and the 2 left out are said.
constexpr const char* kTwoRankTrace =
    "gpu 1 \"G\"\n"
    "api start=100 end=200 corr=1 pid=1 tid=1 name=cudaLaunchKernel_v7000\n"
    "kernel start=300 end=1300 corr=1 pid=1 dev=0 name=k\n"
    "api start=250 end=1400 corr=2 pid=1 tid=1 name=cudaDeviceSynchronize_v3020\n"
    "api start=1500 end=1600 corr=3 pid=1 tid=1 name=cudaLaunchKernel_v7000\n"
    "kernel start=1700 end=2700 corr=3 pid=1 dev=0 name=k\n"
    "nvtx start=0 end=1500 text=\"train_step\" pid=1 tid=1\n"
    "nvtx start=1500 end=3000 text=\"train_step\" pid=1 tid=1\n"
    "api start=150 end=250 corr=11 pid=2 tid=2 name=cudaLaunchKernel_v7000\n"
    "kernel start=350 end=1350 corr=11 pid=2 dev=1 name=k\n"
    "api start=300 end=1450 corr=12 pid=2 tid=2 name=cudaDeviceSynchronize_v3020\n"
    "api start=1550 end=1650 corr=13 pid=2 tid=2 name=cudaLaunchKernel_v7000\n"
    "kernel start=1750 end=2750 corr=13 pid=2 dev=1 name=k\n"
    "nvtx start=50 end=1550 text=\"train_step\" pid=2 tid=2\n"
    "nvtx start=1550 end=3050 text=\"train_step\" pid=2 tid=2\n";

TEST(FindingsRulesCli, EachDeviceTakesTheStepsOfItsOwnProcess) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "ranks.sqlite", kTwoRankTrace);
  CliResult run = RunGpuroof({"findings", trace.string(), "--format", "csv", "--iteration-range",
                              "train_step", "--min-cost-pct", "0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  int syncs = 0;
  for (const auto& row : ParseCsv(run.out)) {
    if (row.at("id") != "sync-call") continue;
    ++syncs;
    EXPECT_EQ(row.at("cost_ns"), "400");
    EXPECT_EQ(std::stod(row.at("cost_per_step_ns")), 200.0) << row.at("device");
    EXPECT_EQ(row.at("steps"), "1");
  }
  EXPECT_EQ(syncs, 2);
  EXPECT_NE(run.err.find("device 0: steps 'train_step' (4 instances): 2 of them left out: "
                         "another process's, not the one driving device 0"),
            std::string::npos)
      << run.err;
}

// `analyze --units-from nvtx:` on the same capture: each device counts its own 2 steps as units,
// and the note says the other 2 instances are another process's, not steps without GPU work.
TEST(FindingsRulesCli, AnalyzeUnitsNoteSaysTheInstancesAreAnotherProcesss) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "ranks.sqlite", kTwoRankTrace);
  CliResult run = RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:train_step"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (int device : {0, 1}) {
    EXPECT_NE(run.err.find(fmt::format(
                  "device {}: 2 of 4 instance(s) of range 'train_step' (4 instances) had no GPU "
                  "work on this device (another process's, which launches nothing onto it): "
                  "not counted as units",
                  device)),
              std::string::npos)
        << run.err << run.out;
  }
}

// The report's findings section takes its steps from --iteration-range as `findings` does: two
// of the three steps named "step" (0-3000 ns) hold the whole 1000 ns sync-call cost, 500 ns each.
TEST(FindingsRulesCli, ReportTakesTheStepsFromIterationRange) {
  TempDir dir;
  const std::string spec = std::string(kStepsTrace) +
                           "nvtx start=0 end=1500 text=\"step\"\n"
                           "nvtx start=1500 end=3000 text=\"step\"\n";
  std::filesystem::path trace = WriteTrace(dir, "steps.sqlite", spec);
  auto rows = FindingsByRule(trace, {"--min-cost-pct", "0", "--iteration-range", "step"});
  ASSERT_EQ(rows.count("sync-call"), 1U);
  EXPECT_EQ(std::stod(rows["sync-call"].at("cost_per_step_ns")), 500.0);
  CliResult json =
      RunGpuroof({"findings", trace.string(), "--iteration-range", "step", "--format", "json"});
  EXPECT_NE(json.out.find("\"steps\": \"'step' (2 instances)\""), std::string::npos) << json.out;

  CliResult page = RunGpuroof({"report", trace.string(), "--iteration-range", "step"});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_NE(page.out.find("steps: &#39;step&#39; (2 instances)"), std::string::npos)
      << page.out.substr(page.out.find("Findings"), 3000);
  CliResult unknown = RunGpuroof({"report", trace.string(), "--iteration-range", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--iteration-range"), std::string::npos) << unknown.err;
}

// --min-cost-pct is a share of each device's window: findings says the window (start, end and
// length after the first GPU op) and counts the ops it left out, in text, JSON (`windows`) and,
// for CSV, on stderr; also when the window holds no op. Before, only "(window 4000:7000)".
TEST(FindingsRulesCli, TheWindowAndTheOpsItLeavesOutAreSaid) {
  TempDir dir;
  const auto trace = WriteTrace(dir, "w.sqlite",
                                "kernel start=0 end=1000 stream=7 name=a\n"
                                "kernel start=5000 end=6000 stream=7 name=b\n"
                                "kernel start=10000 end=11000 stream=7 name=c\n");
  const CliResult text = RunGpuroof({"findings", trace.string(), "--window", "4000:7000"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("\ndevice 0: window range: 4.000 us to 7.000 us after the first GPU op, "
                          "3.000 us long\nnote: device 0: 2 op(s) (2.000 us busy) lie outside the "
                          "window; --window all includes them\n"),
            std::string::npos)
      << text.out;
  const CliResult json =
      RunGpuroof({"findings", trace.string(), "--window", "4000:7000", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.parse(json.out).value();
  const simdjson::dom::array windows = doc["results"].at(0)["windows"].get_array().value();
  ASSERT_EQ(windows.size(), 1u) << json.out;
  EXPECT_EQ(windows.at(0)["device"].get_int64().value(), 0);
  const simdjson::dom::element window = windows.at(0)["window"];
  EXPECT_EQ(window["length_ns"].get_int64().value(), 3000);
  EXPECT_EQ(window["end_ns"].get_int64().value() - window["start_ns"].get_int64().value(), 3000);
  EXPECT_NE(std::string_view(window["note"].get_string().value()).find("2 op(s)"),
            std::string_view::npos)
      << json.out;
  const CliResult csv =
      RunGpuroof({"findings", trace.string(), "--window", "4000:7000", "--format", "csv"});
  EXPECT_NE(csv.err.find("device 0: 2 op(s) (2.000 us busy) lie outside the window"),
            std::string::npos)
      << csv.err;
  // A window with no op: no finding, and the three ops it left out are said.
  const CliResult empty = RunGpuroof({"findings", trace.string(), "--window", "2000:3000"});
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_NE(empty.out.find("note: device 0: 3 op(s)"), std::string::npos) << empty.out;
  EXPECT_NE(empty.out.find("no finding"), std::string::npos) << empty.out;
}

}  // namespace
}  // namespace gpuroof::testing
