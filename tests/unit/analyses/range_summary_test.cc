#include "gpuroof/analyses/range_summary.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddLaunch;
using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

// Worked by hand. Ops (correlation = index + 1):
//   0 kernel a [1000,1100) dev0     launched on thread 1 at 100   -> step #1
//   1 H2D      [900,1000)  dev0     launched on thread 1 at 50    -> step #1
//   2 kernel b [1100,1300) dev0     launched on thread 1 at 200   -> step #1
//   3 kernel c [2000,2050) dev0     launched on thread 1 at 1600  -> step #2
//   4 D2H      [2050,2150) dev0     launched on thread 1 at 1700  -> step #2
//   5 kernel d [3000,3100) dev1     launched on thread 2 at 300   -> other
// Ranges: step [0,500) and [1500,1800) on thread 1; other [0,5000) on thread 2.
// The GPU work runs after the CPU ranges closed: only launch correlation can attribute it.
Trace Example(int blocks = 1) {
  Trace trace = MakeTrace(
      {
          {Engine::kKernel, 1000, 1100, 0, 1, 0, "a"},
          {Engine::kH2D, 900, 1000, 0, 2, 100},
          {Engine::kKernel, 1100, 1300, 0, 1, 0, "b"},
          {Engine::kKernel, 2000, 2050, 0, 1, 0, "c"},
          {Engine::kD2H, 2050, 2150, 0, 2, 40},
          {Engine::kKernel, 3000, 3100, 1, 1, 0, "d"},
      },
      blocks);
  AddRange(trace, "step", 0, 500, 1);
  AddRange(trace, "step", 1500, 1800, 1);
  AddRange(trace, "other", 0, 5000, 2);
  const int64_t launch_times[] = {100, 50, 200, 1600, 1700, 300};
  for (size_t i = 0; i < 6; ++i)
    AddLaunch(trace, i, i == 5 ? 2 : 1, launch_times[i]);
  return trace;
}

const RangeEngineWork& Work(const RangeInstanceLoad& row, Engine engine) {
  return row.engines[static_cast<size_t>(EngineIndex(engine))];
}

TEST(RangeAttributionTest, LaunchCorrelationTiesOpsToTheRangeOpenOnTheLaunchingThread) {
  for (int blocks : {1, 3}) {
    const Trace trace = Example(blocks);
    const std::vector<const NvtxRange*> steps = FindNvtxRanges(trace, "step");
    const RangeAttribution attribution = AttributeGpuWork(trace, steps, RangeScope::kThread);
    EXPECT_EQ(attribution.method, AttributionMethod::kLaunchCorrelation);
    EXPECT_TRUE(attribution.method_note.empty());
    ASSERT_EQ(attribution.instances.size(), 2u);
    // Sorted by start: H2D (900), a (1000), b (1100).
    ASSERT_EQ(attribution.instances[0].ops.size(), 3u);
    const auto start = [&](OpRef op) { return trace.blocks[op.block].start_ns[op.index]; };
    EXPECT_EQ(start(attribution.instances[0].ops[0]), 900);
    EXPECT_EQ(start(attribution.instances[0].ops[1]), 1000);
    EXPECT_EQ(start(attribution.instances[0].ops[2]), 1100);
    ASSERT_EQ(attribution.instances[1].ops.size(), 2u);
    EXPECT_EQ(start(attribution.instances[1].ops[0]), 2000);
  }
}

// The half-open rule `start <= call < end`: a zero-length range holds no launch, not even the one
// made at its instant (op a, launched at 100); one nanosecond longer, it holds that launch.
TEST(RangeAttributionTest, AZeroLengthRangeGetsNoLaunchMadeAtItsInstant) {
  Trace trace = Example();
  AddRange(trace, "zero", 100, 100, 1);
  AddRange(trace, "one", 100, 101, 1);
  for (const char* name : {"zero", "one"}) {
    const std::vector<const NvtxRange*> ranges = FindNvtxRanges(trace, name);
    for (RangeScope scope : {RangeScope::kThread, RangeScope::kProcess}) {
      const RangeAttribution attribution = AttributeGpuWork(trace, ranges, scope);
      ASSERT_EQ(attribution.instances.size(), 1u);
      EXPECT_EQ(attribution.instances[0].ops.size(), std::string_view(name) == "zero" ? 0u : 1u)
          << name;
    }
  }
}

