#include "gpuroof/analyses/rank_summary.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddLaunch;
using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

// Device 0, worked by hand (launch calls last 5 ns, AddLaunch):
//   0 kernel a      [0,100)    s1
//   1 collective    [50,150)   s2   compute and comm overlap on [50,100) = 50
//   2 H2D           [200,250)  s3   launched at 100 (call ends 105): queued before the idle
//   3 kernel b      [400,500)  s1   launched at 300 (call ends 305)
//   4 kernel c      [700,800)  s1   no launch known
// Window [0,1000): compute 300, comm 100, overlap 50, exposed comm 50, copy 50, busy 400.
// Idle 600: [150,200) closed by op 2, launched already: waiting 50;
//           [250,400) closed by op 3: host-bound until 305 (55), then waiting (95);
//           [500,700) closed by op 4, no launch: other 200; [800,1000) no op after: other 200.
std::vector<Op> Ops() {
  return {
      {Engine::kKernel, 0, 100, 0, 1, 0, "a"},
      {Engine::kComm, 50, 150, 0, 2, 0, "ncclDevKernel_AllReduce"},
      {Engine::kH2D, 200, 250, 0, 3, 64},
      {Engine::kKernel, 400, 500, 0, 1, 0, "b"},
      {Engine::kKernel, 700, 800, 0, 1, 0, "c"},
  };
}

Trace LaunchedTrace(int blocks) {
  Trace trace = MakeTrace(Ops(), blocks);
  AddLaunch(trace, 2, 1, 100);
  AddLaunch(trace, 3, 1, 300);
  return trace;
}

class RankSummaryBlocks : public ::testing::TestWithParam<int> {};

TEST_P(RankSummaryBlocks, StepFiguresAndIdleBreakdownAsWorkedByHand) {
  Trace trace = LaunchedTrace(GetParam());
  StepFigures figures = ComputeStepFigures(trace, 0, 0, 1000);
  EXPECT_EQ(figures.length_ns(), 1000);
  EXPECT_EQ(figures.compute_busy_ns, 300);
  EXPECT_EQ(figures.comm_busy_ns, 100);
  EXPECT_EQ(figures.overlap_ns, 50);
  EXPECT_EQ(figures.exposed_comm_ns(), 50);
  EXPECT_EQ(figures.copy_busy_ns, 50);
  EXPECT_EQ(figures.busy_ns, 400);
  EXPECT_EQ(figures.idle.host_bound_ns, 55);
  EXPECT_EQ(figures.idle.waiting_ns, 145);
  EXPECT_EQ(figures.idle.other_ns, 400);
}

// Read for `ranks`, a trace has launch ends instead of launch calls: the same breakdown.
TEST_P(RankSummaryBlocks, LaunchEndsGiveTheSameIdleBreakdownAsTheCalls) {
  Trace trace = LaunchedTrace(GetParam());
  trace.launch_ends = LaunchEndsOf(trace.api_calls);
  std::vector<ApiCall>().swap(trace.api_calls);
  ASSERT_EQ(trace.launch_ends.size(), 2u);
  StepFigures figures = ComputeStepFigures(trace, 0, 0, 1000);
  EXPECT_EQ(figures.idle.host_bound_ns, 55);
  EXPECT_EQ(figures.idle.waiting_ns, 145);
  EXPECT_EQ(figures.idle.other_ns, 400);
}

TEST_P(RankSummaryBlocks, OpsAreClippedToTheWindow) {
  Trace trace = LaunchedTrace(GetParam());
  // [75,425): kernel a 25, collective 75 (overlap 25), H2D 50, kernel b 25.
  // Idle [150,200) waiting 50; [250,400): host-bound 55, waiting 95.
  StepFigures figures = ComputeStepFigures(trace, 0, 75, 425);
  EXPECT_EQ(figures.compute_busy_ns, 50);
  EXPECT_EQ(figures.comm_busy_ns, 75);
  EXPECT_EQ(figures.overlap_ns, 25);
  EXPECT_EQ(figures.copy_busy_ns, 50);
  EXPECT_EQ(figures.idle.host_bound_ns, 55);
  EXPECT_EQ(figures.idle.waiting_ns, 145);
  EXPECT_EQ(figures.idle.other_ns, 0);
  EXPECT_EQ(figures.busy_ns, 150);
}

