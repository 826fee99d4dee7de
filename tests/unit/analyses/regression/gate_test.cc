#include "gpuroof/analyses/regression/gate.h"

#include <cmath>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "gpuroof/analyses/regression/bootstrap.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/reports/compare_cells.h"

namespace gpuroof {
namespace {

ProfileSummary Profile(const std::string& path, std::vector<double> iteration,
                       const std::string& model = "GPU X") {
  ProfileSummary p;
  p.path = path;
  p.device_model = model;
  p.device_count = 1;
  p.has_iterations = true;
  p.iterations = iteration.size();
  p.steady_iterations = iteration.size();
  SampleSet& set = p.metrics["iteration"];
  set.level = MetricLevel::kIteration;
  set.name = "step";
  set.values = std::move(iteration);
  return p;
}

// A profile named `path` of one "GPU X", with no iterations and no metrics yet.
ProfileSummary OneGpuProfile(const std::string& path) {
  ProfileSummary p;
  p.path = path;
  p.device_model = "GPU X";
  p.device_count = 1;
  return p;
}

void AddKernel(ProfileSummary& p, const std::string& key, std::vector<double> launches) {
  SampleSet& set = p.metrics["kernel:" + key];
  set.level = MetricLevel::kKernel;
  set.name = key;
  set.values = std::move(launches);
  for (double v : set.values)
    set.total += v;
  p.kernel_time_ns += set.total;
}

SampleSet& AddMetric(ProfileSummary& p, const std::string& id, MetricLevel level,
                     const std::string& name) {
  SampleSet& set = p.metrics[id];
  set.level = level;
  set.name = name;
  return set;
}

const MetricComparison& Find(const CompareResult& r, const std::string& id) {
  for (const MetricComparison& m : r.metrics)
    if (m.id == id) return m;
  throw std::runtime_error("no metric " + id);
}

// E4's samples as iteration times, single-run: INCONCLUSIVE, exit 0 (the gate does not fail on
// it unless asked to).
TEST(GateTest, ExampleE4IsInconclusiveInSingleRun) {
  const std::vector<ProfileSummary> base = {Profile("b", {100, 102, 98, 101, 99, 103, 100, 97})};
  const std::vector<ProfileSummary> cur = {Profile("c", {105, 104, 108, 103, 106, 107, 104, 105})};
  GateSettings settings;
  const CompareResult r = CompareProfiles(base, cur, settings);
  const MetricComparison& m = Find(r, "iteration");
  EXPECT_EQ(r.mode, CompareMode::kSingleRun);
  EXPECT_EQ(m.verdict, Verdict::kInconclusive);
  EXPECT_NEAR(*m.ratio, 1.050252494893634, 1e-12);
  EXPECT_NEAR(*m.ci_low, 104.0 / 102.0, 1e-12);
  EXPECT_NEAR(*m.ci_high, 105.0 / 97.0, 1e-12);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.verdict, "pass-with-warnings");
  // MDE = floor + half the interval width.
  EXPECT_NEAR(*m.mde, 0.03 + (105.0 / 97.0 - 104.0 / 102.0) / 2.0, 1e-12);
  settings.fail_on_inconclusive = true;
  EXPECT_EQ(CompareProfiles(base, cur, settings).exit_code, 1);
}

// E8: five runs per side, one run summary each -> pooled t, REGRESSED, exit 1.
TEST(GateTest, ExampleE8MultiRunRegresses) {
  std::vector<ProfileSummary> base;
  std::vector<ProfileSummary> cur;
  for (double v : {41.2, 41.5, 40.9, 41.3, 41.1})
    base.push_back(Profile("b", {v * 1e6}));
  for (double v : {43.0, 43.4, 42.8, 43.3, 42.9})
    cur.push_back(Profile("c", {v * 1e6}));
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& m = Find(r, "iteration");
  EXPECT_EQ(r.mode, CompareMode::kMultiRun);
  EXPECT_EQ(m.method, "pooled-t-log");
  EXPECT_NEAR(*m.ratio, 1.045628301759646, 1e-12);
  EXPECT_NEAR(*m.ci_low, 1.033005318482090, 1e-12);
  EXPECT_NEAR(*m.ci_high, 1.058405533717218, 1e-12);
  EXPECT_NEAR(*m.run_mwu_p, 0.007936507936508, 1e-12);
  EXPECT_EQ(m.verdict, Verdict::kRegressed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.verdict, "regression");
}

TEST(GateTest, SelfComparisonIsExactlyOne) {
  ProfileSummary p = Profile("p", {1000, 1010, 990, 1005, 1003, 998, 1001, 1020, 999, 1002});
  AddKernel(p, "k", {500, 505, 495, 502, 501, 499, 500, 503, 497, 500});
  const std::vector<ProfileSummary> side = {p};
  const CompareResult r = CompareProfiles(side, side, GateSettings{});
  for (const MetricComparison& m : r.metrics) {
    ASSERT_TRUE(m.ratio) << m.id;
    EXPECT_EQ(*m.ratio, 1.0) << m.id;
    EXPECT_NE(m.verdict, Verdict::kRegressed) << m.id;
  }
  EXPECT_EQ(r.exit_code, 0);
}

// A kernel with half of the GPU time made 10 % slower, 200 launches per side, is gated and
// REGRESSED; a kernel with 0.5 % of the time made 50 % slower is reported only.
TEST(GateTest, KernelGatingByShareAndImpact) {
  ProfileSummary b = OneGpuProfile("b");
  ProfileSummary c = OneGpuProfile("c");
  SplitMix64 rng(1);
  std::vector<double> big_b;
  std::vector<double> big_c;
  std::vector<double> tiny_b;
  std::vector<double> tiny_c;
  std::vector<double> rest_b;
  std::vector<double> rest_c;
  for (int i = 0; i < 200; ++i) {
    const double noise = 1.0 + 0.01 * (static_cast<double>(rng.NextIndex(2001)) / 1000.0 - 1.0);
    big_b.push_back(1000 * noise);
    big_c.push_back(1100 * noise);
    tiny_b.push_back(10 * noise);
    tiny_c.push_back(15 * noise);
    rest_b.push_back(990 * noise);
    rest_c.push_back(990 * noise);
  }
  AddKernel(b, "big", big_b);
  AddKernel(c, "big", big_c);
  AddKernel(b, "tiny", tiny_b);
  AddKernel(c, "tiny", tiny_c);
  AddKernel(b, "rest", rest_b);
  AddKernel(c, "rest", rest_c);
  const std::vector<ProfileSummary> base = {b};
  const std::vector<ProfileSummary> cur = {c};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& big = Find(r, "kernel:big");
  const MetricComparison& tiny = Find(r, "kernel:tiny");
  const MetricComparison& rest = Find(r, "kernel:rest");
  // share = 1000 / (1000 + 10 + 990) = 0.5 (noise is common to all three), impact = 0.05.
  EXPECT_NEAR(*big.share, 0.5, 1e-3);
  EXPECT_NEAR(*big.impact, 0.05, 1e-3);
  EXPECT_TRUE(big.gated);
  EXPECT_EQ(big.verdict, Verdict::kRegressed);
  EXPECT_NEAR(*big.ratio, 1.1, 1e-9);
  // The gated family is {big} (rest has impact 0): its interval is at 1 - 0.01/1.
  EXPECT_DOUBLE_EQ(big.ci_level, 0.99);
  EXPECT_FALSE(tiny.gated);  // share 0.005 < 1 %
  EXPECT_FALSE(rest.gated);  // impact 0
  // Gated regressions first: the compute kernel time (kernel-only mode, +5 %), then the kernel.
  ASSERT_GE(r.metrics.size(), 2u);
  EXPECT_EQ(r.metrics[0].id, "kernel-total");
  EXPECT_EQ(r.metrics[1].id, "kernel:big");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NEAR(*r.geomean_weighted, 1.1, 1e-9);
}

TEST(GateTest, IncomparableProfilesAreInputErrors) {
  const std::vector<ProfileSummary> base = {Profile("b", {1, 2, 3, 4, 5, 6}, "GPU X")};
  const std::vector<ProfileSummary> other = {Profile("c", {1, 2, 3, 4, 5, 6}, "GPU Y")};
  EXPECT_THROW(CompareProfiles(base, other, GateSettings{}), InputError);
  ProfileSummary no_common = Profile("c", {});
  no_common.metrics.clear();
  AddKernel(no_common, "k", {1, 2});
  const std::vector<ProfileSummary> cur = {no_common};
  EXPECT_THROW(CompareProfiles(base, cur, GateSettings{}), InputError);
}

TEST(GateTest, FewSamplesAreLowN) {
  const std::vector<ProfileSummary> base = {Profile("b", {100, 100, 100})};
  const std::vector<ProfileSummary> cur = {Profile("c", {110, 110, 110})};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& m = Find(r, "iteration");
  EXPECT_EQ(m.verdict, Verdict::kLowN);
  EXPECT_DOUBLE_EQ(*m.ratio, 1.1);
  EXPECT_TRUE(m.low_n_over_threshold);  // 10 % > floor 3 % + min effect 2 %
  EXPECT_EQ(r.exit_code, 0);            // LOW-N never gates unless --low-n gate
  GateSettings gate;
  gate.low_n_gate = true;
  EXPECT_EQ(CompareProfiles(base, cur, gate).exit_code, 1);
}

// A collective kernel 10 % slower with most of the GPU time is reported, never gated: its time is
// the slowest rank's. The same kernel under another name fails the gate.
TEST(GateTest, CollectiveKernelsAreReportOnly) {
  std::vector<double> steps(40, 1000.0);
  std::vector<double> base_launches;
  std::vector<double> cur_launches;
  for (int i = 0; i < 40; ++i) {
    base_launches.push_back(800.0 + (i * 7) % 11);
    cur_launches.push_back(880.0 + (i * 5) % 11);
  }
  for (const std::string key : {"ncclDevKernel_AllReduce_Sum_f32", "gemm"}) {
    ProfileSummary base = Profile("b", steps);
    ProfileSummary cur = Profile("c", steps);
    AddKernel(base, key, base_launches);
    AddKernel(cur, key, cur_launches);
    const CompareResult r = CompareProfiles(std::vector{base}, std::vector{cur}, GateSettings{});
    const MetricComparison& m = Find(r, "kernel:" + key);
    EXPECT_EQ(m.verdict, Verdict::kRegressed) << key;
    EXPECT_EQ(m.gated, key == "gemm") << key;
    EXPECT_EQ(r.exit_code, key == "gemm" ? 1 : 0) << key;
  }
}

// GPU idle per iteration is a shift in ns (idle can be ~0, so no ratio): HL of the raw values
// with its Moses interval, report-only, CHANGED when the interval excludes 0.
TEST(GateTest, GpuIdleIsARawShiftReportedOnly) {
  ProfileSummary base = Profile("b", std::vector<double>(20, 1000.0));
  ProfileSummary cur = Profile("c", std::vector<double>(20, 1000.0));
  for (ProfileSummary* p : {&base, &cur}) {
    SampleSet& idle = AddMetric(*p, "idle:0", MetricLevel::kIdle, "GPU idle");
    for (int i = 0; i < 20; ++i)  // baseline 0..19 ns, current 50..69 ns: shift exactly 50
      idle.values.push_back((p == &cur ? 50.0 : 0.0) + i);
  }
  const CompareResult r = CompareProfiles(std::vector{base}, std::vector{cur}, GateSettings{});
  const MetricComparison& m = Find(r, "idle:0");
  EXPECT_FALSE(m.gated);
  EXPECT_FALSE(m.ratio.has_value());
  EXPECT_EQ(m.method, "hodges-lehmann-raw/moses");
  EXPECT_DOUBLE_EQ(*m.delta, 50.0);
  EXPECT_DOUBLE_EQ(*m.delta_of_iteration, 0.05);
  EXPECT_GT(*m.delta_ci_low, 0.0);
  EXPECT_LT(*m.delta_ci_low, 50.0);
  EXPECT_GT(*m.delta_ci_high, 50.0);
  EXPECT_EQ(m.verdict, Verdict::kChanged);
  EXPECT_EQ(r.exit_code, 0);
}

// "% of iter" is the idle shift over the baseline's median iteration (its CPU range): a share
// only while the baseline's idle fits in that range. GPU work launched asynchronously from a
// short range gives idle up to the GPU span (saxpy: 20.1 ms per 65.5 us range), and the shift
// over the range read -278.3 % of iter; it is left out then (the shift and its interval stay).
TEST(GateTest, GpuIdleIsNoShareOfAnIterationItOutlasts) {
  ProfileSummary base = Profile("b", std::vector<double>(20, 100.0));
  ProfileSummary cur = Profile("c", std::vector<double>(20, 100.0));
  for (ProfileSummary* p : {&base, &cur}) {
    SampleSet& idle = AddMetric(*p, "idle:0", MetricLevel::kIdle, "GPU idle");
    for (int i = 0; i < 20; ++i)  // baseline 1000..1019 ns, current 1050..1069 ns: idle > 100
      idle.values.push_back((p == &cur ? 1050.0 : 1000.0) + i);
  }
  const CompareResult r = CompareProfiles(std::vector{base}, std::vector{cur}, GateSettings{});
  const MetricComparison& m = Find(r, "idle:0");
  EXPECT_DOUBLE_EQ(*m.delta, 50.0);
  EXPECT_FALSE(m.delta_of_iteration.has_value()) << *m.delta_of_iteration;
  EXPECT_EQ(m.verdict, Verdict::kChanged);
}

// --gate-counts (§3.3): launches and bytes per iteration are exact counts; an increase above 5 %
// fails, and so does any increase from a baseline of 0 (a new 4 MB copy every iteration), which
// has no ratio. Without the flag the same rows are report-only.
TEST(GateTest, GateCountsFailsOnAnIncreaseFromZero) {
  for (bool gate_counts : {false, true}) {
    ProfileSummary base = Profile("b", std::vector<double>(20, 1000.0));
    ProfileSummary cur = Profile("c", std::vector<double>(20, 1000.0));
    for (ProfileSummary* p : {&base, &cur}) {
      AddMetric(*p, "bytes", MetricLevel::kBytes, "bytes").values.assign(20, p == &cur ? 4e6 : 0);
      AddMetric(*p, "launches", MetricLevel::kLaunches, "launches")
          .values.assign(20, p == &cur ? 104.0 : 100.0);  // +4 %: within the 5 %
    }
    GateSettings settings;
    settings.gate_counts = gate_counts;
    const CompareResult r = CompareProfiles(std::vector{base}, std::vector{cur}, settings);
    const MetricComparison& bytes = Find(r, "bytes");
    EXPECT_FALSE(bytes.ratio.has_value());
    EXPECT_DOUBLE_EQ(*bytes.delta, 4e6);
    EXPECT_EQ(bytes.verdict, gate_counts ? Verdict::kRegressed : Verdict::kChanged);
    const MetricComparison& launches = Find(r, "launches");
    EXPECT_DOUBLE_EQ(*launches.ratio, 1.04);
    EXPECT_EQ(launches.verdict, Verdict::kChanged);
    EXPECT_EQ(r.exit_code, gate_counts ? 1 : 0) << "gate_counts " << gate_counts;
  }
}

// Collective (comm) busy time waits for the other ranks (§3.3): reported, never gated, even with
// --gate-copies, which gates a copy engine that grows the same 50 %.
TEST(GateTest, CommBusyIsReportOnlyEvenWithGateCopies) {
  ProfileSummary base = Profile("b", std::vector<double>(20, 1000.0));
  ProfileSummary cur = Profile("c", std::vector<double>(20, 1000.0));
  for (ProfileSummary* p : {&base, &cur}) {
    for (const auto& [id, level, name] :
         {std::tuple{"busy:comm:0", MetricLevel::kCommBusy, "comm"},
          std::tuple{"copy:H2D:0", MetricLevel::kCopyBusy, "H2D"}}) {
      SampleSet& set = AddMetric(*p, id, level, name);
      for (int i = 0; i < 20; ++i)
        set.values.push_back((p == &cur ? 150.0 : 100.0) + 0.1 * i);
    }
  }
  GateSettings settings;
  settings.gate_copies = true;
  const CompareResult r = CompareProfiles(std::vector{base}, std::vector{cur}, settings);
  const MetricComparison& comm = Find(r, "busy:comm:0");
  EXPECT_FALSE(comm.gated);
  EXPECT_NEAR(*comm.ratio, 1.5, 0.01);
  EXPECT_TRUE(Find(r, "copy:H2D:0").gated);
  EXPECT_EQ(Find(r, "copy:H2D:0").verdict, Verdict::kRegressed);
  EXPECT_EQ(r.exit_code, 1);  // the copy engine, not the collectives
  settings.gate_copies = false;
  EXPECT_EQ(CompareProfiles(std::vector{base}, std::vector{cur}, settings).exit_code, 0);
}

// §5 E3: x = y = [5, 5, 5, ...] — no spread, p = 1, verdict ~, and the warning "identical".
TEST(GateTest, IdenticalSamplesAreReported) {
  const std::vector<ProfileSummary> base = {Profile("b", std::vector<double>(8, 5.0))};
  const std::vector<ProfileSummary> cur = {Profile("c", std::vector<double>(8, 5.0))};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  ASSERT_EQ(r.metrics.size(), 1u);
  EXPECT_TRUE(r.metrics[0].identical);
  EXPECT_EQ(*r.metrics[0].p_value, 1.0);
  EXPECT_EQ(r.metrics[0].verdict, Verdict::kNoChange);
  bool warned = false;
  for (const std::string& w : r.warnings)
    warned = warned || w.rfind("identical: every sample of 1 metric(s)", 0) == 0;
  EXPECT_TRUE(warned);
}

// Kernels on one side only are not gated; when they hold a gating share of a side's kernel
// time the pass says so, and when no kernel key is shared at all the sides are not comparable.
TEST(GateTest, UnmatchedKernelsAreSaidAndNoSharedKernelIsAnError) {
  const std::vector<double> steps(10, 1000.0);
  ProfileSummary base = Profile("b", steps);
  ProfileSummary cur = Profile("c", steps);
  AddKernel(base, "k", std::vector<double>(10, 100.0));
  AddKernel(cur, "k", std::vector<double>(10, 100.0));
  AddKernel(base, "old", std::vector<double>(10, 100.0));
  AddKernel(cur, "fresh", std::vector<double>(10, 300.0));
  const CompareResult r = CompareProfiles(std::vector{base}, std::vector{cur}, GateSettings{});
  bool said = false;
  for (const std::string& reason : r.verdict_reasons) {
    said = said || reason ==
                       "unmatched kernels, not gated: 1 REMOVED (50.0% of the baseline "
                       "kernel time), 1 NEW (75.0% of the current kernel time)";
  }
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(r.verdict_reasons, " | "));
  EXPECT_EQ(r.verdict, "pass-with-warnings");

