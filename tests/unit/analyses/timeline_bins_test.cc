#include "gpuroof/analyses/timeline_bins.h"

#include <gtest/gtest.h>

#include "gpuroof/analyses/interval_union.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;
using testing::Op;

const EngineBins* Find(const DeviceTimeline& timeline, Engine engine) {
  for (const EngineBins& bins : timeline.engines) {
    if (bins.engine == engine) return &bins;
  }
  return nullptr;
}

class TimelineBinsBlocks : public ::testing::TestWithParam<int> {};

// Device 0, range [0, 1000) in 4 bins of 250 ns, worked by hand:
//   kernels [100,300) and [200,600) -> union [100,600): bin 0 gets 150, bin 1 250, bin 2 100
//   H2D [900,1200) clipped to [900,1000): bin 3 gets 100; a zero-length H2D at 50 adds nothing
//   D2H [-100,10) clipped to [0,10): bin 0 gets 10
// Device 1 has no range and is ignored.
TEST_P(TimelineBinsBlocks, BinsTheUnionOfEachEngineClippedToTheRange) {
  Trace trace = MakeTrace({{Engine::kKernel, 100, 300},
                           {Engine::kKernel, 200, 600, 0, 3},
                           {Engine::kH2D, 900, 1200, 0, 1, 64},
                           {Engine::kH2D, 50, 50, 0, 1, 64},
                           {Engine::kD2H, -100, 10, 0, 2, 64},
                           {Engine::kKernel, 0, 1000, 1}},
                          GetParam());
  std::vector<DeviceTimeline> timelines = ComputeTimelineBins(trace, {{0, 0, 1000}}, 4);
  ASSERT_EQ(timelines.size(), 1u);
  const DeviceTimeline& t = timelines[0];
  EXPECT_EQ(t.device_id, 0);
  EXPECT_EQ(t.bin_ns, 250);
  ASSERT_EQ(t.bin_count(), 4u);
  ASSERT_EQ(t.engines.size(), 3u);
  EXPECT_EQ(t.engines[0].engine, Engine::kKernel);  // display order
  EXPECT_EQ(t.engines[1].engine, Engine::kH2D);
  EXPECT_EQ(t.engines[2].engine, Engine::kD2H);
  EXPECT_EQ(Find(t, Engine::kKernel)->busy_ns, (std::vector<int64_t>{150, 250, 100, 0}));
  EXPECT_EQ(Find(t, Engine::kKernel)->total_busy_ns, 500);
  EXPECT_EQ(Find(t, Engine::kH2D)->busy_ns, (std::vector<int64_t>{0, 0, 0, 100}));
  EXPECT_EQ(Find(t, Engine::kD2H)->busy_ns, (std::vector<int64_t>{10, 0, 0, 0}));
}

// 1001 ns in at most 4 bins: bin_ns = ceil(1001 / 4) = 251, so 4 bins and the last one,
// [753, 1001), is 248 long. A kernel [700, 1001) gives bin 2 [502,753) 53 and bin 3 all 248.
TEST_P(TimelineBinsBlocks, ALastShortBinTilesTheRangeExactly) {
  Trace trace = MakeTrace({{Engine::kKernel, 700, 1001}, {Engine::kKernel, 0, 1}}, GetParam());
  std::vector<DeviceTimeline> timelines = ComputeTimelineBins(trace, {{0, 0, 1001}}, 4);
  const DeviceTimeline& t = timelines[0];
  EXPECT_EQ(t.bin_ns, 251);
  ASSERT_EQ(t.bin_count(), 4u);
  EXPECT_EQ(t.BinLengthNs(3), 248);
  EXPECT_EQ(t.engines[0].busy_ns, (std::vector<int64_t>{1, 0, 53, 248}));
}

INSTANTIATE_TEST_SUITE_P(Blocks, TimelineBinsBlocks, ::testing::Values(1, 3));

TEST(TimelineBins, BinsSumToTheUnionLengthOfAnIrregularTrace) {
  // Overlapping ops with prime-ish lengths on one engine; the bins must add up to the union
  // computed independently (sort and merge) whatever the bin width.
  std::vector<Op> ops;
  std::vector<std::pair<int64_t, int64_t>> intervals;
  for (int64_t i = 0; i < 200; ++i) {
    int64_t start = (i * 7919) % 100'000;
    int64_t end = start + 13 + (i * 104729) % 2'000;
    ops.push_back({Engine::kKernel, start, end});
    intervals.emplace_back(start, std::min<int64_t>(end, 100'000));
  }
  Trace trace = MakeTrace(ops, 4);
  for (int bins : {1, 7, 880, 100'000, 1'000'000}) {
    std::vector<DeviceTimeline> timelines = ComputeTimelineBins(trace, {{0, 0, 100'000}}, bins);
    const DeviceTimeline& t = timelines[0];
    EXPECT_LE(t.bin_count(), static_cast<size_t>(bins));
    EXPECT_EQ(t.engines[0].total_busy_ns, UnionLengthNs(intervals)) << bins << " bins";
    for (size_t b = 0; b < t.bin_count(); ++b) {
      ASSERT_LE(t.engines[0].busy_ns[b], t.BinLengthNs(b)) << "bin " << b;
    }
  }
}

TEST(TimelineBins, MoreBinsThanNanosecondsGivesOneNanosecondBins) {
  Trace trace = MakeTrace({{Engine::kKernel, 1, 2}});
  std::vector<DeviceTimeline> timelines = ComputeTimelineBins(trace, {{0, 0, 3}}, 10);
  EXPECT_EQ(timelines[0].bin_ns, 1);
  EXPECT_EQ(timelines[0].engines[0].busy_ns, (std::vector<int64_t>{0, 1, 0}));
}

TEST(TimelineBins, EmptyRangeHasNoBinsAndNoEngines) {
  Trace trace = MakeTrace({{Engine::kKernel, 5, 9}});
  std::vector<DeviceTimeline> timelines = ComputeTimelineBins(trace, {{0, 5, 5}}, 10);
  EXPECT_EQ(timelines[0].bin_count(), 0u);
  EXPECT_TRUE(timelines[0].engines.empty());
}

}  // namespace
}  // namespace gpuroof
