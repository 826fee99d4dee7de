// End-to-end tests of `gpuroof compare` on builder-made profiles: the statistical gate (single-
// and multi-run), the simple per-epoch mode, calibration, outputs, and bad input that must end in
// one clear line with exit 2. Expected verdicts follow from the numbers written into each
// profile, not from the program's own output.
#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path SharedFixtures() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR);
}

struct ProfileSpec {
  std::string gpu = "NVIDIA TestGPU";
  int64_t gemm_ns = 300000;  // gemm's base duration
  int64_t noise_ns = 0;      // amplitude of the +-30-step pseudo-random noise on gemm
  int seed = 0;              // varies the noise sequence between profiles
  int iterations = 200;
  int64_t forward_ns = 0;  // > 0: a CPU range "forward" of this (noisy) length, and "log" (5 us)
};

// `iterations` steps of 1 ms: an NVTX range "step" (CPU) that launches gemm (grid 256,2 block
// 128) and then small (200 us), each through its own API call and correlation id. gemm's
// duration is gemm_ns + ((i*7919 + seed) % 61 - 30) * noise_ns. With forward_ns, each step also
// holds the annotation ranges "forward" (the same noise) and "log" (5 us, 0.6 % of the step).
std::filesystem::path WriteProfile(const TempDir& dir, const std::string& name,
                                   const ProfileSpec& spec) {
  const std::filesystem::path file = dir / (name + ".sqlite");
  const std::string ranges = spec.forward_ns == 0
                                 ? std::string()
                                 : fmt::format(R"desc(
  nvtx start=50us end=50us+{}+((i*7919+{})%61-30)*{} text="forward"
  nvtx start=880us end=885us text="log")desc",
                                               spec.forward_ns, spec.seed, spec.noise_ns);
  const std::string description =
      fmt::format(R"desc(
gpu 0 "{}"
repeat {} step=1ms {{
  nvtx start=0 end=900us text="step"
  api start=10us end=20us corr=1+2*i
  kernel start=100us end=100us+{}+((i*7919+{})%61-30)*{} corr=1+2*i name=gemm grid=256,2 block=128
  api start=30us end=40us corr=2+2*i
  kernel start=500us end=700us corr=2+2*i name=small grid=64 block=64{}
}}
)desc",
                  spec.gpu, spec.iterations, spec.gemm_ns, spec.seed, spec.noise_ns, ranges);
  testsupport::BuildFromDescription(description, name, file);
  return file;
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

const char kGemm[] = "kernel gemm <<<(256,2,1),(128,1,1)>>>";

std::string RowOf(const std::string& out, const std::string& label) {
  const size_t at = out.find(label);
  if (at == std::string::npos) return "";
  return out.substr(at, out.find('\n', at) - at);
}