  // No kernel key in common: with iterations the gate rests on the iteration time and says so;
  // with per-launch samples only (no iterations) the kernels are all it has: not comparable.
  ProfileSummary b2 = Profile("b", steps);
  ProfileSummary c2 = Profile("c", steps);
  AddKernel(b2, "gemm", std::vector<double>(10, 100.0));
  AddKernel(c2, "void gemm(float*)", std::vector<double>(10, 100.0));
  const CompareResult with_steps =
      CompareProfiles(std::vector{b2}, std::vector{c2}, GateSettings{});
  EXPECT_EQ(with_steps.verdict, "pass-with-warnings");
  EXPECT_NE(fmt::format("{}", fmt::join(with_steps.verdict_reasons, " | "))
                .find("unmatched kernels, not gated: 1 REMOVED"),
            std::string::npos);
  for (ProfileSummary* p : {&b2, &c2}) {
    p->metrics.erase("iteration");
    p->has_iterations = false;
    p->iterations = 0;
    p->steady_iterations = 0;
  }
  EXPECT_THROW(CompareProfiles(std::vector{b2}, std::vector{c2}, GateSettings{}), InputError);
}

// Counts per iteration are medians of the iterations: a half must print as a half, and a delta
// of zero as +0 (never -0).
TEST(GateTest, CountCellsKeepHalves) {
  MetricComparison m;
  m.level = MetricLevel::kLaunches;
  m.method = "exact";
  m.baseline = SideSummary{4, 1.0, 0};
  m.current = SideSummary{4, 0.5, 0};
  m.delta = -0.5;
  EXPECT_EQ(SideValue(m, m.baseline), "1");
  EXPECT_EQ(SideValue(m, m.current), "0.5");
  EXPECT_EQ(DeltaCell(m), "-0.5 (exact)");
  m.delta = 0.0;
  EXPECT_EQ(DeltaCell(m), "+0 (exact)");
  m.current = SideSummary{4, 212, 0};
  m.delta = 211;
  EXPECT_EQ(SideValue(m, m.current), "212");
  EXPECT_EQ(DeltaCell(m), "+211 (exact)");
}

