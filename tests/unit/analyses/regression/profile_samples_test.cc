#include "gpuroof/analyses/regression/profile_samples.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddLaunch;
using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

// Eight 1000 ns iterations "step" on thread 1, iteration i launching ops 2i and 2i + 1 of `ops`.
Trace EightSteps(const std::vector<Op>& ops) {
  Trace trace = MakeTrace(ops);
  trace.devices.push_back({0, "Test GPU"});
  for (int i = 0; i < 8; ++i) {
    const int64_t t = i * 1000;
    AddRange(trace, "step", t, t + 1000, 1);
    AddLaunch(trace, 2 * static_cast<size_t>(i), 1, t + 10);
    AddLaunch(trace, 2 * static_cast<size_t>(i) + 1, 1, t + 20);
  }
  return trace;
}

// Each iteration launches kernel "a" (200 ns) and a 64-byte H2D copy (100 ns) that run late,
// inside the *next* iteration's time: launch correlation must still give each iteration its own
// work.
Trace EightIterations() {
  std::vector<Op> ops;
  for (int i = 0; i < 8; ++i) {
    const int64_t t = i * 1000;
    ops.push_back({Engine::kKernel, t + 900, t + 1100, 0, 7, 0, "a"});
    ops.push_back({Engine::kH2D, t + 1100, t + 1200, 0, 7, 64, ""});
  }
  return EightSteps(ops);
}

TEST(ProfileSamplesTest, IterationsFromLaunchCorrelation) {
  ProfileOptions options;
  options.iteration_range = "step";
  options.warmup = 2;
  const ProfileSummary s = SummarizeProfile(EightIterations(), options);
  EXPECT_TRUE(s.has_iterations);
  EXPECT_EQ(s.attribution, "launch-correlation");
  EXPECT_EQ(s.device_model, "Test GPU");
  EXPECT_EQ(s.iterations, 8u);
  EXPECT_EQ(s.warmup_dropped, 2u);
  EXPECT_EQ(s.steady_iterations, 6u);
  EXPECT_EQ(s.metrics.at("iteration").values, std::vector<double>(6, 1000.0));
  // Each iteration owns exactly its 200 ns kernel and 100 ns copy, though both run past its end.
  EXPECT_EQ(s.metrics.at("busy:kernel:0").values, std::vector<double>(6, 200.0));
  EXPECT_EQ(s.metrics.at("copy:H2D:0").values, std::vector<double>(6, 100.0));
  // GPU idle: the iteration's ops span 900..1200 (300 ns), its kernel is busy 200 ns of it.
  EXPECT_EQ(s.metrics.at("idle:0").level, MetricLevel::kIdle);
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(6, 100.0));
  EXPECT_EQ(s.metrics.at("launches").values, std::vector<double>(6, 1.0));
  EXPECT_EQ(s.metrics.at("bytes").values, std::vector<double>(6, 64.0));
  const SampleSet& kernel = s.metrics.at("kernel:a <<<(0,0,0),(0,0,0)>>>");
  EXPECT_EQ(kernel.values, std::vector<double>(6, 200.0));
  EXPECT_EQ(kernel.total, 1200.0);
  EXPECT_EQ(s.kernel_time_ns, 1200.0);
}

// Eight steps, each launching kernel "a" (900..1100 after the step's start) and `other` (its
// times relative to the step's start), summarised with 2 warm-up steps dropped.
ProfileSummary KernelAndOtherPerStep(const Op& other) {
  std::vector<Op> ops;
  for (int i = 0; i < 8; ++i) {
    const int64_t t = i * 1000;
    ops.push_back({Engine::kKernel, t + 900, t + 1100, 0, 7, 0, "a"});
    Op shifted = other;
    shifted.start_ns += t;
    shifted.end_ns += t;
    ops.push_back(shifted);
  }
  ProfileOptions options;
  options.iteration_range = "step";
  options.warmup = 2;
  return SummarizeProfile(EightSteps(ops), options);
}

// A CUDA graph traced at graph level is compute: each iteration launches kernel "a" (900..1100)
// and one graph replay (1050..1400) that overlaps it. Compute busy is their union, 500 ns, not the
// kernel's 200 with the graph as a "copy" engine; idle is the span (900..1400) less it: 0.
TEST(ProfileSamplesTest, WholeGraphLaunchesAreComputeBusy) {
  const ProfileSummary s = KernelAndOtherPerStep({Engine::kGraph, 1050, 1400, 0, 7});
  EXPECT_EQ(s.metrics.at("busy:kernel:0").level, MetricLevel::kGpuBusy);
  EXPECT_EQ(s.metrics.at("busy:kernel:0").values, std::vector<double>(6, 500.0));
  EXPECT_EQ(s.metrics.count("copy:graph:0"), 0u);
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(6, 0.0));
  EXPECT_EQ(s.metrics.at("bytes").values, std::vector<double>(6, 0.0));
}

