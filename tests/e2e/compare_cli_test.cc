// End-to-end tests of `gpuroof compare` on builder-made profiles: the statistical gate (single-
// and multi-run), the simple per-epoch mode, calibration, outputs, and bad input that must end in
// one clear line with exit 2. Expected verdicts follow from the numbers written into each
// profile, not from the program's own output.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

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
  int64_t forward_ns = 0;     // > 0: a CPU range "forward" of this (noisy) length, and "log" (5 us)
  std::string block = "128";  // gemm's block; "small" is launched with block 64 (or this + 1)
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
  kernel start=100us end=100us+{}+((i*7919+{})%61-30)*{} corr=1+2*i name=gemm grid=256,2 block={}
  api start=30us end=40us corr=2+2*i
  kernel start=500us end=700us corr=2+2*i name=small grid=64 block={}{}
}}
)desc",
                  spec.gpu, spec.iterations, spec.gemm_ns, spec.seed, spec.noise_ns, spec.block,
                  spec.block == "128" ? "64" : "65", ranges);
  testsupport::BuildFromDescription(description, name, file);
  return file;
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// gemm's label as the text table prints it, also where a wide delta column (the GPU idle row's)
// leaves the metric column too little room for the whole launch shape (the label is then cut
// with "…" to fit 160 columns, docs/formats.md "Tables").
const char kGemm[] = "kernel gemm <<<(256,2,1),";

// The line that holds `label`, with the lines it wraps onto (indented by two spaces) joined back.
std::string RowOf(const std::string& out, const std::string& label) {
  const size_t at = out.find(label);
  if (at == std::string::npos) return "";
  size_t end = out.find('\n', at);
  while (end != std::string::npos && out.compare(end, 3, "\n  ") == 0)
    end = out.find('\n', end + 1);
  std::string row = out.substr(at, end == std::string::npos ? std::string::npos : end - at);
  for (size_t wrap = row.find("\n  "); wrap != std::string::npos; wrap = row.find("\n  "))
    row.replace(wrap, 3, " ");
  return row;
}

