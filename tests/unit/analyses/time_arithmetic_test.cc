// Regression tests for the fuzzers' arithmetic and resource findings (docs/reliability.md): times
// near the int64 limits, sums of long ops, and range x op attribution memory.
#include <chrono>
#include <cstdint>
#include <limits>
#include <set>

#include <gtest/gtest.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/time_limits.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(TimeLimits, SaturatingArithmeticClampsInsteadOfWrapping) {
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingSub(kMin + 5, 10), kMin);
  EXPECT_EQ(SaturatingSub(kMax - 5, -10), kMax);
  EXPECT_EQ(SaturatingSub(10, 3), 7);
  EXPECT_EQ(IntervalProblem(0, 10), "");
  EXPECT_EQ(IntervalProblem(10, 0), "end before start");
  EXPECT_EQ(IntervalProblem(-kTimestampLimitNs, 0), "implausible timestamp");
  EXPECT_EQ(IntervalProblem(0, kTimestampLimitNs), "implausible timestamp");
  EXPECT_EQ(IntervalProblem(0, kDurationLimitNs + 1), "implausible duration");
}

// Finding 4: `start - longest range` overflowed for an op early in a trace with a very long
// range (values inside ±2^62), and the op went missing from the range.
TEST(TimeArithmetic, AnOpEarlyUnderAVeryLongRangeIsStillAttributed) {
  const int64_t half = int64_t{1} << 61;
  Trace trace = MakeTrace({{Engine::kKernel, -half, -half + 10, 0, 1}});
  AddRange(trace, "long", -(kTimestampLimitNs - 1), kTimestampLimitNs - 1);
  const std::vector<const NvtxRange*> ranges = FindNvtxRanges(trace, "long");
  const RangeAttribution attribution = AttributeGpuWork(trace, ranges, RangeScope::kThread);
  ASSERT_EQ(attribution.instances.size(), 1u);
  EXPECT_EQ(attribution.method, AttributionMethod::kTimeOverlap);
  EXPECT_EQ(attribution.instances[0].ops.size(), 1u);
}

// Finding 6: two ops of ~2^63 ns each made the engine-load sums negative.
TEST(TimeArithmetic, SumsOfHugeDurationsSaturateInsteadOfGoingNegative) {
  const int64_t lo = -(kTimestampLimitNs - 1);
  const int64_t hi = kTimestampLimitNs - 1;
  Trace trace = MakeTrace({{Engine::kKernel, lo, hi, 0, 1}, {Engine::kKernel, lo, hi, 0, 2}});
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  const std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  const EngineLoad& kernel = loads[0].engine(Engine::kKernel);
  EXPECT_EQ(kernel.ops, 2);
  EXPECT_GT(kernel.sum_ns, 0);
  EXPECT_EQ(kernel.sum_ns, kMax);
  EXPECT_EQ(kernel.busy_ns, hi - lo);
  EXPECT_GE(kernel.sum_ns, kernel.busy_ns);
}

// Byte counts are bounded by the readers (kByteCountLimit) and their sums clamp at the int64
// maximum: an int64 writer (CSV) and a uint64 one (JSON) never print different or negative sums.
TEST(TimeArithmetic, ByteSumsSaturateAtTheInt64Maximum) {
  const uint64_t max = static_cast<uint64_t>(kMax);
  EXPECT_EQ(SaturatingAddBytes(2, 3), 5u);
  EXPECT_EQ(SaturatingAddBytes(max - 1, 1), max);
  EXPECT_EQ(SaturatingAddBytes(max, 1), max);
  EXPECT_EQ(SaturatingAddBytes(1, std::numeric_limits<uint64_t>::max()), max);
  std::vector<testing::Op> ops;
  for (int i = 0; i < 20000; ++i)
    ops.push_back({Engine::kH2D, i * 10, i * 10 + 5, 0, 1, kByteCountLimit});
  Trace trace = MakeTrace(ops);
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  const std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].engine(Engine::kH2D).bytes, max);
}

TEST(TimeArithmetic, IntervalUnionOfFarApartIntervalsSaturates) {
  IntervalUnion u;
  u.Add(kMin, kMin + 10);
  u.Add(0, kMax);
  EXPECT_EQ(u.length_ns(), kMax);
}

// Finding 7: 3,000 identical ranges over 100 k kernels kept one entry per (range, op) pair
// (300 M entries, 2.46 GB and 40 s in `ranges`). Identical instances now share one list.
TEST(RangeAttributionMemory, IdenticalRangesShareOneOpList) {
  constexpr int kOps = 100'000;
  constexpr int kRanges = 3'000;
  std::vector<Op> ops;
  ops.reserve(kOps);
  for (int i = 0; i < kOps; ++i)
    ops.push_back({Engine::kKernel, int64_t{i} * 10, int64_t{i} * 10 + 5, 0, 1});
  Trace trace = MakeTrace(ops);
  for (int r = 0; r < kRanges; ++r)
    AddRange(trace, "step", 0, int64_t{kOps} * 10);
  const auto started = std::chrono::steady_clock::now();
  const std::vector<const NvtxRange*> ranges = FindNvtxRanges(trace, "step");
  const RangeAttribution attribution = AttributeGpuWork(trace, ranges, RangeScope::kThread);
  ASSERT_EQ(attribution.instances.size(), static_cast<size_t>(kRanges));
  std::set<const void*> lists;
  size_t stored = 0;
  for (const RangeInstanceWork& instance : attribution.instances) {
    EXPECT_EQ(instance.ops.size(), static_cast<size_t>(kOps));
    if (lists.insert(instance.ops.storage()).second) stored += instance.ops.size();
  }
  EXPECT_LE(stored, static_cast<size_t>(kOps + kRanges));  // O(ranges + ops), not their product
  const std::vector<RangeInstanceLoad> rows = ComputeInstanceLoads(trace, attribution);
  ASSERT_EQ(rows.size(), static_cast<size_t>(kRanges));
  for (const RangeInstanceLoad& row : rows) {
    EXPECT_EQ(row.gpu_ops, kOps);
    EXPECT_EQ(row.engines[static_cast<size_t>(EngineIndex(Engine::kKernel))].sum_ns,
              int64_t{kOps} * 5);
  }
  EXPECT_EQ(rows.back().ordinal, kRanges);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(seconds, 30.0);  // minutes before, under a second in a release build
}

}  // namespace
}  // namespace gpuroof