// Kernel-only profiles: one big kernel and `small` kernels of `small_ns` each, 40 launches each,
// with 1 % deterministic noise; `scale` multiplies the current side's small kernels.
std::pair<ProfileSummary, ProfileSummary> KernelOnlyPair(int small, double small_ns, double scale) {
  ProfileSummary b = OneGpuProfile("b");
  ProfileSummary c = OneGpuProfile("c");
  SplitMix64 rng(7);
  auto series = [&](double ns) {
    std::vector<double> out;
    for (int i = 0; i < 40; ++i)
      out.push_back(ns * (1.0 + 0.01 * (static_cast<double>(rng.NextIndex(2001)) / 1000.0 - 1.0)));
    return out;
  };
  AddKernel(b, "big", series(1200));
  AddKernel(c, "big", series(1200));
  for (int k = 0; k < small; ++k) {
    AddKernel(b, fmt::format("s{}", k), series(small_ns));
    AddKernel(c, fmt::format("s{}", k), series(small_ns * scale));
  }
  return {b, c};
}

// F10: 120 small kernels (0.4 % each) all +20 %: no kernel is gated alone, but the compute kernel
// time (+9.8 %) is, and fails (it passed).
TEST(GateTest, KernelOnlyTotalCatchesManySmallRegressions) {
  const auto [b, c] = KernelOnlyPair(120, 10, 1.2);
  const std::vector<ProfileSummary> base = {b};
  const std::vector<ProfileSummary> cur = {c};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& total = Find(r, "kernel-total");
  EXPECT_EQ(total.level, MetricLevel::kKernelTotal);
  EXPECT_TRUE(total.gated);
  EXPECT_NEAR(*total.ratio, 1.0 + 0.2 * 1200.0 / 2400.0, 2e-3);
  EXPECT_EQ(total.verdict, Verdict::kRegressed);
  EXPECT_FALSE(Find(r, "kernel:s0").gated);
  EXPECT_EQ(r.exit_code, 1);
  // An A/A pair: the total is ~ and the gate passes.
  const auto [b2, c2] = KernelOnlyPair(120, 10, 1.0);
  const std::vector<ProfileSummary> base2 = {b2};
  const std::vector<ProfileSummary> cur2 = {c2};
  const CompareResult aa = CompareProfiles(base2, cur2, GateSettings{});
  EXPECT_NE(Find(aa, "kernel-total").verdict, Verdict::kRegressed);
  EXPECT_EQ(aa.exit_code, 0);
}