TEST_P(RankSummaryBlocks, StepsAreTheProfilerStepRanges) {
  Trace trace = LaunchedTrace(GetParam());
  AddRange(trace, "ProfilerStep#1", 0, 500);
  AddRange(trace, "ProfilerStep#2", 500, 1000);
  RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.steps.size(), 2u);
  EXPECT_EQ(rank.steps_label, "'ProfilerStep#*' (2 instances)");
  // Step 1 [0,500): compute 200, comm 100, overlap 50, copy 50; idle waiting 145, host 55.
  EXPECT_EQ(rank.steps[0].compute_busy_ns, 200);
  EXPECT_EQ(rank.steps[0].idle.host_bound_ns, 55);
  EXPECT_EQ(rank.steps[0].idle.waiting_ns, 145);
  EXPECT_EQ(rank.steps[0].idle.other_ns, 0);
  // Step 2 [500,1000): compute 100; idle [500,700) and [800,1000), no launch: other 400.
  EXPECT_EQ(rank.steps[1].compute_busy_ns, 100);
  EXPECT_EQ(rank.steps[1].idle.other_ns, 400);
  EXPECT_DOUBLE_EQ(rank.step_median_ns, 500);
  EXPECT_DOUBLE_EQ(rank.step_p95_ns, 500);
  // Means per step: compute (200 + 100) / 2, exposed comm (50 + 0) / 2.
  EXPECT_DOUBLE_EQ(rank.MeanPerStep(&StepFigures::compute_busy_ns), 150);
  EXPECT_DOUBLE_EQ(rank.MeanExposedCommNs(), 25);
  EXPECT_DOUBLE_EQ(rank.MeanIdle(&IdleBreakdown::other_ns), 200);
  ASSERT_EQ(rank.collectives.size(), 1u);
  EXPECT_EQ(rank.collectives[0].step, 0u);
  EXPECT_EQ(rank.collectives[0].order, 0u);
  EXPECT_EQ(rank.CollectiveName(rank.collectives[0]), "ncclDevKernel_AllReduce");
  EXPECT_EQ(rank.collective_names.size(), 1u);
  EXPECT_EQ(rank.collectives[0].arrival_ns, 50);
  EXPECT_FALSE(rank.whole_trace);
  EXPECT_EQ(rank.ops_outside_steps, 0);  // the steps cover [0,1000)
  EXPECT_EQ(rank.busy_outside_steps_ns, 0);
}

// Steps [0,120) and [100,220) overlap (union [0,220)), [500,600) touches kernel b's end, and
// [780,790) lies inside kernel c. Ops wholly outside: kernel b [400,500) only (an op ending where a
// step starts is not in it). Busy: [0,150) [200,250) [400,500) [700,800) = 400; inside the steps:
// [0,150) 150 + [200,220) 20 + [780,790) 10 = 180; outside: 220 (not 400 - 150 - 20 - 20 - 10:
// the overlap of the two first steps counts once).
TEST_P(RankSummaryBlocks, WorkOutsideTheStepsIsCounted) {
  Trace trace = LaunchedTrace(GetParam());
  AddRange(trace, "ProfilerStep#1", 0, 120);
  AddRange(trace, "ProfilerStep#2", 100, 220);
  AddRange(trace, "ProfilerStep#3", 500, 600);
  AddRange(trace, "ProfilerStep#4", 780, 790);
  RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.steps.size(), 4u);
  EXPECT_FALSE(rank.whole_trace);
  EXPECT_EQ(rank.ops_outside_steps, 1);
  EXPECT_EQ(rank.busy_outside_steps_ns, 220);
}