// `ranges --name X` where X may be among the ranges skipped for having no end: the error says so.
TEST(RangeAttributionTest, AnUnknownNameMentionsRangesSkippedWithoutEnd) {
  Trace trace = Example();
  trace.diagnostics.Skip("NVTX_EVENTS", "range without end", Severity::kInfo, 2);
  try {
    SelectRanges(trace, "unterminated", "--name");
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("2 range(s) without an end were skipped"),
              std::string::npos)
        << error.what();
  }
}

TEST(RangeAttributionTest, InstanceLoadsPerEngine) {
  const Trace trace = Example();
  const std::vector<const NvtxRange*> steps = FindNvtxRanges(trace, "step");
  const std::vector<RangeInstanceLoad> rows =
      ComputeInstanceLoads(trace, AttributeGpuWork(trace, steps, RangeScope::kThread));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].ordinal, 1);
  EXPECT_EQ(rows[0].device_id, 0);
  EXPECT_EQ(rows[0].gpu_ops, 3);
  EXPECT_EQ(Work(rows[0], Engine::kKernel).busy_ns, 300);
  EXPECT_EQ(Work(rows[0], Engine::kH2D).busy_ns, 100);
  EXPECT_EQ(Work(rows[0], Engine::kH2D).bytes, 100u);
  EXPECT_EQ(rows[0].gpu_span_ns(), 400);
  EXPECT_EQ(rows[0].any_busy_ns, 400);
  EXPECT_EQ(rows[0].bottleneck, Engine::kKernel);
  EXPECT_EQ(rows[0].roofline_ns, 300);
  EXPECT_EQ(rows[1].ordinal, 2);
  EXPECT_EQ(Work(rows[1], Engine::kKernel).busy_ns, 50);
  EXPECT_EQ(Work(rows[1], Engine::kD2H).busy_ns, 100);
  EXPECT_EQ(rows[1].bottleneck, Engine::kD2H);
  EXPECT_EQ(rows[1].roofline_ns, 100);
}

TEST(RangeAttributionTest, WithoutApiCallsFallsBackToTimeOverlapAndSaysSo) {
  Trace trace = Example();
  trace.api_calls.clear();
  AddRange(trace, "window", 950, 1050, 1);
  const std::vector<const NvtxRange*> window = FindNvtxRanges(trace, "window");
  const RangeAttribution attribution = AttributeGpuWork(trace, window, RangeScope::kThread);
  EXPECT_EQ(attribution.method, AttributionMethod::kTimeOverlap);
  EXPECT_NE(attribution.method_note.find("no CUDA API calls"), std::string::npos);
  const std::vector<RangeInstanceLoad> rows = ComputeInstanceLoads(trace, attribution);
  ASSERT_EQ(rows.size(), 1u);
  // H2D [900,1000) and kernel a [1000,1100) clipped to [950,1050): 50 ns each.
  EXPECT_EQ(Work(rows[0], Engine::kH2D).busy_ns, 50);
  EXPECT_EQ(Work(rows[0], Engine::kKernel).busy_ns, 50);
  EXPECT_EQ(rows[0].gpu_start_ns, 950);
  EXPECT_EQ(rows[0].gpu_end_ns, 1050);
}

// Two ranks in one nsys capture without API calls: rank 1 (process 1111) drives device 0, rank
// 2 (2222) device 1, their steps overlap in time. An op goes only to its own process's steps.
// Ops whose process no range has (Kineto GPU ops) still go to every overlapping range, said.
TEST(RangeAttributionTest, TimeOverlapKeepsTheProcessesApartWhenTheOpsSayTheirs) {
  Trace trace = MakeTrace({{Engine::kKernel, 100, 200, 0}, {Engine::kKernel, 150, 250, 1}});
  for (StreamInfo& stream : trace.streams)
    stream.process_id = stream.device_id == 0 ? 1111 : 2222;
  AddRange(trace, "step", 0, 1000, 1);
  AddRange(trace, "step", 50, 1050, 2);
  for (NvtxRange& range : trace.nvtx_ranges)
    range.process_id = range.thread_id == 1 ? 1111 : 2222;
  const std::vector<const NvtxRange*> steps = FindNvtxRanges(trace, "step");
  RangeAttribution attribution = AttributeGpuWork(trace, steps, RangeScope::kProcess);
  EXPECT_EQ(attribution.method, AttributionMethod::kTimeOverlap);
  ASSERT_EQ(attribution.instances.size(), 2u);
  ASSERT_EQ(attribution.instances[0].ops.size(), 1u);
  EXPECT_EQ(trace.blocks[0].start_ns[attribution.instances[0].ops[0].index], 100);
  ASSERT_EQ(attribution.instances[1].ops.size(), 1u);
  EXPECT_EQ(trace.blocks[0].start_ns[attribution.instances[1].ops[0].index], 150);
  EXPECT_EQ(attribution.method_note.find("do not say"), std::string::npos);

  for (StreamInfo& stream : trace.streams)
    stream.process_id = 0;
  attribution = AttributeGpuWork(trace, steps, RangeScope::kProcess);
  EXPECT_EQ(attribution.instances[0].ops.size(), 2u);
  EXPECT_EQ(attribution.instances[1].ops.size(), 2u);
  EXPECT_NE(attribution.method_note.find("2 op(s) do not say which process launched them"),
            std::string::npos)
      << attribution.method_note;
}