// `kernels` kernels of 50 us, `launches` launches each with +-`noise` uniform launch-to-launch
// noise, every duration times `scale` (a run's session factor, or a change).
ProfileSummary NoisyKernels(const std::string& path, int kernels, int launches, double noise,
                            double scale, uint64_t seed) {
  ProfileSummary p;
  p.path = path;
  p.device_model = "GPU X";
  p.device_count = 1;
  SplitMix64 rng(seed);
  for (int k = 0; k < kernels; ++k) {
    std::vector<double> out;
    for (int i = 0; i < launches; ++i)
      out.push_back(50000.0 * scale *
                    (1.0 + noise * (static_cast<double>(rng.NextIndex(2001)) / 1000.0 - 1.0)));
    AddKernel(p, fmt::format("k{}", k), out);
  }
  return p;
}

// Single-run: each kernel's interval is its launch-to-launch noise, independent across kernels.
// 40 kernels, 20 launches of +-10 % each, all +6 %: the total is REGRESSED (its interval adds
// the kernels' as variances), though no kernel alone is told from noise.
TEST(GateTest, KernelOnlyTotalAddsIndependentLaunchNoiseInOneRun) {
  const std::vector<ProfileSummary> base = {NoisyKernels("b", 40, 20, 0.10, 1.0, 1)};
  const std::vector<ProfileSummary> cur = {NoisyKernels("c", 40, 20, 0.10, 1.06, 2)};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& total = Find(r, "kernel-total");
  EXPECT_NEAR(*total.ratio, 1.06, 0.01);
  EXPECT_EQ(total.verdict, Verdict::kRegressed) << *total.ci_low << " " << *total.ci_high;
  EXPECT_EQ(r.exit_code, 1);
}