INSTANTIATE_TEST_SUITE_P(Blocks, RankSummaryBlocks, ::testing::Values(1, 3));

TEST(RankSummary, WithoutStepsTheWholeTraceIsOneStep) {
  Trace trace = LaunchedTrace(1);
  RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.steps.size(), 1u);
  EXPECT_EQ(rank.steps_label, "whole trace (no step ranges)");
  EXPECT_TRUE(rank.whole_trace);
  EXPECT_EQ(rank.ops_outside_steps, 0);
  EXPECT_EQ(rank.busy_outside_steps_ns, 0);
  EXPECT_EQ(rank.steps[0].start_ns, 0);
  EXPECT_EQ(rank.steps[0].end_ns, 800);
  EXPECT_DOUBLE_EQ(rank.step_median_ns, 800);
  EXPECT_EQ(rank.steps[0].idle.other_ns, 200);  // [500,700) only: no idle after the last op
}

TEST(RankSummary, AnIterationRangeNamesTheSteps) {
  Trace trace = LaunchedTrace(1);
  AddRange(trace, "train", 0, 300);
  AddRange(trace, "train", 300, 900);
  RankSummaryOptions options;
  options.iteration_range = "train";
  RankSummary rank = SummarizeRank(trace, options);
  ASSERT_EQ(rank.steps.size(), 2u);
  // Lengths 300 and 600: median 450, p95 = 300 + 0.95 * 300 = 585.
  EXPECT_DOUBLE_EQ(rank.step_median_ns, 450);
  EXPECT_DOUBLE_EQ(rank.step_p95_ns, 585);
  options.iteration_range = "nothing";
  EXPECT_THROW(SummarizeRank(trace, options), InputError);
}

// The N of each step's NAME#N, in step order; none when a step's name has no number.
TEST(RankSummary, StepNumbersAreTheInstanceNumbersOfTheStepNames) {
  Trace trace = LaunchedTrace(1);
  AddRange(trace, "ProfilerStep#551", 0, 500);
  AddRange(trace, "ProfilerStep#552", 500, 1000);
  EXPECT_EQ(SummarizeRank(trace, {}).step_numbers, (std::vector<int64_t>{551, 552}));
  Trace unnumbered = LaunchedTrace(1);
  AddRange(unnumbered, "train", 0, 300);
  AddRange(unnumbered, "train", 300, 900);
  RankSummaryOptions options;
  options.iteration_range = "train";
  EXPECT_TRUE(SummarizeRank(unnumbered, options).step_numbers.empty());
  EXPECT_TRUE(SummarizeRank(LaunchedTrace(1), {}).step_numbers.empty());  // whole trace
}

// One capture of a whole node: process 4242 drives device 0, process 777 (another rank, on its
// own clock offset) has steps too. Only 4242's steps are device 0's, and the label says how
// many were left out.
TEST(RankSummary, StepsOfAnotherProcessAreLeftOutAndCounted) {
  Trace trace = LaunchedTrace(1);
  AddRange(trace, "ProfilerStep#1", 0, 500);
  AddRange(trace, "ProfilerStep#2", 500, 1000);
  for (int64_t start : {300, 800}) {
    AddRange(trace, "ProfilerStep#1", start, start + 500);
    for (NvtxRange& range : trace.nvtx_ranges) {
      if (range.start_ns == start && range.end_ns == start + 500) range.process_id = 777;
    }
  }
  RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.steps.size(), 2u);
  EXPECT_EQ(rank.steps[0].start_ns, 0);
  EXPECT_EQ(rank.steps[1].start_ns, 500);
  EXPECT_EQ(rank.steps_label,
            "'ProfilerStep#*' (4 instances); 2 of them left out: another process's, not the one "
            "driving device 0");
}

