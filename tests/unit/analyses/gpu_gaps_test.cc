#include "gpuroof/analyses/gpu_gaps.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;
using testing::Op;

// Device 0, worked by hand:
//   kernel a [0,100) s1, H2D [50,150) s2, kernel b [120,140) s3 -> one busy segment [0,150)
//     (the H2D ends last, so it is what precedes the first gap)
//   idle [150,1150) = 1000
//   kernel c [1150,1200) s1, D2H [1200,1300) s2 (touching: same segment)
//   idle [1300,1800) = 500; a zero-length kernel at 1500 occupies nothing
//   memset [1800,1900) s1
//   idle [1900,2400) = 500
//   kernel d [2400,2500) s1 -> span [0,2500)
// Device 1: kernel [10,20), kernel [5000,5010) -> idle [20,5000) = 4980, 10 after its first op.
std::vector<Op> Ops() {
  return {
      {Engine::kKernel, 0, 100, 0, 1, 0, "a"},   {Engine::kH2D, 50, 150, 0, 2, 64},
      {Engine::kKernel, 120, 140, 0, 3, 0, "b"}, {Engine::kKernel, 1150, 1200, 0, 1, 0, "c"},
      {Engine::kD2H, 1200, 1300, 0, 2, 64},      {Engine::kKernel, 1500, 1500, 0, 1, 0, "empty"},
      {Engine::kMemset, 1800, 1900, 0, 1, 64},   {Engine::kKernel, 2400, 2500, 0, 1, 0, "d"},
      {Engine::kKernel, 10, 20, 1, 1, 0, "e"},   {Engine::kKernel, 5000, 5010, 1, 1, 0, "f"},
  };
}

GapOptions Min(int64_t min_ns) {
  GapOptions options;
  options.min_ns = min_ns;
  return options;
}

class GpuGapsBlocks : public ::testing::TestWithParam<int> {};

TEST_P(GpuGapsBlocks, ListsGapsStrictlyLongerThanTheThresholdLongestFirst) {
  Trace trace = MakeTrace(Ops(), GetParam());
  // --min 499: the 1000 gap and both 500 gaps, ties in start order.
  std::vector<DeviceGaps> devices = ComputeGaps(trace, Min(499));
  ASSERT_EQ(devices.size(), 2u);
  const DeviceGaps& d0 = devices[0];
  EXPECT_EQ(d0.device_id, 0);
  EXPECT_EQ(d0.span_start_ns, 0);
  EXPECT_EQ(d0.span_end_ns, 2500);
  ASSERT_EQ(d0.gaps.size(), 3u);
  EXPECT_EQ(d0.gaps[0].start_ns, 150);
  EXPECT_EQ(d0.gaps[0].duration_ns(), 1000);
  EXPECT_EQ(d0.gaps[0].before.engine, Engine::kH2D);
  EXPECT_EQ(d0.gaps[0].before.label, "H2D Unknown->Unknown");
  EXPECT_EQ(d0.gaps[0].before.stream_id, 2u);
  EXPECT_EQ(d0.gaps[0].after.label, "kernel c");
  EXPECT_EQ(d0.gaps[1].start_ns, 1300);
  EXPECT_EQ(d0.gaps[1].duration_ns(), 500);
  EXPECT_EQ(d0.gaps[1].before.engine, Engine::kD2H);
  EXPECT_EQ(d0.gaps[1].after.engine, Engine::kMemset);
  EXPECT_EQ(d0.gaps[2].start_ns, 1900);
  EXPECT_EQ(d0.gaps[2].duration_ns(), 500);
  EXPECT_EQ(d0.gaps[2].before.engine, Engine::kMemset);
  EXPECT_EQ(d0.gaps[2].after.label, "kernel d");
  EXPECT_EQ(d0.gap_total_ns, 2000);

  const DeviceGaps& d1 = devices[1];
  EXPECT_EQ(d1.device_id, 1);
  EXPECT_EQ(d1.span_start_ns, 10);
  EXPECT_EQ(d1.span_end_ns, 5010);
  ASSERT_EQ(d1.gaps.size(), 1u);
  EXPECT_EQ(d1.gaps[0].start_ns, 20);
  EXPECT_EQ(d1.gaps[0].duration_ns(), 4980);
  EXPECT_EQ(d1.gaps[0].before.label, "kernel e");
  EXPECT_EQ(d1.gaps[0].after.label, "kernel f");
}

INSTANTIATE_TEST_SUITE_P(Blocks, GpuGapsBlocks, ::testing::Values(1, 4));

TEST(GpuGaps, AGapExactlyAtTheThresholdIsNotListed) {
  Trace trace = MakeTrace(Ops());
  std::vector<DeviceGaps> devices = ComputeGaps(trace, Min(500));
  ASSERT_EQ(devices[0].gaps.size(), 1u);  // 500 is not longer than 500
  EXPECT_EQ(devices[0].gaps[0].duration_ns(), 1000);
  EXPECT_EQ(devices[0].gap_total_ns, 1000);
  devices = ComputeGaps(trace, Min(4980));
  EXPECT_TRUE(devices[0].gaps.empty());
  EXPECT_TRUE(devices[1].gaps.empty());
  EXPECT_EQ(devices[0].gap_total_ns, 0);
}

TEST(GpuGaps, OverlappingOpsOnOtherStreamsCloseTheGap) {
  // [0,100) s1 and [90,300) s2 overlap; [250,260) s3 lies inside; next op at 400.
  Trace trace = MakeTrace({
      {Engine::kKernel, 0, 100, 0, 1, 0, "x"},
      {Engine::kKernel, 90, 300, 0, 2, 0, "y"},
      {Engine::kKernel, 250, 260, 0, 3, 0, "z"},
      {Engine::kKernel, 400, 410, 0, 1, 0, "w"},
  });
  std::vector<DeviceGaps> devices = ComputeGaps(trace, Min(1));
  ASSERT_EQ(devices[0].gaps.size(), 1u);
  EXPECT_EQ(devices[0].gaps[0].start_ns, 300);
  EXPECT_EQ(devices[0].gaps[0].duration_ns(), 100);
  EXPECT_EQ(devices[0].gaps[0].before.label, "kernel y");
  EXPECT_EQ(devices[0].gaps[0].after.label, "kernel w");
}

TEST(GpuGaps, ThresholdMustBePositive) {
  Trace trace = MakeTrace(Ops());
  EXPECT_THROW(ComputeGaps(trace, Min(0)), InputError);
}

TEST(GpuGaps, TraceWithoutTimedOpsIsAnInputError) {
  Trace trace = MakeTrace({{Engine::kKernel, 5, 5, 0, 1}});
  EXPECT_THROW(ComputeGaps(trace, Min(1)), InputError);
}

// A collective beside a gap is named as one (the NCCL kernel tells which collective waited).
TEST(GpuGaps, CollectiveNeighboursKeepTheirNames) {
  const Trace trace = MakeTrace({{Engine::kComm, 0, 100, 0, 1, 0, "ncclDevKernel_AllReduce"},
                                 {Engine::kKernel, 1000, 1100, 0, 1, 0, "gemm"}});
  const std::vector<DeviceGaps> devices = ComputeGaps(trace, Min(100));
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_EQ(devices[0].gaps.size(), 1u);
  EXPECT_EQ(devices[0].gaps[0].before.label, "comm ncclDevKernel_AllReduce");
  EXPECT_EQ(devices[0].gaps[0].after.label, "kernel gemm");
}

}  // namespace
}  // namespace gpuroof