// Multi-run: one session factor moves every kernel of a run (baseline 0.985, 1.000, 1.015;
// current 1.010, 1.025, 1.040: +2.5 %, which 3 v 3 runs cannot tell from a 1.5 % session noise).
// Added as independent, the kernels' run-level intervals gave the total a interval about the
// root of 10 too narrow, and a false REGRESSED; added as moving together, it is not REGRESSED.
TEST(GateTest, KernelOnlyTotalOfSeveralRunsMovesWithTheSession) {
  std::vector<ProfileSummary> base;
  std::vector<ProfileSummary> cur;
  uint64_t seed = 10;
  for (double factor : {0.985, 1.000, 1.015})
    base.push_back(NoisyKernels(fmt::format("b{}", seed), 10, 40, 0.01, factor, ++seed));
  for (double factor : {1.010, 1.025, 1.040})
    cur.push_back(NoisyKernels(fmt::format("c{}", seed), 10, 40, 0.01, factor, ++seed));
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& total = Find(r, "kernel-total");
  EXPECT_NEAR(*total.ratio, 1.025, 0.005);
  EXPECT_NE(total.verdict, Verdict::kRegressed) << *total.ci_low << " " << *total.ci_high;
  EXPECT_LT(*total.ci_low, 1.0);
  EXPECT_NE(r.exit_code, 1);
}