// Two processes launch onto device 0 and both have steps (a helper process sharing the GPU): the
// two step series overlap, so every op would count in two steps. The steps of process 4242,
// which launched 4 of the device's 5 ops, are kept; process 777's (it launched the H2D copy on
// stream 3) are left out, and the label says so with the counts.
TEST(RankSummary, StepsOfTheProcessLaunchingMostOfTheDevicesOpsAreKept) {
  Trace trace = LaunchedTrace(1);
  for (StreamInfo& stream : trace.streams) {
    if (stream.stream_id == 3) stream.process_id = 777;
  }
  AddRange(trace, "ProfilerStep#1", 0, 500);
  AddRange(trace, "ProfilerStep#2", 500, 1000);
  AddRange(trace, "ProfilerStep#1", 0, 1000);
  for (NvtxRange& range : trace.nvtx_ranges) {
    if (range.start_ns == 0 && range.end_ns == 1000) range.process_id = 777;
  }
  RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.steps.size(), 2u);
  EXPECT_EQ(rank.steps[0].end_ns, 500);
  EXPECT_EQ(rank.steps[1].start_ns, 500);
  // Each op counted once: compute [0,100) + [400,500) in step 1, [700,800) in step 2.
  EXPECT_EQ(rank.steps[0].compute_busy_ns + rank.steps[1].compute_busy_ns, 300);
  EXPECT_EQ(rank.steps_label,
            "'ProfilerStep#*' (3 instances); 1 of them left out: 2 processes launched onto device "
            "0 and have steps; those of process 4242 are kept, which launched 4 of its 5 ops");
}

// Two ops end the idle interval [100, 400) together: one launched by a call ending at 155, one by
// a call ending at 305. The earliest launch decides (host-bound 55, waiting 245) whichever of
// them the file lists first.
TEST(RankSummary, OpsStartingTogetherSplitTheIdleTheSameWayInAnyOrder) {
  for (bool late_first : {false, true}) {
    SCOPED_TRACE(late_first);
    std::vector<Op> ops = {{Engine::kKernel, 0, 100, 0, 1, 0, "a"},
                           {Engine::kKernel, 400, 500, 0, 1, 0, "late"},
                           {Engine::kKernel, 400, 450, 0, 2, 0, "early"}};
    if (!late_first) std::swap(ops[1], ops[2]);
    Trace trace = MakeTrace(ops);
    AddLaunch(trace, late_first ? 1 : 2, 1, 300);
    AddLaunch(trace, late_first ? 2 : 1, 1, 150);
    const RankSummary rank = SummarizeRank(trace, {});
    ASSERT_EQ(rank.steps.size(), 1u);
    EXPECT_EQ(rank.steps[0].idle.host_bound_ns, 55);
    EXPECT_EQ(rank.steps[0].idle.waiting_ns, 245);
  }
}

// Collectives starting together are ordered by name (then stream), not by the file: the order
// is part of an instance's identity across ranks.
TEST(RankSummary, CollectivesStartingTogetherAreOrderedByName) {
  for (bool b_first : {true, false}) {
    SCOPED_TRACE(b_first);
    std::vector<Op> ops = {{Engine::kComm, 100, 200, 0, 2, 0, "ncclKernel_B"},
                           {Engine::kComm, 100, 150, 0, 3, 0, "ncclKernel_A"}};
    if (!b_first) std::swap(ops[0], ops[1]);
    const RankSummary rank = SummarizeRank(MakeTrace(ops), {});
    ASSERT_EQ(rank.collectives.size(), 2u);
    EXPECT_EQ(rank.collectives[0].order, 0u);
    EXPECT_EQ(rank.collective_names[rank.collectives[0].name_id], "ncclKernel_A");
    EXPECT_EQ(rank.collective_names[rank.collectives[1].name_id], "ncclKernel_B");
  }
}