// Per trace, not per range name: process 1111 launched the op and has a range ("z"), so the
// ranges "x" and "y" of processes 2222 and 3333 get none of its work, though no "x" or "y" is
// of its process. An op of a process with no range at all goes to every process's, counted.
TEST(RangeAttributionTest, TimeOverlapKeepsAnOpToItsProcessWhenAnyRangeIsOfIt) {
  Trace trace = MakeTrace({{Engine::kKernel, 100, 200, 0}});
  for (StreamInfo& stream : trace.streams)
    stream.process_id = 1111;
  AddRange(trace, "x", 0, 1000, 2);
  AddRange(trace, "y", 0, 1000, 3);
  AddRange(trace, "z", 2000, 2100, 1);
  const auto set_processes = [&] {
    for (NvtxRange& range : trace.nvtx_ranges)
      range.process_id = range.thread_id == 1 ? 1111 : range.thread_id == 2 ? 2222 : 3333;
  };
  set_processes();
  RangeSummary summary = SummarizeRanges(trace, {});
  ASSERT_EQ(summary.groups.size(), 3u);
  for (const RangeGroup& group : summary.groups)
    EXPECT_EQ(group.gpu_ops, 0) << group.name;
  EXPECT_EQ(summary.method_note.find("do not say"), std::string::npos) << summary.method_note;

  // Without "z" the op's process has no range: both "x" and "y" take it, and one note counts
  // it once over both names.
  std::erase_if(trace.nvtx_ranges, [&](const NvtxRange& r) { return r.thread_id == 1; });
  summary = SummarizeRanges(trace, {});
  ASSERT_EQ(summary.groups.size(), 2u);
  for (const RangeGroup& group : summary.groups)
    EXPECT_EQ(group.gpu_ops, 1) << group.name;
  EXPECT_NE(summary.method_note.find("1 op(s) do not say which process launched them, or are of "
                                     "a process with no CPU range"),
            std::string::npos)
      << summary.method_note;
  EXPECT_NE(summary.method_note.find("(2 processes have CPU ranges)"), std::string::npos);
}

TEST(RangeAttributionTest, GpuTimelineRangesUseTimeOverlapOnTheirDevice) {
  Trace trace = Example();
  AddRange(trace, "gpu step", 1050, 2025);
  for (NvtxRange& range : trace.nvtx_ranges) {
    if (trace.strings.Get(range.name) == "gpu step") {
      range.on_gpu = true;
      range.device_id = 0;
    }
  }
  const std::vector<const NvtxRange*> ranges = FindNvtxRanges(trace, "gpu step");
  const RangeAttribution attribution = AttributeGpuWork(trace, ranges, RangeScope::kThread);
  const std::vector<RangeInstanceLoad> rows = ComputeInstanceLoads(trace, attribution);
  ASSERT_EQ(rows.size(), 1u);
  // a [1050,1100) 50 + b [1100,1300) 200 + c [2000,2025) 25; dev1's kernel is not counted.
  EXPECT_EQ(Work(rows[0], Engine::kKernel).busy_ns, 275);
  EXPECT_EQ(Work(rows[0], Engine::kKernel).ops, 3);
  EXPECT_EQ(rows[0].device_id, 0);
}

