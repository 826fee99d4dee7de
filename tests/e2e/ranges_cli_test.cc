// End-to-end tests of `gpuroof ranges`: GPU work attributed to NVTX range instances through the
// launching API calls, checked against figures worked out by hand, and bad input.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

// Three epochs, 1 ms apart, each an NVTX range [0,100us) on thread 1 that launches (from thread
// 1) an H2D copy [200,300us), a kernel [300,350us) and a D2H copy [350,370us) — all after the
// range closed, so only launch correlation can attribute them. A range on thread 2 spans the
// whole trace but launches nothing: it must get no GPU work.
// Per epoch by hand: H2D 100 us, kernel 50 us, D2H 20 us -> H2D binds at 100 us per epoch.
constexpr const char* kEpochs = R"(
gpu 0 "Test GPU"
nvtx start=0 end=3ms text="idle thread" tid=2
repeat 3 step=1ms {
  nvtx start=0 end=100us text="epoch" tid=1
  api start=10us end=15us corr=1+i*3 tid=1 name=cudaMemcpyAsync_v3020
  api start=20us end=25us corr=2+i*3 tid=1
  api start=30us end=35us corr=3+i*3 tid=1 name=cudaMemcpyAsync_v3020
  memcpy start=200us end=300us kind=HtoD bytes=1000000 src=pinned corr=1+i*3 stream=1
  kernel start=300us end=350us name=work corr=2+i*3 stream=2
  memcpy start=350us end=370us kind=DtoH bytes=1000 src=device dst=pinned corr=3+i*3 stream=1
}
)";

std::filesystem::path Build(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::filesystem::path file = dir / name;
  testsupport::BuildFromDescription(text, name, file);
  return file;
}