// F10: a total compute-kernel-time regression of +8 % fails: 60 kernels of 10 ns (1/3 of the
// kernel time, 0.56 % each, none gated alone) +24 %.
TEST(GateTest, KernelOnlyTotalFailsAtEightPercent) {
  const auto [b, c] = KernelOnlyPair(60, 10, 1.24);
  const std::vector<ProfileSummary> base = {b};
  const std::vector<ProfileSummary> cur = {c};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  EXPECT_NEAR(*Find(r, "kernel-total").ratio, 1.08, 2e-3);
  EXPECT_EQ(Find(r, "kernel-total").verdict, Verdict::kRegressed);
  EXPECT_FALSE(Find(r, "kernel:s0").gated);
  EXPECT_EQ(r.exit_code, 1);
}

// F10: a kernel under 1 % of the baseline kernel time that becomes 10x slower (8 % of the
// current) is gated by its current share, and fails.
TEST(GateTest, KernelThatBecameExpensiveIsGated) {
  const auto [b, c] = KernelOnlyPair(1, 9, 10.0);
  const std::vector<ProfileSummary> base = {b};
  const std::vector<ProfileSummary> cur = {c};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison& small = Find(r, "kernel:s0");
  EXPECT_LT(*small.share, 0.01);
  EXPECT_TRUE(small.gated);
  EXPECT_EQ(small.verdict, Verdict::kRegressed);
  EXPECT_EQ(r.exit_code, 1);
}