// A zero-length op at a GPU range's start belongs to it (the window rule: edges included).
TEST(RangeAttributionTest, AZeroLengthOpAtAnEdgeBelongsToTheRange) {
  Trace trace = MakeTrace({{Engine::kKernel, 1000, 1000, 0, 1, 0, "empty"},
                           {Engine::kKernel, 1000, 1100, 0, 1, 0, "a"}});
  AddRange(trace, "gpu step", 1000, 1100);
  trace.nvtx_ranges[0].on_gpu = true;
  trace.nvtx_ranges[0].device_id = 0;
  const RangeAttribution attribution =
      AttributeGpuWork(trace, FindNvtxRanges(trace, "gpu step"), RangeScope::kThread);
  ASSERT_EQ(attribution.instances.size(), 1u);
  EXPECT_EQ(attribution.instances[0].ops.size(), 2u);
}

// Op 4 (the D2H) lost its correlation id: no call launched it as far as the trace says. It is
// counted with the unmatched, not dropped without a word.
// Back-to-back steps [0, 1000) and [1000, 2000): a launch at exactly 1000 is the second step's
// only (half-open instances), never both.
TEST(RangeAttributionTest, ALaunchAtTheBoundaryOfTouchingInstancesBelongsToTheLaterOne) {
  Trace trace = MakeTrace({{Engine::kKernel, 5000, 5100}, {Engine::kKernel, 5100, 5200}});
  AddRange(trace, "step", 0, 1000, 1);
  AddRange(trace, "step", 1000, 2000, 1);
  AddLaunch(trace, 0, 1, 100);
  AddLaunch(trace, 1, 1, 1000);
  const std::vector<const NvtxRange*> steps = FindNvtxRanges(trace, "step");
  for (RangeScope scope : {RangeScope::kThread, RangeScope::kProcess}) {
    const RangeAttribution attribution = AttributeGpuWork(trace, steps, scope);
    ASSERT_EQ(attribution.instances.size(), 2u);
    EXPECT_EQ(attribution.instances[0].ops.size(), 1u);
    EXPECT_EQ(attribution.instances[1].ops.size(), 1u);
  }
}

// The last step made 3 launches; only one GPU op of them is in the trace (the capture ended
// first). Its other 2 launch calls are counted on the step, and said; a launch of a host function
// and a synchronisation are not launches of GPU work.
TEST(RangeAttributionTest, LaunchCallsWithoutTheirGpuOpAreCountedPerInstance) {
  Trace trace = MakeTrace({{Engine::kKernel, 1100, 1200}, {Engine::kKernel, 2100, 2200}});
  AddRange(trace, "ProfilerStep#1", 0, 1000, 1);
  AddRange(trace, "ProfilerStep#2", 1000, 2000, 1);
  AddLaunch(trace, 0, 1, 100);
  AddLaunch(trace, 1, 1, 1100);
  AddLaunch(trace, 2, 1, 1200);  // correlation 3: no op
  AddLaunch(trace, 3, 2, 1300);  // correlation 4: no op, another thread
  AddLaunch(trace, 4, 1, 1400);  // cudaLaunchHostFunc
  AddLaunch(trace, 5, 1, 1500);  // cudaStreamSynchronize
  const char* names[] = {"cudaLaunchKernel", "cudaLaunchKernel",   "cuLaunchKernelEx",
                         "cudaMemcpyAsync",  "cudaLaunchHostFunc", "cudaStreamSynchronize"};
  for (ApiCall& call : trace.api_calls)
    call.name = trace.strings.Intern(names[call.correlation - 1]);
  const std::vector<const NvtxRange*> steps = FindNvtxRanges(trace, "ProfilerStep");
  const RangeAttribution attribution = AttributeGpuWork(trace, steps, RangeScope::kProcess);
  ASSERT_EQ(attribution.instances.size(), 2u);
  EXPECT_EQ(attribution.instances[0].launches_without_op, 0);
  EXPECT_EQ(attribution.instances[1].launches_without_op, 2);
  EXPECT_EQ(LaunchesWithoutOpNote(trace, attribution, "'ProfilerStep#*'", "counted"),
            "1 of 2 instance(s) of range 'ProfilerStep#*' made 2 launch call(s) whose GPU op is "
            "not in the trace (ProfilerStep#2 (instance 2): 2): their GPU work is incomplete (the "
            "capture ended before those records, or the reader skipped them), yet they are "
            "counted");
  // The thread rule counts the range's own thread's launches only.
  EXPECT_EQ(AttributeGpuWork(trace, steps, RangeScope::kThread).instances[1].launches_without_op,
            1);
  // The Kineto reader keeps such calls apart: counted the same way.
  Trace kineto = trace;
  kineto.calls_without_op = {kineto.api_calls[2]};
  kineto.api_calls.resize(2);
  EXPECT_EQ(AttributeGpuWork(kineto, steps, RangeScope::kProcess).instances[1].launches_without_op,
            1);
}