TEST(RangesCliTest, PerNameRowsAttributeWorkThroughLaunches) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult result = RunGpuroof({"ranges", trace.string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = ParseCsv(result.out);
  ASSERT_EQ(rows.size(), 2u) << result.out;
  // "idle thread" has 3 ms of CPU time, "epoch" 300 us: largest first.
  EXPECT_EQ(rows[0].at("range"), "idle thread");
  EXPECT_EQ(rows[0].at("gpu_ops"), "0");
  EXPECT_EQ(rows[0].at("bottleneck"), "");
  const auto& epoch = rows[1];
  EXPECT_EQ(epoch.at("range"), "epoch");
  EXPECT_EQ(epoch.at("side"), "cpu");
  EXPECT_EQ(epoch.at("method"), "launch-correlation");
  EXPECT_EQ(epoch.at("instances"), "3");
  EXPECT_EQ(epoch.at("cpu_total_ns"), "300000");
  EXPECT_EQ(epoch.at("cpu_median_ns"), "100000");
  EXPECT_EQ(epoch.at("gpu_ops"), "9");
  EXPECT_EQ(epoch.at("instances_with_gpu_work"), "3");
  EXPECT_EQ(epoch.at("h2d_busy_ns"), "300000");
  EXPECT_EQ(epoch.at("kernel_busy_ns"), "150000");
  EXPECT_EQ(epoch.at("d2h_busy_ns"), "60000");
  EXPECT_EQ(epoch.at("bottleneck"), "H2D");
  EXPECT_EQ(epoch.at("roofline_ns_per_instance"), "100000");
}

TEST(RangesCliTest, NamedRangeGivesOneRowPerInstance) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult result =
      RunGpuroof({"ranges", trace.string(), "--name", "epoch", "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = ParseCsv(result.out);
  ASSERT_EQ(rows.size(), 3u) << result.out;
  const auto& second = rows[1];
  EXPECT_EQ(second.at("instance"), "2");
  EXPECT_EQ(second.at("device"), "0");
  EXPECT_EQ(second.at("cpu_start_ns"), "1000000");
  EXPECT_EQ(second.at("cpu_end_ns"), "1100000");
  EXPECT_EQ(second.at("gpu_ops"), "3");
  EXPECT_EQ(second.at("gpu_start_ns"), "1200000");
  EXPECT_EQ(second.at("gpu_end_ns"), "1370000");
  EXPECT_EQ(second.at("any_busy_ns"), "170000");
  EXPECT_EQ(second.at("bottleneck"), "H2D");
  EXPECT_EQ(second.at("roofline_ns"), "100000");

  const CliResult table = RunGpuroof({"ranges", trace.string(), "--name", "epoch"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("GPU work by launch-correlation"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("100.000"), std::string::npos) << table.out;
}

TEST(RangesCliTest, WithoutApiCallsFallsBackToTimeOverlapAndSaysSo) {
  TempDir dir;
  // The same epochs, but each range covers its GPU work and there are no API calls.
  const auto trace = Build(dir, "overlap.sqlite", R"(
gpu 0 "Test GPU"
repeat 2 step=1ms {
  nvtx start=0 end=500us text="epoch"
  memcpy start=200us end=300us kind=HtoD bytes=1000 src=pinned
  kernel start=300us end=600us name=work
}
)");
  const CliResult result = RunGpuroof({"ranges", trace.string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("no CUDA API calls"), std::string::npos) << result.err;
  const auto rows = ParseCsv(result.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("method"), "time-overlap");
  // The kernel [300,600us) is clipped to the range [0,500us): 200 us per epoch.
  EXPECT_EQ(rows[0].at("kernel_busy_ns"), "400000");
  EXPECT_EQ(rows[0].at("h2d_busy_ns"), "200000");
  EXPECT_EQ(rows[0].at("bottleneck"), "kernel");
}

TEST(RangesCliTest, JsonNamesTheSchema) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult result = RunGpuroof({"ranges", trace.string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"gpuroof.ranges/1\""), std::string::npos)
      << result.out.substr(0, 200);
}

TEST(RangesCliTest, AnalyzePerRangeGivesTheInstanceRows) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult ranges =
      RunGpuroof({"ranges", trace.string(), "--name", "epoch", "--format", "csv"});
  const CliResult analyze =
      RunGpuroof({"analyze", trace.string(), "--per-range", "epoch", "--format", "csv"});
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_EQ(analyze.out, ranges.out);
  EXPECT_EQ(ParseCsv(analyze.out).size(), 3u);

  const CliResult mixed =
      RunGpuroof({"analyze", trace.string(), "--per-range", "epoch", "--units", "3"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("--per-range"), std::string::npos) << mixed.err;
}

// The tables' layout, pinned (the numbers in them are checked cell by cell above).
TEST(RangesCliTest, TablesMatchTheirGoldenFiles) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  for (const auto& [golden, extra] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"ranges_epochs.txt", {}},
           {"ranges_epochs_instances.txt", {"--name", "epoch"}},
           {"ranges_epochs_instances.json", {"--name", "epoch", "--format", "json"}}}) {
    std::vector<std::string> args = {"ranges", trace.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult result = RunGpuroof(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ExpectGoldenOutput(golden, result.out, trace.string(), "<epochs>");
  }
}

bool IsOneErrorLine(const std::string& err) {
  return err.rfind("gpuroof: error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

TEST(RangesCliTest, BadInputIsOneClearLine) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  CliResult result = RunGpuroof({"ranges", trace.string(), "--name", "nope"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(result.err)) << result.err;
  EXPECT_NE(result.err.find("no NVTX range named 'nope'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'epoch'"), std::string::npos) << result.err;

  const auto no_nvtx =
      Build(dir, "plain.sqlite", "gpu 0 \"Test GPU\"\nkernel start=0 end=10us name=k\n");
  result = RunGpuroof({"ranges", no_nvtx.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(result.err)) << result.err;
  EXPECT_NE(result.err.find("no NVTX"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());

  const auto output = dir / "out.csv";
  WriteFile(output, "keep me");
  result = RunGpuroof({"ranges", no_nvtx.string(), "-o", output.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(ReadFile(output), "keep me");
}

}  // namespace
}  // namespace gpuroof::testing

namespace gpuroof::testing {
namespace {

// A training loop: two steps, 1 ms apart, each an NVTX range [0,500us) on thread 1 with a nested
// "forward" [10,100us). Thread 1 launches the forward kernel (at 20us); the autograd thread, 2,
// launches the backward kernel (200us) and the gradient copy (300us) while the step is open.
// Per step by hand: fwd [100,200us) 100 us, bwd [250,450us) 200 us, D2H [450,480us) 30 us:
// 3 ops, kernel busy 300 us, D2H 30 us, GPU span [100,480us) = 380 us.
constexpr const char* kTwoThreadSteps = R"(
gpu 0 "Test GPU"
repeat 2 step=1ms {
  nvtx start=0 end=500us text="train_step" tid=1
  nvtx start=10us end=100us text="forward" tid=1
  api start=20us end=25us corr=1+i*3 tid=1
  api start=200us end=205us corr=2+i*3 tid=2
  api start=300us end=305us corr=3+i*3 tid=2 name=cudaMemcpyAsync_v3020
  kernel start=100us end=200us name=fwd corr=1+i*3 stream=1
  kernel start=250us end=450us name=bwd corr=2+i*3 stream=1
  memcpy start=450us end=480us kind=DtoH bytes=1000 src=device dst=pinned corr=3+i*3 stream=1
}
)";

// Two steps; the second made a kernel launch whose kernel is not in the trace (the capture ended
// first), and step 1's all-reduce [600, 900us) runs under step 2's kernel [800, 1100us).
constexpr const char* kIncompleteStep = R"(
gpu 0 "Test GPU"
nvtx start=0 end=500us text="train_step" tid=1
nvtx start=500us end=1ms text="train_step" tid=1
api start=10us end=15us corr=1 tid=1
api start=20us end=25us corr=2 tid=1
api start=510us end=515us corr=3 tid=1
api start=520us end=525us corr=4 tid=1 name=cudaLaunchKernel_v7000
kernel start=100us end=400us name=fwd corr=1 stream=1
kernel start=600us end=900us name=ncclAllReduceKernel corr=2 stream=2
kernel start=800us end=1100us name=fwd corr=3 stream=1
)";

TEST(RangesCliTest, LaunchesWithoutTheirGpuOpAreSaidPerInstance) {
  TempDir dir;
  const auto trace = Build(dir, "incomplete.sqlite", kIncompleteStep);
  const std::string note =
      "1 of 2 instance(s) of range 'train_step' made 1 launch call(s) whose GPU op is not in the "
      "trace (train_step (instance 2): 1)";
  const CliResult ranges = RunGpuroof({"ranges", trace.string(), "--name", "train_step"});
  ASSERT_EQ(ranges.exit_code, 0) << ranges.err;
  EXPECT_NE(ranges.out.find(note), std::string::npos) << ranges.out;
  const CliResult json =
      RunGpuroof({"ranges", trace.string(), "--name", "train_step", "--format", "json"});
  EXPECT_NE(json.out.find("\"launches_without_gpu_op\": 1"), std::string::npos) << json.out;
  const CliResult units =
      RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:train_step"});
  ASSERT_EQ(units.exit_code, 0) << units.err;
  EXPECT_NE(units.err.find(note), std::string::npos) << units.err;

  // Step 1's overlap lines see its own work only, and say what else ran in its window.
  const CliResult overlap =
      RunGpuroof({"analyze", trace.string(), "--window", "nvtx:train_step@1", "--overlap"});
  ASSERT_EQ(overlap.exit_code, 0) << overlap.err;
  EXPECT_NE(overlap.out.find("exposed 300.000 us"), std::string::npos) << overlap.out;
  EXPECT_NE(overlap.out.find("these lines see the work of range 'train_step' instance 1 of 2 "
                             "only: 1 other op(s) ran 100.000 us of the window; with them the "
                             "GPU was idle 200.000 us"),
            std::string::npos)
      << overlap.out;
}

// Three steps of 1 ms; the second launches nothing. ranges averages the kernel's 500 us over the
// 3 instances (333.333 us), analyze --units-from over the 2 units with work (500 us): said.
TEST(RangesCliTest, InstancesWithoutGpuWorkAreCountedInANote) {
  TempDir dir;
  const auto trace = Build(dir, "zero.sqlite", R"(
gpu 0 "Test GPU"
nvtx start=0 end=1ms text="step" tid=1
nvtx start=1ms end=2ms text="step" tid=1
nvtx start=2ms end=3ms text="step" tid=1
api start=10us end=15us corr=1 tid=1
api start=2010us end=2015us corr=2 tid=1
kernel start=100us end=600us name=k corr=1 stream=1
kernel start=2100us end=2600us name=k corr=2 stream=1
)");
  const CliResult result = RunGpuroof({"ranges", trace.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("note: 'step': 1 of 3 instance(s) had no GPU work; the "
                            "per-instance figures average over all 3 (analyze --units-from: "
                            "over the 2 with work)"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("333.333"), std::string::npos) << result.out;
}

// The same with the first step's work on two devices: analyze counts units per device (2 on
// device 0, 1 on device 1), so the note gives no single count.
TEST(RangesCliTest, InstancesWithoutGpuWorkOnSeveralDevicesGiveNoSingleUnitCount) {
  TempDir dir;
  const auto trace = Build(dir, "zero2.sqlite", R"(
gpu 0 "Test GPU"
gpu 1 "Test GPU"
nvtx start=0 end=1ms text="step" tid=1
nvtx start=1ms end=2ms text="step" tid=1
nvtx start=2ms end=3ms text="step" tid=1
api start=10us end=15us corr=1 tid=1
api start=20us end=25us corr=3 tid=1
api start=2010us end=2015us corr=2 tid=1
kernel start=100us end=600us name=k corr=1 stream=1 dev=0
kernel start=100us end=600us name=k corr=3 stream=1 dev=1
kernel start=2100us end=2600us name=k corr=2 stream=1 dev=0
)");
  const CliResult result = RunGpuroof({"ranges", trace.string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("note: 'step': 1 of 3 instance(s) had no GPU work; the "
                            "per-instance figures average over all 3 (analyze --units-from: on "
                            "each device,"),
            std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("with work)"), std::string::npos) << result.out;
}

// One step [0, 1ms) launching kernel k [100, 300us); kernel "orphan" [400, 600us) runs inside
// the step but no call in the trace launched it (what Kineto's dropped launch records look like):
// not the step's work, outside the GPU span of its work, and said to run during the step.
TEST(RangesCliTest, OpsNotTheRangesWorkRunningDuringAnInstanceAreSaid) {
  TempDir dir;
  const auto trace = Build(dir, "orphan.sqlite", R"(
gpu 0 "Test GPU"
nvtx start=0 end=1ms text="step" tid=1
api start=10us end=15us corr=1 tid=1
kernel start=100us end=300us name=k corr=1 stream=1
kernel start=400us end=600us name=orphan corr=99 stream=1
)");
  const CliResult result =
      RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:step", "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("1 op(s) (200.000 us busy) are not the work of range 'step' (1 "
                            "instance): not counted (0 of them run within the GPU span of its "
                            "work, 1 while an instance of it was open, launched by no call in "
                            "the trace: dropped launch records?); --window all includes them"),
            std::string::npos)
      << result.err;
  // A window of the range says the same.
  const CliResult window =
      RunGpuroof({"analyze", trace.string(), "--window", "nvtx:step", "--format", "csv"});
  ASSERT_EQ(window.exit_code, 0) << window.err;
  EXPECT_NE(window.err.find("1 while an instance of it was open, launched by no call in the "
                            "trace: dropped launch records?"),
            std::string::npos)
      << window.err;
}

TEST(RangesCliTest, IterationRangesTakeEveryThreadsLaunches) {
  TempDir dir;
  const auto trace = Build(dir, "steps.sqlite", kTwoThreadSteps);
  // Named: an iteration range, so the autograd thread's launches are the step's work.
  const CliResult named =
      RunGpuroof({"ranges", trace.string(), "--name", "train_step", "--format", "csv"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(named.err, "");
  const auto rows = ParseCsv(named.out);
  ASSERT_EQ(rows.size(), 2u) << named.out;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("gpu_ops"), "3");
    EXPECT_EQ(row.at("kernel_busy_ns"), "300000");
    EXPECT_EQ(row.at("d2h_busy_ns"), "30000");
    EXPECT_EQ(std::stoll(row.at("gpu_end_ns")) - std::stoll(row.at("gpu_start_ns")), 380000);
  }
  // --per-range is the same report.
  const CliResult per_range =
      RunGpuroof({"analyze", trace.string(), "--per-range", "train_step", "--format", "csv"});
  ASSERT_EQ(per_range.exit_code, 0) << per_range.err;
  EXPECT_EQ(per_range.out, named.out);

  // The thread rule (nsys's projection) keeps the forward kernel only, and says what it left.
  const CliResult thread = RunGpuroof({"ranges", trace.string(), "--name", "train_step",
                                       "--attribute", "thread", "--format", "csv"});
  ASSERT_EQ(thread.exit_code, 0) << thread.err;
  for (const auto& row : ParseCsv(thread.out))
    EXPECT_EQ(row.at("gpu_ops"), "1");
  EXPECT_NE(thread.err.find("range 'train_step': 4 op(s) launched by other threads"),
            std::string::npos)
      << thread.err;

  // The overview keeps the thread rule for plain names (nested ranges): "forward" has its own
  // kernel, "train_step" too, and the note counts the 4 left out.
  const CliResult overview = RunGpuroof({"ranges", trace.string(), "--format", "csv"});
  ASSERT_EQ(overview.exit_code, 0) << overview.err;
  std::map<std::string, std::string> ops;
  for (const auto& row : ParseCsv(overview.out))
    ops[row.at("range")] = row.at("gpu_ops");
  EXPECT_EQ(ops["forward"], "2");
  EXPECT_EQ(ops["train_step"], "2");
  EXPECT_NE(overview.err.find("4 op(s) launched by other threads"), std::string::npos);
}

TEST(RangesCliTest, UnitsAndWindowFromAnIterationRangeAgree) {
  TempDir dir;
  const auto trace = Build(dir, "steps.sqlite", kTwoThreadSteps);
  // The window is the steps' work, first op 100us to last op end 1480us; 2 units.
  const CliResult units = RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:train_step",
                                      "--unit-name", "step", "--format", "csv"});
  ASSERT_EQ(units.exit_code, 0) << units.err;
  const auto rows = ParseCsv(units.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("n_steps"), "2");
  EXPECT_EQ(rows[0].at("window_ms"), "1.38");
  EXPECT_EQ(rows[0].at("kernel_n"), "4");
  EXPECT_EQ(rows[0].at("kernel_us_per_step"), "300");
  EXPECT_EQ(rows[0].at("D2H_us_per_step"), "30");
  EXPECT_EQ(rows[0].at("window_range"), "'train_step' (2 instances)");

  // One instance: NAME@N. Its window is its work's span, 380 us, 3 ops.
  const CliResult second =
      RunGpuroof({"analyze", trace.string(), "--window", "nvtx:train_step@2", "--format", "csv"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto instance = ParseCsv(second.out);
  EXPECT_EQ(instance[0].at("window_ms"), "0.38");
  EXPECT_EQ(instance[0].at("kernel_n"), "2");
  EXPECT_EQ(instance[0].at("D2H_n"), "1");
  EXPECT_EQ(instance[0].at("window_range"), "'train_step' instance 2 of 2");
  // The first step's 3 ops are not this window's: said on stderr.
  EXPECT_NE(second.err.find("3 op(s) (330.000 us busy) are not the work of range 'train_step' "
                            "instance 2 of 2"),
            std::string::npos)
      << second.err;

  // Several instances and no choice is refused with the two spellings.
  const CliResult ambiguous =
      RunGpuroof({"analyze", trace.string(), "--window", "nvtx:train_step"});
  EXPECT_EQ(ambiguous.exit_code, 2);
  EXPECT_NE(ambiguous.err.find("choose one with nvtx:train_step@N (1 to 2), or all with "
                               "nvtx:train_step@*"),
            std::string::npos)
      << ambiguous.err;
}

}  // namespace
}  // namespace gpuroof::testing

namespace gpuroof::testing {
namespace {

// A unified-memory run: 100 migrations of 5 us, 10 us apart, [0, 1 ms), then one kernel
// [2 ms, 2.05 ms). The processing window is the kernel alone; by hand the window leaves out 100
// ops, 500 us busy, and `--window all` counts them.
constexpr const char* kMigrationsBeforeTheKernel = R"(
gpu 0 "Test GPU"
repeat 100 step=10us {
  memcpy start=0 end=5us kind=UVM_HtoD bytes=4096
}
kernel start=2ms end=2ms+50us name=k
)";

TEST(WindowCoverageCliTest, WhatTheWindowLeavesOutIsSaid) {
  TempDir dir;
  const auto trace = Build(dir, "uvm.sqlite", kMigrationsBeforeTheKernel);
  const CliResult processing = RunGpuroof({"analyze", trace.string(), "--format", "json"});
  ASSERT_EQ(processing.exit_code, 0) << processing.err;
  EXPECT_EQ(processing.err, "gpuroof: note: " + trace.string() +
                                ": device 0: 100 op(s) (500.000 us busy) lie outside the window; "
                                "--window all includes them\n");
  EXPECT_NE(
      processing.out.find("\"outside_window\": {\n        \"ops\": 100,\n        \"busy_ns\": "
                          "500000,"),
      std::string::npos)
      << processing.out;
  const CliResult all =
      RunGpuroof({"analyze", trace.string(), "--window", "all", "--format", "csv"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.err, "");
  const auto rows = ParseCsv(all.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("UVM_H2D_n"), "100");
  EXPECT_EQ(rows[0].at("UVM_H2D_busy_ms"), "0.5");
}

}  // namespace
}  // namespace gpuroof::testing