TEST(CompareCli, ProfileAgainstItselfHasEveryRatioExactlyOne) {
  TempDir dir;
  const auto p = WriteProfile(dir, "p", {.noise_ns = 100});
  const CliResult r =
      RunGpuroof({"compare", "--baseline", p.string(), "--current", p.string(), "--iteration-range",
                  "step", "--json", (dir / "g.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("result: PASS"), std::string::npos) << r.out;
  const std::string json = ReadFile(dir / "g.json");
  EXPECT_NE(json.find("\"schema\": \"gpuroof.compare/1\""), std::string::npos);
  // Every "ratio": {"estimate": X, ...} object (found by hand: GCC 12's <regex> trips
  // -Wmaybe-uninitialized in optimised builds).
  size_t ratios = 0;
  const std::string ratio_key = "\"ratio\": {";
  const std::string estimate_key = "\"estimate\": ";
  for (size_t at = json.find(ratio_key); at != std::string::npos;
       at = json.find(ratio_key, at + 1)) {
    size_t value = json.find_first_not_of(" \n", at + ratio_key.size());
    if (value == std::string::npos || json.compare(value, estimate_key.size(), estimate_key) != 0) {
      continue;
    }
    value += estimate_key.size();
    EXPECT_EQ(json.substr(value, json.find(',', value) - value), "1") << json;
    ++ratios;
  }
  // iteration, GPU busy, two kernels, launches/iter.
  EXPECT_GE(ratios, 5u) << json;
}

TEST(CompareCli, TenPercentSlowerKernelIsARegression) {
  TempDir dir;
  const auto base = WriteProfile(dir, "base", {.noise_ns = 100});
  const auto cur = WriteProfile(dir, "cur", {.gemm_ns = 330000, .noise_ns = 100, .seed = 5});
  const CliResult r = RunGpuroof(
      {"compare", "--baseline", base.string(), "--current", cur.string(), "--iteration-range",
       "step", "--markdown", (dir / "gate.md").string(), "--html", (dir / "gate.html").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string gemm = RowOf(r.out, kGemm);
  EXPECT_NE(gemm.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(gemm.find("+10.0%"), std::string::npos) << gemm;
  // GPU busy per iteration: 500 us -> 530 us, +6 % > the 3 % floor.
  EXPECT_NE(RowOf(r.out, "GPU compute busy / iter").find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(RowOf(r.out, "kernel small").find("~"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: REGRESSION"), std::string::npos);
  const std::string md = ReadFile(dir / "gate.md");
  EXPECT_EQ(md.rfind("### ❌ GPU performance gate: 2 regressions", 0), 0u) << md;
  EXPECT_LT(md.size(), 60000u);
  const std::string html = ReadFile(dir / "gate.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("REGRESSION (2 gated metrics) -&gt; exit 1"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("kernel gemm &lt;&lt;&lt;(256,2,1),(128,1,1)&gt;&gt;&gt;"),
            std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(CompareCli, OnePercentChangeInOnePercentNoiseIsNotARegression) {
  TempDir dir;
  // Noise step 100 ns x +-30 = +-1 % of 300 us; the change is +1 %.
  const auto base = WriteProfile(dir, "base", {.noise_ns = 100});
  const auto cur = WriteProfile(dir, "cur", {.gemm_ns = 303000, .noise_ns = 100, .seed = 17});
  const CliResult r = RunGpuroof({"compare", "--baseline", base.string(), "--current", cur.string(),
                                  "--iteration-range", "step"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out.find("REGRESSED"), std::string::npos) << r.out;
}

TEST(CompareCli, ThreeProfilesPerSideUseRunLevelStatistics) {
  TempDir dir;
  std::vector<std::string> args = {"compare", "--iteration-range", "step", "--baseline"};
  // Session noise: each profile's gemm is offset by up to +-0.3 %.
  const int64_t offsets[] = {-900, 0, 900};
  for (int k = 0; k < 3; ++k) {
    args.push_back(WriteProfile(dir, fmt::format("b{}", k),
                                {.gemm_ns = 300000 + offsets[k], .noise_ns = 50, .seed = k})
                       .string());
  }
  args.push_back("--current");
  for (int k = 0; k < 3; ++k) {
    args.push_back(WriteProfile(dir, fmt::format("c{}", k),
                                {.gemm_ns = 330000 + offsets[2 - k], .noise_ns = 50, .seed = 7 + k})
                       .string());
  }
  const CliResult r = RunGpuroof(args);
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("mode: multi-run"), std::string::npos) << r.out;
  EXPECT_NE(RowOf(r.out, kGemm).find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(RowOf(r.out, kGemm).find("3/3"), std::string::npos) << r.out;
}

// "forward" takes ~45 % of each step and grows 10 %: gated by its share, REGRESSED. "log" (0.6 %)
// is only reported, unless named by --gate-range.
TEST(CompareCli, AnnotationRangesAreGatedByShareOrByName) {
  TempDir dir;
  const auto base = WriteProfile(dir, "base", {.noise_ns = 100, .forward_ns = 400000});
  const auto cur = WriteProfile(dir, "cur", {.noise_ns = 100, .seed = 5, .forward_ns = 440000});
  const CliResult r =
      RunGpuroof({"compare", "--baseline", base.string(), "--current", cur.string(),
                  "--iteration-range", "step", "--json", (dir / "g.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string forward = RowOf(r.out, "range [forward]");
  EXPECT_NE(forward.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(forward.find("+10.0%"), std::string::npos) << forward;
  EXPECT_NE(RowOf(r.out, "range [log]").find("~"), std::string::npos) << r.out;
  const std::string json = ReadFile(dir / "g.json");
  const size_t log_at = json.find("\"id\": \"range:log\"");
  ASSERT_NE(log_at, std::string::npos) << json;
  EXPECT_NE(json.find("\"gated\": false", log_at), std::string::npos) << json;
  EXPECT_LT(json.find("\"gated\": false", log_at), json.find('}', log_at)) << json;

  const CliResult named = RunGpuroof({"compare", "--baseline", base.string(), "--current",
                                      cur.string(), "--iteration-range", "step", "--gate-range",
                                      "log", "--json", (dir / "named.json").string()});
  EXPECT_EQ(named.exit_code, 1) << named.err;
  const std::string named_json = ReadFile(dir / "named.json");
  const size_t named_at = named_json.find("\"id\": \"range:log\"");
  ASSERT_NE(named_at, std::string::npos);
  EXPECT_LT(named_json.find("\"gated\": true", named_at), named_json.find('}', named_at));

  const CliResult unknown = RunGpuroof({"compare", base.string(), cur.string(), "--iteration-range",
                                        "step", "--gate-range", "backward"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.out, "");
  EXPECT_EQ(unknown.err,
            "gpuroof: error: --gate-range: range 'backward' has no instance within the steady "
            "iterations of either side\n");
}

TEST(CompareCli, DifferentGpuModelIsIncomparable) {
  TempDir dir;
  const auto base = WriteProfile(dir, "base", {});
  const auto cur = WriteProfile(dir, "cur", {.gpu = "NVIDIA OtherGPU"});
  const CliResult r = RunGpuroof({"compare", base.string(), cur.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("not comparable: GPU model 'NVIDIA OtherGPU'"), std::string::npos) << r.err;
}

TEST(CompareCli, BadInputEndsInOneLineAndExit2) {
  TempDir dir;
  const auto p = WriteProfile(dir, "p", {.iterations = 20});
  const auto only_other = dir / "other.sqlite";
  testsupport::BuildFromDescription("gpu 0 \"NVIDIA TestGPU\"\nkernel start=0 end=100 name=other\n",
                                    "other", only_other);
  const std::string missing = (dir / "missing.sqlite").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"compare", p.string(), missing}, missing},
      {{"compare", p.string(), p.string(), "--epochs", "0"}, "--epochs"},
      {{"compare", p.string(), p.string(), "--epochs", "2", "--threshold", "0.9"}, "--threshold"},
      {{"compare", p.string(), only_other.string()}, only_other.string()},
      {{"compare", p.string(), p.string(), "--iteration-range", "epoch"}, p.string()},
      {{"compare", p.string(), p.string(), "--warmup", "x"}, "--warmup"},
      {{"compare", "--baseline", p.string()}, "compare"},
  };
  for (const auto& [args, source] : cases) {
    const CliResult r = RunGpuroof(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << "\n" << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(r.err.rfind("gpuroof: error: " + source + ":", 0), 0u) << r.err;
  }
}

// Simple mode: 4 kernels of 1.5 ms against 4 of 1.8 ms over 2 epochs: 3.000 and 3.600 ms/epoch,
// ratio 1.2 exactly: PASS at --threshold 1.20, FAIL at 1.19.
TEST(CompareCli, SimpleModeComparesKernelTimePerEpoch) {
  TempDir dir;
  const auto base = dir / "base.sqlite";
  const auto cur = dir / "cur.sqlite";
  testsupport::BuildFromDescription(
      "gpu 0 \"G\"\nrepeat 4 step=2ms {\n kernel start=0 end=1.5ms name=k\n}\n", "base", base);
  testsupport::BuildFromDescription(
      "gpu 0 \"G\"\nrepeat 4 step=2ms {\n kernel start=0 end=1.8ms name=k\n}\n", "cur", cur);
  const CliResult pass =
      RunGpuroof({"compare", base.string(), cur.string(), "--epochs", "2", "--threshold", "1.20"});
  EXPECT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_EQ(pass.out,
            "PASS: GPU kernel time per epoch baseline=3.000ms/epoch current=3.600ms/epoch "
            "ratio=1.200x (threshold 1.20x, 2 epochs)\n");
  const CliResult fail =
      RunGpuroof({"compare", base.string(), cur.string(), "--epochs", "2", "--threshold", "1.19"});
  EXPECT_EQ(fail.exit_code, 1) << fail.err;
  EXPECT_EQ(fail.out.rfind("FAIL: ", 0), 0u) << fail.out;
}

TEST(CompareCli, CalibrationReportsTheNoise) {
  TempDir dir;
  std::vector<std::string> args = {"compare", "--calibrate", "--iteration-range", "step"};
  for (int k = 0; k < 3; ++k)
    args.push_back(WriteProfile(dir, fmt::format("a{}", k), {.noise_ns = 30, .seed = k}).string());
  const CliResult r = RunGpuroof(args);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(r.out.rfind("calibration: 3 profiles of the same code  NVIDIA TestGPU", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find("A/A gate of the first two profiles: 0 false alarm(s)"), std::string::npos)
      << r.out;
}

// A history of six main-branch runs (session noise +-0.3 %), then a PR run 10 % slower in gemm.
TEST(CompareCli, HistoryModeAgainstEarlierRuns) {
  TempDir dir;
  const std::string history = (dir / "main.jsonl").string();
  for (int k = 0; k < 6; ++k) {
    const auto run =
        WriteProfile(dir, fmt::format("m{}", k),
                     {.gemm_ns = 300000 + (k % 3 - 1) * 900, .noise_ns = 50, .seed = k});
    const CliResult seed = RunGpuroof({"compare", "--current", run.string(), "--history-append",
                                       history, "--iteration-range", "step"});
    ASSERT_EQ(seed.exit_code, 0) << seed.err;
  }
  EXPECT_EQ(Lines(ReadFile(history)), 6u);
  const auto slow = WriteProfile(dir, "pr", {.gemm_ns = 330000, .noise_ns = 50, .seed = 40});
  const CliResult r = RunGpuroof(
      {"compare", "--history", history, "--current", slow.string(), "--iteration-range", "step"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("mode: history"), std::string::npos) << r.out;
  EXPECT_NE(RowOf(r.out, kGemm).find("REGRESSED"), std::string::npos) << r.out;
  // The delta column's interval is not one around the estimate here: the table says so.
  EXPECT_NE(r.out.find("history rows: the interval is the band of ratios the history predicts"),
            std::string::npos)
      << r.out;
  const auto same = WriteProfile(dir, "pr2", {.noise_ns = 50, .seed = 41});
  const CliResult ok = RunGpuroof(
      {"compare", "--history", history, "--current", same.string(), "--iteration-range", "step"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  WriteFile(dir / "bad.jsonl", "{\"metrics\": [}\n");
  const CliResult bad = RunGpuroof(
      {"compare", "--history", (dir / "bad.jsonl").string(), "--current", same.string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("gpuroof: error: " + (dir / "bad.jsonl").string() + ":1:", 0), 0u)
      << bad.err;
}

// A short capture: 4 steps of 9 ms (3 steady), each launching gemm 20 times (300 us, noise step
// 100 ns x +-30). Iteration time and GPU busy have 3 < 6 samples a side: LOW-N. The kernel has 60
// launches a side within the steady steps, enough to be checked — and to catch a 10 % regression.
std::filesystem::path WriteShortCapture(const TempDir& dir, const std::string& name,
                                        int64_t gemm_ns, int seed, const std::string& devices) {
  const std::filesystem::path file = dir / (name + ".sqlite");
  std::string description = "gpu 0 \"NVIDIA TestGPU\"\n";
  if (devices == "0,1") description += "gpu 1 \"NVIDIA TestGPU\"\n";
  if (devices == "2,3") description = "gpu 2 \"NVIDIA TestGPU\"\ngpu 3 \"NVIDIA TestGPU\"\n";
  // With two devices, even launches go to the first and odd ones to the second.
  const std::string dev = devices == "0" ? "0" : devices == "0,1" ? "j%2" : "2+j%2";
  description += fmt::format(R"desc(
repeat 4 step=10ms {{
  nvtx start=0 end=9ms text="step"
  repeat 20 step=400us {{
    api start=10us end=20us corr=1+20*i+j
    kernel start=100us end=100us+{}+(((i*20+j)*7919+{})%61-30)*100 corr=1+20*i+j dev={} name=gemm grid=256,2 block=128
  }}
}}
)desc",
                             gemm_ns, seed, dev);
  testsupport::BuildFromDescription(description, name, file);
  return file;
}

TEST(CompareCli, ShortCaptureGatesOnKernelSamplesWithinTheSteps) {
  TempDir dir;
  const auto base = WriteShortCapture(dir, "base", 300000, 0, "0");
  const auto same = WriteShortCapture(dir, "same", 300000, 11, "0");
  const auto slow = WriteShortCapture(dir, "slow", 330000, 11, "0");
  const CliResult pass = RunGpuroof({"compare", "--baseline", base.string(), "--current",
                                     same.string(), "--iteration-range", "step"});
  EXPECT_EQ(pass.exit_code, 0) << pass.err << pass.out;
  const std::string result = RowOf(pass.out, "result: ");
  EXPECT_NE(result.find("result: PASS WITH WARNINGS: iteration time LOW-N (+0.0%, under "
                        "threshold), 3 < 6 steps"),
            std::string::npos)
      << pass.out;
  EXPECT_NE(result.find("small capture: gating rests on 1 kernel(s) with per-launch samples "
                        "within the steps"),
            std::string::npos)
      << pass.out;
  EXPECT_NE(RowOf(pass.out, kGemm).find("60/60"), std::string::npos) << pass.out;

  const CliResult slower = RunGpuroof({"compare", "--baseline", base.string(), "--current",
                                       slow.string(), "--iteration-range", "step"});
  EXPECT_EQ(slower.exit_code, 1) << slower.err << slower.out;
  EXPECT_NE(RowOf(slower.out, kGemm).find("REGRESSED"), std::string::npos) << slower.out;
  EXPECT_NE(RowOf(slower.out, "iteration time [step]").find("LOW-N"), std::string::npos);
}

// Every step is exactly 9 ms, so the within-profile spread of iteration time is 0 and the steps
// one profile a side needs are n_min = 6; GPU busy (20 x 300 us +- 3 us per step) spreads by
// ~0.1 %, far below what would need more than 6. The capture has 3 steady steps.
TEST(CompareCli, CalibrationSaysHowManyStepsAProfileNeeds) {
  TempDir dir;
  std::vector<std::string> args = {"compare", "--calibrate", "--iteration-range", "step"};
  for (int k = 0; k < 3; ++k)
    args.push_back(WriteShortCapture(dir, fmt::format("a{}", k), 300000, k, "0").string());
  const CliResult r = RunGpuroof(args);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("needs: iteration time [step]: 6 steady steps per profile for a 5% change "
                       "with one profile a side (this capture has 3), or 2 profiles a side\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("needs: GPU compute busy / iter: 6 steady steps per profile"),
            std::string::npos)
      << r.out;
}

// Two active GPUs per profile: matched by id, and said; other ids on the current side cannot be
// paired, and a warning says why their rows are NEW/REMOVED.
TEST(CompareCli, SeveralDevicesAreMatchedById) {
  TempDir dir;
  const auto base = WriteShortCapture(dir, "base", 300000, 0, "0,1");
  const auto cur = WriteShortCapture(dir, "cur", 300000, 11, "0,1");
  const auto other = WriteShortCapture(dir, "other", 300000, 11, "2,3");
  const CliResult r = RunGpuroof({"compare", base.string(), cur.string(), "--iteration-range",
                                  "step", "--json", (dir / "g.json").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("\ndevices: several active GPUs per profile, matched by id (baseline 0,1, "
                       "current 0,1)\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(RowOf(r.out, "GPU compute busy / iter [dev 1]").find("3/3"), std::string::npos)
      << r.out;
  const std::string json = ReadFile(dir / "g.json");
  EXPECT_NE(json.find("\"matching\": \"id\""), std::string::npos);
  EXPECT_NE(json.find("\"id\": \"busy:kernel:1\""), std::string::npos);

  const CliResult unpaired =
      RunGpuroof({"compare", base.string(), other.string(), "--iteration-range", "step"});
  EXPECT_EQ(unpaired.exit_code, 0) << unpaired.err << unpaired.out;
  EXPECT_NE(unpaired.out.find("warning: devices matched by id (2 active GPUs per profile): "
                              "baseline devices 0,1 and current devices 2,3 differ"),
            std::string::npos)
      << unpaired.out;
  EXPECT_NE(RowOf(unpaired.out, "GPU compute busy / iter [dev 2]").find("NEW"), std::string::npos)
      << unpaired.out;
}

TEST(CompareCli, EverySharedNsysFixtureComparedWithItselfPasses) {
  const std::filesystem::path folder = SharedFixtures() / "nsys";
  if (!std::filesystem::is_directory(folder)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << folder;
  }
  size_t compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".sqlite") continue;
    const CliResult r =
        RunGpuroof({"compare", entry.path().string(), entry.path().string(), "--quiet"});
    if (entry.path().filename() == "nsys2022_4_nvtx_startend.sqlite") {
      // NVTX only: the export has no CUPTI activity table at all, so there is nothing to gate.
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_NE(r.err.find("empty profile: no kernel launch"), std::string::npos) << r.err;
      continue;
    }
    EXPECT_EQ(r.exit_code, 0) << entry.path() << "\n" << r.err << r.out;
    EXPECT_NE(r.out.find("result: PASS"), std::string::npos) << r.out;
    ++compared;
  }
  EXPECT_GT(compared, 0u);
}

}  // namespace
}  // namespace gpuroof::testing