TEST(RangeAttributionTest, OpsWithoutACorrelationIdAreCountedAsUnmatched) {
  Trace trace = Example();
  for (ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.engine[i] == Engine::kD2H) block.correlation[i] = 0;
    }
  }
  const RangeAttribution attribution =
      AttributeGpuWork(trace, FindNvtxRanges(trace, "step"), RangeScope::kThread);
  EXPECT_EQ(attribution.unmatched_ops, 1);
  EXPECT_EQ(attribution.instances[1].ops.size(), 1u);  // kernel c only
}

// Without API calls (time overlap), the window of two instances [950,1050) and [2000,2040)
// holds H2D, kernel a and kernel c; kernel b [1100,1300) runs between them and does not count.
TEST(RangeWorkWindowTest, TimeOverlapInstancesLeaveOutTheOpsBetweenThem) {
  Trace trace = Example();
  trace.api_calls.clear();
  AddRange(trace, "win", 950, 1050, 1);
  AddRange(trace, "win", 2000, 2040, 1);
  const RangeSelection selection = SelectRanges(trace, "win@*", "--window");
  const RangeAttribution attribution =
      AttributeGpuWork(trace, selection.ranges, RangeScope::kProcess);
  const Window window = RangeWorkWindow(trace, selection, attribution, 0);
  EXPECT_EQ(window.start_ns, 950);
  EXPECT_EQ(window.end_ns, 2040);
  std::vector<std::string> counted;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (trace.streams[block.stream[i]].device_id != 0) continue;
      if (!OpCountsInWindow(trace, block, i, window)) continue;
      counted.push_back(
          block.engine[i] == Engine::kH2D
              ? "H2D"
              : std::string(trace.strings.Get(trace.signatures[block.signature[i]].name)));
    }
  }
  std::sort(counted.begin(), counted.end());
  EXPECT_EQ(counted, (std::vector<std::string>{"H2D", "a", "c"}));
  EXPECT_NE(window.note.find("ops running between the instances do not count"), std::string::npos);
}

// An op from inside the first instance up to the start of the second belongs to the first; one
// between them to neither; GPU-timeline instances on device 0 count device 1's ops by time.
TEST(RangeWorkWindowTest, OpsAreCheckedAgainstEveryInstanceTheyReach) {
  Trace trace = MakeTrace({{Engine::kKernel, 5, 20, 1, 1, 0, "reaches"},
                           {Engine::kKernel, 12, 18, 1, 1, 0, "between"},
                           {Engine::kKernel, 20, 20, 1, 1, 0, "at the second's start"}});
  AddRange(trace, "win", 0, 10, 1);
  AddRange(trace, "win", 20, 30, 1);
  for (NvtxRange& range : trace.nvtx_ranges) {
    range.on_gpu = true;
    range.device_id = 0;
  }
  const RangeSelection selection = SelectRanges(trace, "win@*", "--window");
  const Window window = RangeWorkWindow(
      trace, selection, AttributeGpuWork(trace, selection.ranges, RangeScope::kProcess), 1);
  std::vector<std::string> counted;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (OpCountsInWindow(trace, block, i, window))
        counted.emplace_back(trace.strings.Get(trace.signatures[block.signature[i]].name));
    }
  }
  std::sort(counted.begin(), counted.end());
  EXPECT_EQ(counted, (std::vector<std::string>{"at the second's start", "reaches"}));
}