// A GPU running behind its host: step 1's all-reduce is launched at 900 (inside step 1's CPU
// time [0, 1000)) but starts on the GPU at 1050, after the step ended. It is step 1's collective
// (arrival 1050 after the step's start), as on a rank that keeps up; placed by its GPU start it
// would be matched against step 2's first collective on the other ranks. A collective whose
// launch the trace lacks goes by its GPU start (step 2's, arrival 100).
TEST(RankSummary, CollectivesBelongToTheStepThatLaunchedThem) {
  std::vector<Op> ops = {{Engine::kComm, 1050, 1200, 0, 2, 0, "ncclKernel_AllReduce"},
                         {Engine::kComm, 1100, 1150, 0, 3, 0, "ncclKernel_AllGather"}};
  Trace trace = MakeTrace(ops);
  AddLaunch(trace, 0, 1, 900);
  AddRange(trace, "ProfilerStep#1", 0, 1000);
  AddRange(trace, "ProfilerStep#2", 1000, 2000);
  const RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.collectives.size(), 2u);
  EXPECT_EQ(rank.collectives[0], (CollectiveArrival{0, 0, 0, 1050}));
  EXPECT_EQ(rank.CollectiveName(rank.collectives[0]), "ncclKernel_AllReduce");
  EXPECT_EQ(rank.collectives[1].step, 1u);
  EXPECT_EQ(rank.collectives[1].arrival_ns, 100);
  EXPECT_EQ(rank.CollectiveName(rank.collectives[1]), "ncclKernel_AllGather");
}

// A capture of CUDA activity only: the steps are GPU-timeline ranges spanning each step's work,
// [0, 300) and [400, 800). They are not the iterations: the 100 ns between them is in no figure,
// and the label says so with the length.
TEST(RankSummary, GpuTimelineStepsSayTheTimeBetweenThem) {
  Trace trace = LaunchedTrace(1);
  AddRange(trace, "ProfilerStep#1", 0, 300);
  AddRange(trace, "ProfilerStep#2", 400, 800);
  for (NvtxRange& range : trace.nvtx_ranges) {
    range.on_gpu = true;
    range.device_id = 0;
  }
  const RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.steps.size(), 2u);
  EXPECT_EQ(rank.steps[0].end_ns, 300);
  EXPECT_EQ(rank.steps[1].end_ns, 800);
  EXPECT_NE(rank.steps_label.find("a step is the span of its GPU work, not the iteration, and the "
                                  "100 ns between the steps is in no figure"),
            std::string::npos)
      << rank.steps_label;
}

// A collective launched between two CPU steps ([0, 900) and [950, 1900); its call ends at 910,
// in no step) is placed by its GPU start, as without a launch: step 2's, arrival 1100 - 950 =
// 150. None is lost from the skew.
TEST(RankSummary, ACollectiveLaunchedBetweenStepsGoesByItsGpuStart) {
  std::vector<Op> ops = {{Engine::kComm, 1100, 1200, 0, 2, 0, "ncclKernel_AllReduce"}};
  Trace trace = MakeTrace(ops);
  AddLaunch(trace, 0, 1, 905);
  AddRange(trace, "ProfilerStep#1", 0, 900);
  AddRange(trace, "ProfilerStep#2", 950, 1900);
  const RankSummary rank = SummarizeRank(trace, {});
  ASSERT_EQ(rank.collectives.size(), 1u);
  EXPECT_EQ(rank.collectives[0].step, 1u);
  EXPECT_EQ(rank.collectives[0].arrival_ns, 150);
}

// Steps of a process that launched nothing onto the device are all that the trace has: they are
// used (a format may not say which process launched the GPU work), and the label says so.
TEST(RankSummary, StepsOfNoProcessOfTheDeviceAreUsedAndSaid) {
  Trace trace = LaunchedTrace(1);
  AddRange(trace, "ProfilerStep#1", 0, 500);
  AddRange(trace, "ProfilerStep#2", 500, 1000);
  for (NvtxRange& range : trace.nvtx_ranges)
    range.process_id = 777;
  const RankSummary rank = SummarizeRank(trace, {});
  EXPECT_EQ(rank.steps.size(), 2u);
  EXPECT_EQ(rank.steps_label,
            "'ProfilerStep#*' (2 instances); none of them is of a process that launched onto "
            "device 0 (the trace may not say which did): all are used");
}