// S10: comm in 4 of 16 iterations (gradient accumulation), doubled: the median per iteration is
// 0 on both sides; a warning says how often it ran and its mean per iteration.
TEST(GateTest, PeriodicCommIsSaidWithItsMean) {
  std::vector<double> walls(16, 1000.0);
  ProfileSummary b = Profile("b", walls);
  ProfileSummary c = Profile("c", walls);
  std::vector<double> comm_b(16, 0.0);
  std::vector<double> comm_c(16, 0.0);
  for (size_t i = 3; i < 16; i += 4) {
    comm_b[i] = 400;
    comm_c[i] = 800;
  }
  AddMetric(b, "busy:comm:0", MetricLevel::kCommBusy, "comm").values = comm_b;
  AddMetric(c, "busy:comm:0", MetricLevel::kCommBusy, "comm").values = comm_c;
  const std::vector<ProfileSummary> base = {b};
  const std::vector<ProfileSummary> cur = {c};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  bool said = false;
  for (const std::string& w : r.warnings)
    said = said || w == "periodic work: comm busy ran in 4 of 16 baseline and 4 of 16 current "
                        "steady iterations, so its median per iteration hides it; mean per "
                        "iteration 100 ns -> 200 ns (+100.0%)";
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(r.warnings, "\n"));
}