TEST(RangeSummaryTest, GroupsPerNameWithCpuStatisticsAndPerInstanceRoofline) {
  const Trace trace = Example();
  const RangeSummary summary = SummarizeRanges(trace, {});
  ASSERT_EQ(summary.groups.size(), 2u);
  // "other" (5000 ns of CPU time) sorts before "step" (800 ns).
  const RangeGroup& other = summary.groups[0];
  EXPECT_EQ(other.name, "other");
  EXPECT_EQ(other.gpu_ops, 1);
  const RangeGroup& step = summary.groups[1];
  EXPECT_EQ(step.name, "step");
  EXPECT_EQ(step.cpu.count, 2);
  EXPECT_EQ(step.cpu.total_ns, 800);
  EXPECT_DOUBLE_EQ(step.cpu.median_ns, 400);
  EXPECT_EQ(step.gpu_ops, 5);
  EXPECT_EQ(step.instances_with_work, 2);
  EXPECT_EQ(step.engines[static_cast<size_t>(EngineIndex(Engine::kKernel))].busy_ns, 350);
  EXPECT_EQ(step.engines[static_cast<size_t>(EngineIndex(Engine::kD2H))].busy_ns, 100);
  EXPECT_EQ(step.bottleneck, Engine::kKernel);
  EXPECT_DOUBLE_EQ(step.roofline_ns_per_instance, 175);
  EXPECT_TRUE(step.instance_rows.empty());
}

// Two devices busy side by side in one step bound it each on its own: the roofline per instance
// takes each instance's busiest device, while the engine sums add the devices.
TEST(RangeSummaryTest, DevicesSideBySideBoundAnInstanceEachOnItsOwn) {
  Trace trace = MakeTrace({
      {Engine::kKernel, 1000, 1200, 0, 1, 0, "a"},
      {Engine::kKernel, 1000, 1100, 1, 1, 0, "b"},
      {Engine::kKernel, 2000, 2100, 0, 1, 0, "c"},
  });
  AddRange(trace, "step", 0, 500, 1);
  AddRange(trace, "step", 1500, 1800, 1);
  const int64_t launch_times[] = {100, 200, 1600};
  for (size_t i = 0; i < 3; ++i)
    AddLaunch(trace, i, 1, launch_times[i]);
  const RangeSummary summary = SummarizeRanges(trace, {});
  ASSERT_EQ(summary.groups.size(), 1u);
  const RangeGroup& step = summary.groups[0];
  EXPECT_EQ(step.devices, 2);
  EXPECT_EQ(step.engines[static_cast<size_t>(EngineIndex(Engine::kKernel))].busy_ns, 400);
  EXPECT_EQ(step.bottleneck, Engine::kKernel);
  EXPECT_DOUBLE_EQ(step.roofline_ns_per_instance, 150);  // (200 + 100) / 2, not 400 / 2
}

TEST(RangeSummaryTest, NamedRangeKeepsInstanceRows) {
  const Trace trace = Example();
  RangeSummaryOptions options;
  options.name = "step";
  const RangeSummary summary = SummarizeRanges(trace, options);
  ASSERT_EQ(summary.groups.size(), 1u);
  // A named range is an iteration range: kernel d, launched on thread 2 at 300 while step #1
  // was open on thread 1, is step #1's work too (on device 1: a row of its own).
  EXPECT_EQ(summary.groups[0].scope, RangeScope::kProcess);
  ASSERT_EQ(summary.groups[0].instance_rows.size(), 3u);
  EXPECT_EQ(summary.groups[0].instance_rows[1].device_id, 1);
  EXPECT_EQ(summary.groups[0].instance_rows[1].gpu_ops, 1);
  EXPECT_EQ(summary.resolved, "'step' (2 instances)");
  // --attribute thread keeps nsys's projection, and counts what it leaves out.
  options.scope = RangeScope::kThread;
  const RangeSummary by_thread = SummarizeRanges(trace, options);
  EXPECT_EQ(by_thread.groups[0].instance_rows.size(), 2u);
  EXPECT_EQ(by_thread.groups[0].other_thread_ops, 1);
  // NAME@N shows instance N with its own number, not 1.
  options.name = "step@2";
  const RangeSummary second = SummarizeRanges(trace, options);
  ASSERT_EQ(second.groups.size(), 1u);
  ASSERT_FALSE(second.groups[0].instance_rows.empty());
  EXPECT_EQ(second.groups[0].instance_rows[0].ordinal, 2);
}