TEST(CompareCli, ProfileAgainstItselfHasEveryRatioExactlyOne) {
  TempDir dir;
  const auto p = WriteProfile(dir, "p", {.noise_ns = 100});
  const CliResult r =
      RunGpuroof({"compare", "--baseline", p.string(), "--current", p.string(), "--iteration-range",
                  "step", "--json", (dir / "g.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // Passes, and says the pass compares a run with itself.
  EXPECT_NE(r.out.find("result: PASS WITH WARNINGS: the same profile on both sides: 1 of 1"),
            std::string::npos)
      << r.out;
  const std::string json = ReadFile(dir / "g.json");
  EXPECT_NE(json.find("\"schema\": \"gpuroof.compare/1\""), std::string::npos);
  EXPECT_NE(json.find("\"the same profile on both sides: 1 of 1 current profile(s) are baseline "
                      "ones: "),
            std::string::npos)
      << json;
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

// A copy of the baseline given as the current profile is found by its bytes (compared because
// its size matches); another run of the same size is not the same profile.
TEST(CompareCli, ACopyOfTheBaselineIsSaidToBeTheSameProfile) {
  TempDir dir;
  const auto base = WriteProfile(dir, "base", {.noise_ns = 100});
  const auto copy = dir / "copy.sqlite";
  std::filesystem::copy_file(base, copy);
  const auto other = WriteProfile(dir, "other", {.noise_ns = 100, .seed = 7});
  const CliResult same =
      RunGpuroof({"compare", base.string(), copy.string(), "--iteration-range", "step"});
  ASSERT_EQ(same.exit_code, 0) << same.err << same.out;
  EXPECT_NE(RowOf(same.out, "result: ")
                .find("the same profile on both sides: 1 of 1 current profile(s) are baseline "
                      "ones: " +
                      copy.string() + " (same bytes as " + base.string() + ")"),
            std::string::npos)
      << same.out;
  ASSERT_EQ(std::filesystem::file_size(other), std::filesystem::file_size(base));
  const CliResult distinct =
      RunGpuroof({"compare", base.string(), other.string(), "--iteration-range", "step"});
  ASSERT_EQ(distinct.exit_code, 0) << distinct.err << distinct.out;
  EXPECT_EQ(distinct.out.find("the same profile on both sides"), std::string::npos) << distinct.out;
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
  // The delta heading gives its level, as the text's does (alpha 0.01: a 99 % CI).
  EXPECT_NE(md.find("Δ (99% CI)"), std::string::npos) << md;
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
  EXPECT_EQ(
      unknown.err,
      "gpuroof: error: --gate-range: range 'backward' has no instance on the iteration's thread "
      "within the steady "
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
  EXPECT_NE(r.out.find("history rows: [low, high] is the band of ratios the history predicts"),
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

// --- Review of the gate (kernel keys across formats, history, directories, modes) -------------

// 60 kernel-only steps: gemm (demangled "void gemm(float*)", grid 256,2 block 128) of gemm_ns +-
// 30 x 100 ns and small (200 us), as nsys exports them: a short and a demangled name.
std::filesystem::path WriteNsysKernels(const TempDir& dir, const std::string& name, int64_t gemm_ns,
                                       int seed, const std::string& gpu = "NVIDIA TestGPU") {
  const std::filesystem::path file = dir / (name + ".sqlite");
  testsupport::BuildFromDescription(fmt::format(R"desc(
gpu 0 "{}"
repeat 60 step=1ms {{
  kernel start=100us end=100us+{}+((i*7919+{})%61-30)*100 name=gemm demangled="void gemm(float*)" grid=256,2 block=128
  kernel start=500us end=700us name=small demangled="void small(int)" grid=64 block=64
}}
)desc",
                                                gpu, gemm_ns, seed),
                                    name, file);
  return file;
}

// The same work as a Kineto (PyTorch profiler) trace: kernels named by their demangled
// signature only, times in microseconds.
std::filesystem::path WriteKinetoKernels(const TempDir& dir, const std::string& name,
                                         int64_t gemm_ns, int seed,
                                         const std::string& gemm = "void gemm(float*)") {
  std::string events;
  auto kernel = [&](const std::string& kernel_name, double ts_us, double dur_us,
                    const std::string& grid, const std::string& block) {
    events += fmt::format(
        R"({}{{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, "ts": {:.3f}, )"
        R"("dur": {:.3f}, "args": {{"device": 0, "stream": 7, "grid": {}, "block": {}}}}})",
        events.empty() ? "" : ",\n", kernel_name, ts_us, dur_us, grid, block);
  };
  for (int i = 0; i < 60; ++i) {
    const double step_us = 1000.0 * i;
    const int64_t gemm_dur = gemm_ns + ((i * 7919 + seed) % 61 - 30) * 100;
    kernel(gemm, step_us + 100, static_cast<double>(gemm_dur) / 1000.0, "[256, 2, 1]",
           "[128, 1, 1]");
    kernel("void small(int)", step_us + 500, 200, "[64, 1, 1]", "[64, 1, 1]");
  }
  const std::filesystem::path file = dir / (name + ".pt.trace.json");
  WriteFile(file, fmt::format(R"({{"deviceProperties": [{{"id": 0, "name": "NVIDIA TestGPU"}}],
"traceEvents": [
{}
]}})",
                              events));
  return file;
}

// nsys names a kernel "gemm" (short) and "void gemm(float*)" (demangled); Kineto only the
// latter. Keyed by the demangled name (§3.2 step 5), the kernels match across the formats and
// a 10 % slower gemm fails the gate; before, every kernel was REMOVED/NEW and it passed.
TEST(CompareCli, NsysAndKinetoKernelsShareKeys) {
  TempDir dir;
  const auto base = WriteNsysKernels(dir, "base", 300000, 0);
  const auto cur = WriteKinetoKernels(dir, "cur", 330000, 5);
  const CliResult r = RunGpuroof({"compare", base.string(), cur.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string gemm = RowOf(r.out, "kernel gemm <<<(256,2,1),(128,1,1)>>>");
  EXPECT_NE(gemm.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(gemm.find("+10.0%"), std::string::npos) << gemm;
  EXPECT_EQ(r.out.find("NEW"), std::string::npos) << r.out;
  // --kernel-key name: the short name, derived the same way for both formats.
  const CliResult named =
      RunGpuroof({"compare", base.string(), cur.string(), "--kernel-key", "name"});
  EXPECT_EQ(named.exit_code, 1) << named.err << named.out;
  EXPECT_NE(RowOf(named.out, "kernel gemm ").find("REGRESSED"), std::string::npos) << named.out;

  // History seeded from nsys, tested with a Kineto run: the kernel rows are there.
  const std::string history = (dir / "h.jsonl").string();
  for (int k = 0; k < 5; ++k) {
    const auto seed = WriteNsysKernels(dir, fmt::format("h{}", k), 300000, 3 * k + 1);
    ASSERT_EQ(
        RunGpuroof({"compare", "--current", seed.string(), "--history-append", history}).exit_code,
        0);
  }
  const CliResult h = RunGpuroof({"compare", "--history", history, "--current", cur.string()});
  EXPECT_EQ(h.exit_code, 1) << h.err << h.out;
  EXPECT_NE(RowOf(h.out, "kernel gemm <<<").find("REGRESSED"), std::string::npos) << h.out;
}

// Display columns of the widest line of `text` (UTF-8 code points).
size_t WidestLine(const std::string& text) {
  size_t widest = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    widest = std::max<size_t>(widest, std::count_if(line.begin(), line.end(), [](char c) {
                                return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
                              }));
  }
  return widest;
}

// Issue 15: compare's text fits 160 columns (docs/formats.md, "Tables"). A kernel whose base name
// alone is over the width: its row keeps its launch shape and figures, its name is cut with "…"
// and counted under the table; a warning that names it whole wraps. Before, the row was printed
// whole (the metric column never shrank) and the warning on one line.
TEST(CompareCli, TextFitsTheWidthWithLongKernelNames) {
  TempDir dir;
  const std::string base_name = "very_long_kernel_" + std::string(100, 'x');
  const std::string gemm =
      "void ns::detail::" + base_name + "<float, 4>(float*, int, at::detail::Array<char*, 2>)";
  const auto base = WriteKinetoKernels(dir, "base", 300000, 0, gemm);
  const auto cur = WriteKinetoKernels(dir, "cur", 330000, 5, gemm);
  const CliResult r = RunGpuroof({"compare", base.string(), cur.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_LE(WidestLine(r.out), 160u) << r.out;
  const std::string row = RowOf(r.out, "kernel very_long_kernel_");
  EXPECT_NE(row.find("… <<<(256,2,1),(128,1,1)>>>  "), std::string::npos) << r.out;
  EXPECT_NE(row.find("+10.0%"), std::string::npos) << row;
  EXPECT_NE(row.find("REGRESSED"), std::string::npos) << row;
  EXPECT_NE(r.out.find("\n(1 name shortened to fit 160 columns; --json or --markdown has it "
                       "whole)\n"),
            std::string::npos)
      << r.out;
  // Without noise against itself: the "identical" warning names it whole, wrapped too.
  const std::filesystem::path flat = dir / "flat.sqlite";
  testsupport::BuildFromDescription(
      fmt::format("gpu 0 \"NVIDIA TestGPU\"\nrepeat 60 step=1ms {{\n  kernel start=100us "
                  "end=400us name=k demangled=\"{}\" grid=256,2 block=128\n}}\n",
                  gemm),
      "flat", flat);
  const CliResult same = RunGpuroof({"compare", flat.string(), flat.string()});
  EXPECT_EQ(same.exit_code, 0) << same.err << same.out;
  EXPECT_NE(same.out.find("warning: identical:"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find(base_name + "<float,"), std::string::npos) << same.out;
  EXPECT_NE(same.out.find("\n  "), std::string::npos) << same.out;
  EXPECT_LE(WidestLine(same.out), 160u) << same.out;
  // --calibrate's table shows kernels as the gate's table does (before: the whole signature,
  // 288 columns on the hta_compare fixtures).
  const CliResult calibration = RunGpuroof({"compare", "--calibrate", base.string(), cur.string()});
  EXPECT_EQ(calibration.exit_code, 0) << calibration.err << calibration.out;
  EXPECT_LE(WidestLine(calibration.out), 160u) << calibration.out;
  EXPECT_NE(RowOf(calibration.out, "kernel very_long_kernel_").find("… <<<(256,2,1),(128,1,1)>>>"),
            std::string::npos)
      << calibration.out;
}

// Two sides without a kernel key in common compare nothing: exit 2, not a PASS on nothing.
TEST(CompareCli, NoSharedKernelKeyIsNotComparable) {
  TempDir dir;
  const auto base = WriteNsysKernels(dir, "base", 300000, 0);
  const auto cur = WriteKinetoKernels(dir, "cur", 300000, 5, "void other(float*)");
  const CliResult same = RunGpuroof({"compare", base.string(), cur.string()});
  EXPECT_EQ(same.exit_code, 0) << same.err << same.out;  // small still matches
  // One kernel of 2 left unmatched on each side holds 60 % of the kernel time: said.
  EXPECT_NE(RowOf(same.out, "result: ")
                .find("unmatched kernels, not gated: 1 REMOVED (60.0% of the baseline kernel "
                      "time), 1 NEW (60.0% of the current kernel time)"),
            std::string::npos)
      << same.out;

  const std::filesystem::path file = dir / "only_other.pt.trace.json";
  WriteFile(file, R"json({"deviceProperties": [{"id": 0, "name": "NVIDIA TestGPU"}],
"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "void other(float*)", "pid": 0, "tid": 7, "ts": 100, "dur": 300, "args": {"device": 0, "stream": 7, "grid": [1, 1, 1], "block": [1, 1, 1]}}
]})json");
  const CliResult none = RunGpuroof({"compare", base.string(), file.string()});
  EXPECT_EQ(none.exit_code, 2) << none.err << none.out;
  EXPECT_EQ(none.out, "");
  EXPECT_NE(none.err.find("not comparable: no kernel key in common"), std::string::npos)
      << none.err;
}

// Every kernel relaunched with another block: no kernel key in common, but the iteration and
// GPU busy times are gated, so the gate rests on them and the verdict names the unmatched kernels.
TEST(CompareCli, KernelsRelaunchedWithOtherShapesLeaveTheIterationGate) {
  TempDir dir;
  const auto base = WriteProfile(dir, "base", {.iterations = 40});
  const auto cur = WriteProfile(dir, "cur", {.iterations = 40, .block = "256"});
  const CliResult r =
      RunGpuroof({"compare", base.string(), cur.string(), "--iteration-range", "step"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(RowOf(r.out, "iteration time [step]").find("~"), std::string::npos) << r.out;
  EXPECT_NE(RowOf(r.out, "result: ").find("unmatched kernels, not gated: 2 REMOVED"),
            std::string::npos)
      << r.out;
  // Without iterations the kernels are all the gate has: not comparable.
  const CliResult launches = RunGpuroof({"compare", base.string(), cur.string()});
  EXPECT_EQ(launches.exit_code, 2) << launches.out;
  EXPECT_NE(launches.err.find("no kernel key in common"), std::string::npos) << launches.err;
}

// History mode checks every current profile, not only the first, as the two-sided gate does.
TEST(CompareCli, HistoryRefusesCurrentProfilesOfDifferentGpus) {
  TempDir dir;
  const auto a = WriteProfile(dir, "a", {.iterations = 20});
  const auto other = WriteProfile(dir, "other", {.gpu = "NVIDIA OtherGPU", .iterations = 20});
  const std::string history = (dir / "h.jsonl").string();
  ASSERT_EQ(RunGpuroof({"compare", "--current", a.string(), "--iteration-range", "step",
                        "--history-append", history})
                .exit_code,
            0);
  const CliResult r = RunGpuroof({"compare", "--history", history, "--current", a.string(),
                                  other.string(), "--iteration-range", "step"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("not comparable: GPU model 'NVIDIA OtherGPU' differs from 'NVIDIA "
                       "TestGPU'"),
            std::string::npos)
      << r.err;
}

// The job-level compare (directories): other GPUs, or a trace that cannot be read, are exit 2.
TEST(CompareCli, DirectoriesOfOtherGpusOrWithAnUnreadableTraceAreRefused) {
  TempDir dir;
  std::filesystem::create_directories(dir / "h200");
  std::filesystem::create_directories(dir / "a100");
  std::filesystem::create_directories(dir / "bad");
  for (int k = 0; k < 2; ++k) {
    WriteProfile(dir, fmt::format("h200/r{}", k), {.gpu = "NVIDIA H200", .iterations = 20});
    WriteProfile(dir, fmt::format("a100/r{}", k), {.gpu = "NVIDIA A100", .iterations = 20});
    WriteProfile(dir, fmt::format("bad/r{}", k), {.gpu = "NVIDIA H200", .iterations = 20});
  }
  const CliResult gpus = RunGpuroof({"compare", "--baseline", (dir / "h200").string(), "--current",
                                     (dir / "a100").string(), "--threshold", "2"});
  EXPECT_EQ(gpus.exit_code, 2) << gpus.err << gpus.out;
  EXPECT_NE(gpus.err.find("not comparable: GPU model(s) 'NVIDIA A100' of the current run differ "
                          "from 'NVIDIA H200'"),
            std::string::npos)
      << gpus.err;

  // A trace cut short (a copy that did not finish): an SQLite database, malformed.
  const std::string whole = ReadFile(dir / "bad" / "r1.sqlite");
  WriteFile(dir / "bad" / "r2.sqlite", whole.substr(0, whole.size() / 2));
  const CliResult bad = RunGpuroof(
      {"compare", "--baseline", (dir / "h200").string(), "--current", (dir / "bad").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err << bad.out;
  EXPECT_NE(bad.err.find("gpuroof: error: " + (dir / "bad" / "r2.sqlite").string()),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.out.find("verdict: PASS"), std::string::npos) << bad.out;
}

// --gate-range in history mode: a name neither side has is exit 2 (as two-sided); a range the
// history lacks is a NEW row, counted, not silently absent.
TEST(CompareCli, HistoryGateRangeIsCheckedAndNewRangesAreShown) {
  TempDir dir;
  const auto plain = WriteProfile(dir, "plain", {.noise_ns = 100, .iterations = 40});
  const auto ranged =
      WriteProfile(dir, "ranged", {.noise_ns = 100, .iterations = 40, .forward_ns = 300000});
  const std::string history = (dir / "h.jsonl").string();
  ASSERT_EQ(RunGpuroof({"compare", "--current", plain.string(), "--iteration-range", "step",
                        "--history-append", history})
                .exit_code,
            0);
  const CliResult missing =
      RunGpuroof({"compare", "--history", history, "--current", plain.string(), "--iteration-range",
                  "step", "--gate-range", "nosuchrange"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err << missing.out;
  EXPECT_NE(missing.err.find("range 'nosuchrange' has no instance"), std::string::npos)
      << missing.err;
  const CliResult added = RunGpuroof({"compare", "--history", history, "--current", ranged.string(),
                                      "--iteration-range", "step", "--gate-range", "forward"});
  EXPECT_EQ(added.exit_code, 0) << added.err << added.out;
  EXPECT_NE(RowOf(added.out, "range [forward]").find("NEW"), std::string::npos) << added.out;
  EXPECT_NE(RowOf(added.out, "summary: ").find("NEW"), std::string::npos) << added.out;
}

// History lines record their iteration range: lines of another range are not compared.
TEST(CompareCli, HistoryOfAnotherIterationRangeIsRefused) {
  TempDir dir;
  const auto p = WriteProfile(dir, "p", {.noise_ns = 100, .iterations = 40, .forward_ns = 300000});
  const std::string history = (dir / "h.jsonl").string();
  ASSERT_EQ(RunGpuroof({"compare", "--current", p.string(), "--iteration-range", "step",
                        "--history-append", history})
                .exit_code,
            0);
  EXPECT_NE(ReadFile(history).find("\"iteration_range\": \"step\""), std::string::npos);
  const CliResult r = RunGpuroof(
      {"compare", "--history", history, "--current", p.string(), "--iteration-range", "forward"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("all 1 history entries were recorded with --iteration-range step, the "
                       "current run with forward"),
            std::string::npos)
      << r.err;
}

// Simple mode: a current trace without kernels is exit 2 naming it (as a baseline is), not a
// 0.000x PASS.
TEST(CompareCli, SimpleModeRefusesACurrentTraceWithoutKernels) {
  TempDir dir;
  const auto base = WriteNsysKernels(dir, "base", 300000, 0);
  const std::filesystem::path empty = dir / "nokern.sqlite";
  testsupport::BuildFromDescription(R"(
gpu 0 "NVIDIA TestGPU"
memcpy start=1000 end=5000 kind=HtoD bytes=100 stream=7 corr=1
)",
                                    "nokern", empty);
  const CliResult r = RunGpuroof({"compare", base.string(), empty.string(), "--epochs", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(empty.string() + ": no kernel time"), std::string::npos) << r.err;
}

// Output options a mode does not write are refused, not ignored.
TEST(CompareCli, ModesRefuseOutputsTheyDoNotWrite) {
  TempDir dir;
  const auto a = WriteNsysKernels(dir, "a", 300000, 0);
  const auto b = WriteNsysKernels(dir, "b", 300000, 5);
  const CliResult simple = RunGpuroof(
      {"compare", a.string(), b.string(), "--epochs", "2", "--json", (dir / "s.json").string()});
  EXPECT_EQ(simple.exit_code, 2) << simple.err << simple.out;
  EXPECT_NE(simple.err.find("simple mode (--epochs) does not support --json"), std::string::npos)
      << simple.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "s.json"));
  const CliResult calibrate =
      RunGpuroof({"compare", "--calibrate", a.string(), b.string(), "--markdown",
                  (dir / "c.md").string(), "--history-append", (dir / "h.jsonl").string()});
  EXPECT_EQ(calibrate.exit_code, 2) << calibrate.err << calibrate.out;
  EXPECT_NE(calibrate.err.find("--calibrate does not support --markdown, --history-append"),
            std::string::npos)
      << calibrate.err;
}

// Kernel shares are of compute kernel time: a 500 us collective per step does not push a compute
// kernel that doubled (6 us of 206 us compute, 2.9 %; 0.85 % with the collective) below the 1 %
// gating share. Its impact, 6 us of the 900 us step, is 0.67 % >= 0.5 %: gated, REGRESSED.
TEST(CompareCli, KernelSharesLeaveCollectivesOut) {
  TempDir dir;
  auto write = [&](const std::string& name, int64_t x_ns, int seed) {
    const std::filesystem::path file = dir / (name + ".sqlite");
    testsupport::BuildFromDescription(fmt::format(R"desc(
gpu 0 "NVIDIA TestGPU"
repeat 40 step=1ms {{
  nvtx start=0 end=900us text="step"
  api start=10us end=20us corr=1+3*i
  kernel start=100us end=600us+((i*7919+{})%61-30)*50 corr=1+3*i name=ncclDevKernel_AllReduce_Sum_f32_RING_LL grid=1 block=1
  api start=30us end=40us corr=2+3*i
  kernel start=610us end=810us corr=2+3*i name=Y grid=1 block=1
  api start=50us end=60us corr=3+3*i
  kernel start=820us end=820us+{}+((i*7919+{})%61-30)*10 corr=3+3*i name=X grid=1 block=1
}}
)desc",
                                                  seed, x_ns, seed),
                                      name, file);
    return file;
  };
  const auto base = write("base", 6000, 0);
  const auto cur = write("cur", 12000, 7);
  const CliResult r = RunGpuroof({"compare", base.string(), cur.string(), "--iteration-range",
                                  "step", "--json", (dir / "g.json").string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  const std::string x = RowOf(r.out, "kernel X ");
  EXPECT_NE(x.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_EQ(x.find("(report)"), std::string::npos) << x;
}

// `steps` steps of 1 ms whose "step" range is 900 us +- 3 us (pseudo-random by `seed`), each
// launching kernel "big" (`big_ns` +- 1 %) and kernel "small" (`small_ns` +- 1 %).
std::filesystem::path WriteTwoKernelSteps(const TempDir& dir, const std::string& name, int steps,
                                          int64_t big_ns, int64_t small_ns, int seed) {
  const std::filesystem::path file = dir / (name + ".sqlite");
  const std::string description = fmt::format(
      R"desc(
gpu 0 "NVIDIA TestGPU"
repeat {} step=1ms {{
  nvtx start=0 end=900us+((i*7919+{})%61-30)*100 text="step"
  api start=10us end=20us corr=1+2*i
  kernel start=100us end=100us+{}+((i*7919+{})%61-30)*{} corr=1+2*i name=big grid=1 block=1
  api start=30us end=40us corr=2+2*i
  kernel start=200us end=200us+{}+((i*104729+{})%61-30)*{} corr=2+2*i name=small grid=1 block=1
}}
)desc",
      steps, seed, big_ns, seed, big_ns / 3000, small_ns, seed,
      std::max<int64_t>(1, small_ns / 3000));
  testsupport::BuildFromDescription(description, name, file);
  return file;
}

// F3: a stationary 10-step capture keeps 9 steps (MSER-5's reference cap dropped 5 and said NO
// STEADY STATE, leaving every row LOW-N), so a clean +10 % fails.
TEST(CompareCli, TenStepCaptureKeepsItsStepsAndCatchesTenPercent) {
  TempDir dir;
  const auto base = WriteTwoKernelSteps(dir, "base", 10, 300000, 200000, 1);
  const auto cur = WriteTwoKernelSteps(dir, "cur", 10, 330000, 220000, 2);
  const CliResult r = RunGpuroof({"compare", "--baseline", base.string(), "--current", cur.string(),
                                  "--iteration-range", "step"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("steady iters 9/10 (warm-up 1 dropped)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("NO STEADY STATE"), std::string::npos) << r.out;
  EXPECT_NE(RowOf(r.out, "GPU compute busy / iter").find("REGRESSED"), std::string::npos) << r.out;
}

// `steps` steps every 2 ms: a CPU range "step" of 1 ms + ((i*7919+seed)%61-30)*500 ns (+-1.5 %),
// 1.6 ms for the first and 1.2 ms for the steps whose 0-based index is in `slow`, launching gemm
// from 100 us into the step to 100 us before its end.
std::filesystem::path WriteStepsWithWarmup(const TempDir& dir, const std::string& name, int steps,
                                           const std::vector<int>& slow, int seed) {
  std::string description = "gpu 0 \"NVIDIA TestGPU\"\n";
  for (int i = 0; i < steps; ++i) {
    const int64_t t = 2000000LL * i;
    int64_t wall = 1000000 + ((i * 7919 + seed) % 61 - 30) * 500;
    if (i == 0) wall = 1600000;
    if (std::find(slow.begin(), slow.end(), i) != slow.end()) wall = 1200000;
    description += fmt::format(
        "nvtx start={} end={} text=\"step\"\napi start={} end={} corr={}\n"
        "kernel start={} end={} corr={} name=gemm grid=256 block=128\n",
        t, t + wall, t + 10000, t + 20000, i + 1, t + 100000, t + wall - 100000, i + 1);
  }
  const std::filesystem::path file = dir / (name + ".sqlite");
  testsupport::BuildFromDescription(description, name, file);
  return file;
}

// A3: a 10-step capture whose steps 2-4 are 20 % slow (warm-up) against one without. MSER-5
// cannot look for a warm-up in 10 steps, so they were kept without a word and made the
// difference. Now they are dropped and said, with the figures, and the pass says so.
TEST(CompareCli, ShortCaptureWarmupIsDroppedAndSaid) {
  TempDir dir;
  const auto base = WriteStepsWithWarmup(dir, "base", 10, {}, 1);
  const auto cur = WriteStepsWithWarmup(dir, "cur", 10, {1, 2, 3}, 2);
  const CliResult r =
      RunGpuroof({"compare", base.string(), cur.string(), "--iteration-range", "step"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("WARM-UP: MSER-5 cannot look for a warm-up in 10 iterations (it needs "
                       "20); iterations 2-4 took +"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("dropped as warm-up with the first (4 of 10 iterations); --warmup N sets "
                       "the cut"),
            std::string::npos)
      << r.out;
  const std::string result = RowOf(r.out, "result: ");
  EXPECT_NE(result.find("PASS WITH WARNINGS"), std::string::npos) << r.out;
  EXPECT_NE(result.find("WARM-UP: " + cur.string()), std::string::npos) << result;
  EXPECT_EQ(result.find("WARM-UP: " + base.string()), std::string::npos) << result;
}

// Stationary 10-step captures (A/A pairs, +-1.5 % noise, several seeds) get no WARM-UP.
TEST(CompareCli, StationaryTenStepCapturesGetNoWarmupWarning) {
  TempDir dir;
  for (int seed = 1; seed <= 5; ++seed) {
    const auto base = WriteStepsWithWarmup(dir, fmt::format("b{}", seed), 10, {}, seed);
    const auto cur = WriteStepsWithWarmup(dir, fmt::format("c{}", seed), 10, {}, seed + 17);
    const CliResult r =
        RunGpuroof({"compare", base.string(), cur.string(), "--iteration-range", "step"});
    EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_EQ(r.out.find("WARM-UP"), std::string::npos) << seed << r.out;
  }
}

// A9: a GPU lagging its CPU by more than a step: each 1 ms step copies at once (50..60 us) and runs
// its kernel 1.5..1.7 ms after its start. Every step's window (first op to the next step's) holds
// 200 us of compute, 800 us idle. The last step's window ran to its own kernel's end, 1.65 ms less
// 200 us, capped at its whole wall time, 1 ms: two steady steps showed a median of 900 us.
TEST(CompareCli, TheLastStepsIdleIsMeasuredLikeTheOthers) {
  TempDir dir;
  const std::filesystem::path lag = dir / "lag.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "NVIDIA TestGPU"
repeat 3 step=1ms {
  nvtx start=0 end=1ms text="step"
  api start=10us end=20us corr=1+2*i
  memcpy start=50us end=60us kind=HtoD bytes=64 stream=8 corr=1+2*i
  api start=30us end=40us corr=2+2*i
  kernel start=1500us end=1700us corr=2+2*i stream=7 name=a grid=1 block=1
}
)desc",
                                    "lag", lag);
  const CliResult r = RunGpuroof(
      {"compare", lag.string(), lag.string(), "--iteration-range", "step", "--warmup", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string idle = RowOf(r.out, "GPU idle / iter");
  EXPECT_NE(idle.find("800.000 us ±0.0%  800.000 us ±0.0%"), std::string::npos) << r.out;
}

// F10: without --iteration-range, a kernel under 1 % of the baseline kernel time that becomes
// 10x slower (~8 % of the kernel time) fails: it is gated by its current share, and the compute
// kernel time row (+8 %) is gated too. It was a plain PASS.
TEST(CompareCli, KernelOnlyModeCatchesACheapKernelBecomingExpensive) {
  TempDir dir;
  const auto base = WriteTwoKernelSteps(dir, "base", 40, 1000000, 9000, 1);
  const auto cur = WriteTwoKernelSteps(dir, "cur", 40, 1000000, 90000, 2);
  const CliResult r =
      RunGpuroof({"compare", "--baseline", base.string(), "--current", cur.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(RowOf(r.out, "compute kernel time (baseline mix)").find("REGRESSED"), std::string::npos)
      << r.out;
  const std::string small = RowOf(r.out, "kernel small");
  EXPECT_NE(small.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_EQ(small.find("(report)"), std::string::npos) << small;
}

// A kernel-only capture (no annotation): 40 rounds of "big" (1 ms) then "small" launched 100
// times with grids 1..100 (100 kernel keys, 0.44 % of the kernel time each) of `small_ns`, with
// +-600 ns of launch noise; `two_gpus` adds a kernel on a second device.
std::filesystem::path WriteManyKernels(const TempDir& dir, const std::string& name,
                                       int64_t small_ns, int seed, bool two_gpus = false) {
  const std::filesystem::path file = dir / (name + ".sqlite");
  std::string description = "gpu 0 \"NVIDIA TestGPU\"\n";
  if (two_gpus) description += "gpu 1 \"NVIDIA TestGPU\"\n";
  description += fmt::format(R"desc(
repeat 40 step=2200us {{
  kernel start=0 end=1ms+((i*7919+{})%61-30)*100 name=big grid=1 block=1
  repeat 100 step=10us {{
    kernel start=1050us end=1050us+{}+((i*7919+j*31+{})%61-30)*20 name=small grid=1+j block=1
  }}
}}
)desc",
                             seed, small_ns, seed);
  if (two_gpus) description += "kernel start=0 end=1ms dev=1 name=other grid=1 block=1\n";
  testsupport::BuildFromDescription(description, name, file);
  return file;
}

// A12: without --iteration-range, +25 % in 100 small kernels (+11 % of the compute kernel time,
// no kernel gated alone) showed 100 REGRESSED report-only rows and ended in PASS against a
// history. The compute kernel time per launch at this run's mix is now gated, computed from the
// lines' kernel medians (no line stores a total, so rules-3 lines get it too), and more cheap
// launches no longer hide slower kernels. F13: lines record the device count; a run on 2 GPUs is
// refused by the append and by the compare. F7: the header says how many lines were used.
TEST(CompareCli, HistoryGatesTheKernelOnlyComputeKernelTime) {
  TempDir dir;
  const std::string history = (dir / "h.jsonl").string();
  for (int k = 0; k < 6; ++k) {
    const auto run = WriteManyKernels(dir, fmt::format("m{}", k), 8000, k);
    const CliResult seed =
        RunGpuroof({"compare", "--current", run.string(), "--history-append", history});
    ASSERT_EQ(seed.exit_code, 0) << seed.err;
  }
  const std::string lines = ReadFile(history);
  EXPECT_EQ(lines.find("kernel-total"), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"device_count\": 1, "), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"rules\": 4, "), std::string::npos) << lines;
  const auto slow = WriteManyKernels(dir, "pr", 10000, 40);
  const CliResult r = RunGpuroof({"compare", "--history", history, "--current", slow.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_NE(r.out.find("baseline: history " + history + " (6 runs used, none left out)"),
            std::string::npos)
      << r.out;
  const std::string total = RowOf(r.out, "compute kernel time / launch");
  EXPECT_NE(total.find("REGRESSED"), std::string::npos) << r.out;
  EXPECT_NE(total.find("+11.1%"), std::string::npos) << total;
  EXPECT_NE(r.out.find("result: REGRESSION (1 gated metric)"), std::string::npos) << r.out;
  const auto same = WriteManyKernels(dir, "same", 8000, 41);
  const CliResult ok = RunGpuroof({"compare", "--history", history, "--current", same.string()});
  EXPECT_EQ(ok.exit_code, 0) << ok.err << ok.out;
  EXPECT_NE(RowOf(ok.out, "compute kernel time / launch").find("~"), std::string::npos) << ok.out;
  // The small kernels +10 % and launched twice as often: the per-launch mean of the run's own mix
  // fell 23 % (IMPROVED, a PASS); at this run's mix it is +6.1 %.
  const std::filesystem::path mixed = dir / "mixed.sqlite";
  testsupport::BuildFromDescription(R"desc(gpu 0 "NVIDIA TestGPU"
repeat 40 step=3300us {
  kernel start=0 end=1ms+((i*7919+40)%61-30)*100 name=big grid=1 block=1
  repeat 200 step=10us {
    kernel start=1150us end=1150us+8800+((i*7919+j*31+40)%61-30)*20 name=small grid=1+j%100 block=1
  }
}
)desc",
                                    "mixed", mixed);
  const CliResult masked =
      RunGpuroof({"compare", "--history", history, "--current", mixed.string()});
  EXPECT_EQ(masked.exit_code, 1) << masked.err << masked.out;
  const std::string mixed_total =
      RowOf(masked.out, "compute kernel time / launch (this run's mix)");
  EXPECT_NE(mixed_total.find("+6.1%"), std::string::npos) << masked.out;
  EXPECT_NE(mixed_total.find("REGRESSED"), std::string::npos) << masked.out;
  // Lines of rules 3 (no device count) hold the kernel medians: the row is gated against them.
  std::string old_lines = lines;
  for (size_t at; (at = old_lines.find("\"device_count\": 1, ")) != std::string::npos;)
    old_lines.erase(at, std::string("\"device_count\": 1, ").size());
  for (size_t at; (at = old_lines.find("\"rules\": 4")) != std::string::npos;)
    old_lines.replace(at, std::string("\"rules\": 4").size(), "\"rules\": 3");
  const std::string old_history = (dir / "old.jsonl").string();
  WriteFile(old_history, old_lines);
  const CliResult old =
      RunGpuroof({"compare", "--history", old_history, "--current", slow.string()});
  EXPECT_EQ(old.exit_code, 1) << old.err << old.out;
  EXPECT_NE(RowOf(old.out, "compute kernel time / launch").find("REGRESSED"), std::string::npos)
      << old.out;
  EXPECT_EQ(old.err.find("compute kernel time not gated"), std::string::npos) << old.err;
  const auto two = WriteManyKernels(dir, "two", 8000, 7, true);
  const CliResult append =
      RunGpuroof({"compare", "--current", two.string(), "--history-append", history});
  EXPECT_EQ(append.exit_code, 2);
  EXPECT_NE(append.err.find("measured with the number of active GPUs '1', this run with '2'"),
            std::string::npos)
      << append.err;
  EXPECT_EQ(ReadFile(history), lines);
  const CliResult refused =
      RunGpuroof({"compare", "--history", history, "--current", two.string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(history +
                             ":1: not comparable: 6 of 6 history entries were recorded "
                             "on 1 active GPU(s), " +
                             two.string() + " on 2"),
            std::string::npos)
      << refused.err;
}

}  // namespace
}  // namespace gpuroof::testing