// Device 1 has as many ops as device 0: the lowest id is analysed, and the tie is counted (said
// by `ranks`), not hidden.
TEST(RankSummary, ATieForTheBusiestDeviceIsCounted) {
  std::vector<Op> ops = Ops();
  for (const Op& op : Ops())
    ops.push_back({op.engine, op.start_ns, op.end_ns, 1, op.stream, op.bytes, op.name});
  RankSummary rank = SummarizeRank(MakeTrace(ops), {});
  EXPECT_EQ(rank.device_id, 0);
  EXPECT_EQ(rank.tied_devices, 1u);
  ops.push_back({Engine::kKernel, 900, 950, 1, 1, 0, "one more"});
  rank = SummarizeRank(MakeTrace(ops), {});
  EXPECT_EQ(rank.device_id, 1);
  EXPECT_EQ(rank.tied_devices, 0u);
}

TEST(RankSummary, TheBusiestDeviceIsAnalysedAndTheOthersCounted) {
  std::vector<Op> ops = Ops();
  ops.push_back({Engine::kKernel, 0, 10, 1, 1, 0, "elsewhere"});
  RankSummary rank = SummarizeRank(MakeTrace(ops), {});
  EXPECT_EQ(rank.device_id, 0);
  EXPECT_EQ(rank.other_devices, 1u);
  EXPECT_EQ(rank.other_device_ops, 1);
}

TEST(RankSummary, RankAndWorldSizeComeFromTheNeutralMetadata) {
  Trace trace = MakeTrace(Ops());
  trace.metadata["distributed_rank"] = "3";
  trace.metadata["distributed_world_size"] = "8";
  trace.metadata["distributed_rank_origin"] = "distributedInfo.rank";
  RankSummary rank = SummarizeRank(trace, {});
  EXPECT_EQ(rank.rank, 3);
  EXPECT_EQ(rank.world_size, 8);
  EXPECT_EQ(rank.rank_origin, "distributedInfo.rank");
  trace.metadata["distributed_rank"] = "three";
  EXPECT_FALSE(RankIdentityOf(trace).rank.has_value());
}

// One nsys capture of a node's workers: the captured environment is the launched command's, so
// with two processes running GPU work its rank is no one worker's, and it is left out, said.
TEST(RankSummary, AnEnvironmentRankOfSeveralGpuProcessesIsLeftOutAndSaid) {
  Trace trace = MakeTrace(Ops());
  trace.metadata["distributed_rank"] = "1";
  trace.metadata["distributed_world_size"] = "2";
  trace.metadata["distributed_rank_origin"] = "SLURM_PROCID";
  EXPECT_EQ(SummarizeRank(trace, {}).rank, 1);  // one process: its own environment
  trace.streams.push_back(StreamInfo{777, 1, 1, 9});
  trace.blocks[0].stream.back() = static_cast<uint32_t>(trace.streams.size() - 1);
  const RankSummary rank = SummarizeRank(trace, {});
  EXPECT_FALSE(rank.rank.has_value());
  EXPECT_FALSE(rank.world_size.has_value());
  EXPECT_EQ(rank.rank_left_out,
            "the captured environment names rank 1 (SLURM_PROCID), but 2 processes ran GPU work "
            "in this trace: it is the profiled command's environment, not one worker's");
}

TEST(RankSummary, ATraceWithoutGpuOpsIsAnInputError) {
  Trace trace = MakeTrace({});
  EXPECT_THROW(SummarizeRank(trace, {}), InputError);
}

}  // namespace
}  // namespace gpuroof