// F12: work launched between the steps, 1 % or more of a side's kernel time, is a verdict reason.
// 20 iteration times of 1000-1002 ns: enough steps, a little spread, no change between sides.
std::vector<double> SteadyWalls() {
  std::vector<double> walls;
  for (int i = 0; i < 20; ++i)
    walls.push_back(1000 + (i % 3));
  return walls;
}

TEST(GateTest, WorkBetweenTheStepsIsAVerdictReason) {
  const std::vector<double> walls = SteadyWalls();
  ProfileSummary b = Profile("b", walls);
  ProfileSummary c = Profile("c.json", walls);
  b.kernel_time_ns = c.kernel_time_ns = 10000;
  c.between_ops = 19;
  c.between_kernel_ns = 7600;
  const std::vector<ProfileSummary> base = {b};
  const std::vector<ProfileSummary> cur = {c};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  EXPECT_EQ(r.verdict, "pass-with-warnings");
  bool said = false;
  for (const std::string& reason : r.verdict_reasons)
    said = said || reason.rfind("outside the iterations: c.json: 19 GPU op(s), 7.600 us", 0) == 0;
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(r.verdict_reasons, "; "));
}

// A current profile of a baseline's bytes (the same path, or a copy) is a run compared with
// itself: the pass says so, whatever the figures; other bytes say nothing.
TEST(GateTest, TheSameBytesOnBothSidesAreAVerdictReason) {
  const std::vector<double> walls = SteadyWalls();
  ProfileSummary b = Profile("base.sqlite", walls);
  ProfileSummary c = Profile("ci/copy.sqlite", walls);
  ProfileSummary other = Profile("other.sqlite", walls);
  b.same_bytes_group = c.same_bytes_group = 1;
  other.same_bytes_group = 2;
  const std::vector<ProfileSummary> base = {b};
  const CompareResult same = CompareProfiles(base, std::vector<ProfileSummary>{c}, GateSettings{});
  EXPECT_EQ(same.verdict, "pass-with-warnings");
  ASSERT_FALSE(same.verdict_reasons.empty());
  EXPECT_EQ(same.verdict_reasons.front(),
            "the same profile on both sides: 1 of 1 current profile(s) are baseline ones: "
            "ci/copy.sqlite (same bytes as base.sqlite); a run compared with itself shows no "
            "change, whatever the code did");
  const CompareResult distinct =
      CompareProfiles(base, std::vector<ProfileSummary>{other}, GateSettings{});
  EXPECT_EQ(distinct.verdict, "pass")
      << fmt::format("{}", fmt::join(distinct.verdict_reasons, "; "));
  // Not grouped (no file of the same bytes found on the other side): nothing is claimed.
  ProfileSummary unhashed = c;
  unhashed.same_bytes_group = 0;
  b.same_bytes_group = 0;
  EXPECT_EQ(CompareProfiles(std::vector<ProfileSummary>{b}, std::vector<ProfileSummary>{unhashed},
                            GateSettings{})
                .verdict,
            "pass");
}

// F15: when no profile names its GPU the model check compares nothing, and a warning says so.
TEST(GateTest, UnknownGpuOnBothSidesIsSaid) {
  const std::vector<ProfileSummary> base = {
      Profile("b", {100, 101, 99, 100, 102, 98, 100}, "unknown GPU")};
  const std::vector<ProfileSummary> cur = {
      Profile("c", {100, 101, 99, 100, 102, 98, 100}, "unknown GPU")};
  const CompareResult r = CompareProfiles(base, cur, GateSettings{});
  bool said = false;
  for (const std::string& w : r.warnings)
    said = said || w.rfind("GPU model unknown on both sides", 0) == 0;
  EXPECT_TRUE(said);
  const std::vector<ProfileSummary> named = {Profile("n", {100, 101, 99, 100, 102, 98, 100})};
  const CompareResult n = CompareProfiles(named, named, GateSettings{});
  for (const std::string& w : n.warnings)
    EXPECT_NE(w.rfind("GPU model unknown", 0), 0u) << w;
}

}  // namespace
}  // namespace gpuroof