// Collectives are their own report-only level, not a copy engine and not compute.
TEST(ProfileSamplesTest, CollectivesAreCommBusy) {
  const ProfileSummary s =
      KernelAndOtherPerStep({Engine::kComm, 1000, 1300, 0, 8, 0, "ncclDevKernel_AllReduce"});
  EXPECT_EQ(s.metrics.at("busy:comm:0").level, MetricLevel::kCommBusy);
  EXPECT_EQ(s.metrics.at("busy:comm:0").values, std::vector<double>(6, 300.0));
  EXPECT_EQ(s.metrics.at("busy:kernel:0").values, std::vector<double>(6, 200.0));
  EXPECT_EQ(s.metrics.count("copy:comm:0"), 0u);
  // Idle: span 900..1300 less compute busy 200 (communication is not compute).
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(6, 200.0));
}

TEST(ProfileSamplesTest, AnnotationRangesWithinSteadyIterationsOnTheirThread) {
  Trace trace = EightIterations();
  for (int i = 0; i < 8; ++i) {
    const int64_t t = i * 1000;
    AddRange(trace, "forward", t + 100, t + 400 + 10 * i, 1);  // inside: 300 + 10 i ns
    AddRange(trace, "other_thread", t + 100, t + 200, 2);      // no iteration on thread 2
  }
  AddRange(trace, "spans_two", 5500, 6500, 1);  // crosses an iteration boundary: no sample
  ProfileOptions options;
  options.iteration_range = "step";
  options.warmup = 2;
  const ProfileSummary s = SummarizeProfile(trace, options);
  const SampleSet& forward = s.metrics.at("range:forward");
  EXPECT_EQ(forward.level, MetricLevel::kRange);
  EXPECT_EQ(forward.name, "forward");
  // Iterations 0 and 1 are warm-up: their instances are left out, the rest in time order.
  EXPECT_EQ(forward.values, (std::vector<double>{320, 330, 340, 350, 360, 370}));
  EXPECT_EQ(forward.total, 2070.0);
  EXPECT_EQ(s.metrics.count("range:other_thread"), 0u);
  EXPECT_EQ(s.metrics.count("range:spans_two"), 0u);
  EXPECT_EQ(s.metrics.count("range:step"), 0u);  // the iteration itself is not a range sample
}

TEST(ProfileSamplesTest, AutoWarmupDropsAtLeastTheFirstIteration) {
  ProfileOptions options;
  options.iteration_range = "step";
  const ProfileSummary s = SummarizeProfile(EightIterations(), options);
  // Fewer than two MSER batches: nothing to compare, but the first iteration still goes.
  EXPECT_EQ(s.warmup_dropped, 1u);
  EXPECT_EQ(s.steady_iterations, 7u);
}

TEST(ProfileSamplesTest, WithoutIterationsEveryLaunchIsASample) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 50, 0, 7, 0, "a"},
                           {Engine::kKernel, 100, 130, 0, 7, 0, "a"},
                           {Engine::kKernel, 200, 240, 0, 7, 0, "b"},
                           {Engine::kKernel, 300, 320, 0, 7, 0, "a"}});
  ProfileOptions options;
  options.warmup = 0;
  options.kernel_key = KernelKey::kName;
  const ProfileSummary s = SummarizeProfile(trace, options);
  EXPECT_FALSE(s.has_iterations);
  EXPECT_EQ(s.metrics.at("kernel:a").values, (std::vector<double>{50, 30, 20}));
  EXPECT_EQ(s.metrics.at("kernel:b").values, (std::vector<double>{40}));
  EXPECT_EQ(s.kernel_time_ns, 140.0);
  EXPECT_EQ(s.metrics.count("iteration"), 0u);
  ASSERT_FALSE(s.warnings.empty());
  // Fixed warm-up drops per kernel; a kernel with nothing left disappears.
  options.warmup = 1;
  const ProfileSummary trimmed = SummarizeProfile(trace, options);
  EXPECT_EQ(trimmed.metrics.at("kernel:a").values, (std::vector<double>{30, 20}));
  EXPECT_EQ(trimmed.metrics.count("kernel:b"), 0u);
}

TEST(ProfileSamplesTest, BadProfilesAreInputErrors) {
  ProfileOptions options;
  options.iteration_range = "epoch";
  EXPECT_THROW(SummarizeProfile(EightIterations(), options), InputError);  // no such range
  options.iteration_range = "step";
  options.warmup = 8;
  EXPECT_THROW(SummarizeProfile(EightIterations(), options), InputError);  // nothing steady
  Trace empty;
  empty.source = "empty.sqlite";
  EXPECT_THROW(SummarizeProfile(empty, ProfileOptions{}), InputError);
}

}  // namespace
}  // namespace gpuroof