// Kineto numbers its steps (ProfilerStep#1, #2, ...): the family is one group, and "NAME#*" or
// plain "NAME" find all of it, while the full name finds one step.
TEST(RangeSummaryTest, NumberedFamilyIsOneGroup) {
  Trace trace = Example();
  AddRange(trace, "ProfilerStep#1", 0, 400, 1);
  AddRange(trace, "ProfilerStep#2", 1500, 1900, 1);
  EXPECT_EQ(FindNvtxRanges(trace, "ProfilerStep#*").size(), 2u);
  EXPECT_EQ(FindNvtxRanges(trace, "ProfilerStep").size(), 2u);
  EXPECT_EQ(FindNvtxRanges(trace, "ProfilerStep#2").size(), 1u);
  EXPECT_EQ(NumberedFamily("ProfilerStep#12"), "ProfilerStep");
  EXPECT_EQ(NumberedFamily("step#"), "");
  EXPECT_EQ(NumberedFamily("step#1a"), "");
  const RangeSummary summary = SummarizeRanges(trace, {});
  const auto family = std::find_if(summary.groups.begin(), summary.groups.end(),
                                   [](const RangeGroup& g) { return g.name == "ProfilerStep#*"; });
  ASSERT_NE(family, summary.groups.end());
  EXPECT_EQ(family->cpu.count, 2);
  // A family is an iteration range (process scope): the launches of "step", 3 ops in the first
  // step and 2 in the second, plus kernel d, launched on thread 2 at 300 during step #1.
  EXPECT_EQ(family->scope, RangeScope::kProcess);
  EXPECT_EQ(family->gpu_ops, 6);
  // Plain names keep the thread rule in the overview; "other" (thread 2) got kernel d only.
  const auto other = std::find_if(summary.groups.begin(), summary.groups.end(),
                                  [](const RangeGroup& g) { return g.name == "other"; });
  ASSERT_NE(other, summary.groups.end());
  EXPECT_EQ(other->scope, RangeScope::kThread);
  EXPECT_EQ(other->gpu_ops, 1);
  RangeSummaryOptions options;
  options.name = "ProfilerStep";
  const RangeSummary named = SummarizeRanges(trace, options);
  ASSERT_EQ(named.groups.size(), 1u);
  EXPECT_EQ(named.groups[0].name, "ProfilerStep");
  EXPECT_EQ(named.groups[0].instance_rows.size(), 3u);  // step #1 on devices 0 and 1, step #2
}

// An outer `forward` with two nested ones, twice: 4 of the 6 instances lie inside another.
TEST(RangeSummaryTest, CountsInstancesNestedInAnotherOfTheSameName) {
  Trace trace = MakeTrace({{Engine::kKernel, 5000, 5100}, {Engine::kKernel, 5100, 5200}});
  for (int64_t t : {0, 1000}) {
    AddRange(trace, "forward", t, t + 500, 1);
    AddRange(trace, "forward", t + 100, t + 200, 1);
    AddRange(trace, "forward", t + 300, t + 400, 1);
  }
  AddRange(trace, "other", 2000, 2100, 1);
  AddLaunch(trace, 0, 1, 150);
  AddLaunch(trace, 1, 1, 1150);
  const RangeSummary summary = SummarizeRanges(trace, {});
  ASSERT_EQ(summary.groups.size(), 2u);
  EXPECT_EQ(summary.groups[0].name, "forward");
  EXPECT_EQ(summary.groups[0].overlapping_instances, 4);
  EXPECT_EQ(summary.groups[0].gpu_ops, 4);  // each op once per nesting level, as documented
  EXPECT_EQ(summary.groups[1].overlapping_instances, 0);
}

TEST(RangeSummaryTest, MissingRangesAreClearErrors) {
  Trace trace = Example();
  RangeSummaryOptions options;
  options.name = "epoch";
  try {
    SummarizeRanges(trace, options);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no NVTX range named 'epoch'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("'other', 'step'"), std::string::npos);
  }
  trace.nvtx_ranges.clear();
  EXPECT_THROW(SummarizeRanges(trace, {}), InputError);
}

// A name given without its domain finds the domain's ranges, but never merges two domains'.
TEST(RangeSelectionTest, ANameInTwoDomainsNeedsItsDomain) {
  Trace trace = Example();
  AddRange(trace, "Train:epoch", 0, 1000, 1);
  AddRange(trace, "Train:epoch", 1000, 2000, 1);
  EXPECT_EQ(FindNvtxRanges(trace, "epoch").size(), 2u);
  AddRange(trace, "Eval:epoch", 2000, 3000, 1);
  try {
    FindNvtxRanges(trace, "epoch");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'epoch' is in more than one domain"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(FindNvtxRanges(trace, "Eval:epoch").size(), 1u);
  EXPECT_EQ(FindNvtxRanges(trace, "Train:epoch").size(), 2u);
}

}  // namespace
}  // namespace gpuroof
