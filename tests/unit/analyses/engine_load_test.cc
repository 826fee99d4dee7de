#include "gpuroof/analyses/engine_load.h"

#include <gtest/gtest.h>

#include "gpuroof/analyses/roofline.h"
#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

// Kernels overlap across streams, two H2D copies overlap, one D2H ends the window. Worked by
// hand:
//   kernel [0,100) s1, [50,150) s2, [200,260) s1 -> sum 260, union [0,150)+[200,260) = 210
//   H2D    [0,40) s1, [30,70) s2                 -> sum 80, union [0,70) = 70
//   D2H    [260,300) s1                          -> 40
//   processing window [0, 300): first kernel start -> max(last kernel end 260, last D2H end 300)
//   any op union [0,150) + [200,300) = 250
std::vector<Op> ConcurrentOps() {
  return {
      {Engine::kKernel, 0, 100, 0, 1},    {Engine::kKernel, 50, 150, 0, 2},
      {Engine::kKernel, 200, 260, 0, 1},  {Engine::kH2D, 0, 40, 0, 1, 4000},
      {Engine::kH2D, 30, 70, 0, 2, 4000}, {Engine::kD2H, 260, 300, 0, 1, 1000},
  };
}

EngineLoadOptions Options(const std::string& window = "processing", int64_t units = 0) {
  EngineLoadOptions options;
  options.window = ParseWindowSpec(window);
  if (units > 0) {
    options.units.kind = UnitsSpec::Kind::kFixed;
    options.units.count = units;
  }
  return options;
}

class EngineLoadBlocks : public ::testing::TestWithParam<int> {};

TEST_P(EngineLoadBlocks, HandWorkedConcurrentTrace) {
  Trace trace = MakeTrace(ConcurrentOps(), GetParam());
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, Options("processing", 10));
  ASSERT_EQ(loads.size(), 1u);
  const DeviceLoad& d = loads[0];
  EXPECT_EQ(d.window.start_ns, 0);
  EXPECT_EQ(d.window.end_ns, 300);

  const EngineLoad& kernel = d.engine(Engine::kKernel);
  EXPECT_EQ(kernel.ops, 3);
  EXPECT_EQ(kernel.sum_ns, 260);
  EXPECT_EQ(kernel.busy_ns, 210);
  EXPECT_DOUBLE_EQ(*OverlapFactor(kernel), 260.0 / 210.0);
  EXPECT_DOUBLE_EQ(*DutyPercent(kernel.busy_ns, d.window), 70.0);
  EXPECT_DOUBLE_EQ(*PerUnitUs(kernel.busy_ns, d), 0.021);

  const EngineLoad& h2d = d.engine(Engine::kH2D);
  EXPECT_EQ(h2d.ops, 2);
  EXPECT_EQ(h2d.sum_ns, 80);
  EXPECT_EQ(h2d.busy_ns, 70);
  EXPECT_EQ(h2d.bytes, 8000u);
  EXPECT_DOUBLE_EQ(*BandwidthGBps(h2d), 100.0);  // 8000 B / 80 ns

  const EngineLoad& d2h = d.engine(Engine::kD2H);
  EXPECT_EQ(d2h.ops, 1);
  EXPECT_EQ(d2h.busy_ns, 40);
  EXPECT_EQ(d.engine(Engine::kMemset).ops, 0);

  EXPECT_EQ(d.any_busy_ns, 250);
  EXPECT_EQ(d.any_ops, 6);

  // The result carries its roofline, computed once: the same as computing it again.
  const Roofline& roofline = d.roofline;
  EXPECT_TRUE(roofline.has_bottleneck);
  EXPECT_EQ(ComputeRoofline(d).bottleneck_busy_ns, roofline.bottleneck_busy_ns);
  EXPECT_EQ(roofline.bottleneck, Engine::kKernel);
  EXPECT_EQ(roofline.bottleneck_busy_ns, 210);
  EXPECT_DOUBLE_EQ(*roofline.per_unit_us, 0.021);
  EXPECT_DOUBLE_EQ(*roofline.units_per_s, 10.0 / 210e-9);
  ASSERT_EQ(roofline.headroom.size(), 2u);
  EXPECT_EQ(roofline.headroom[0].engine, Engine::kH2D);
  EXPECT_DOUBLE_EQ(roofline.headroom[0].per_unit_gap_us, 0.021 - 0.007);
  EXPECT_DOUBLE_EQ(*roofline.headroom[0].factor, 3.0);
  EXPECT_EQ(roofline.headroom[1].engine, Engine::kD2H);
  EXPECT_DOUBLE_EQ(*roofline.headroom[1].factor, 210.0 / 40.0);
}

INSTANTIATE_TEST_SUITE_P(SplitIntoBlocks, EngineLoadBlocks, ::testing::Values(1, 2, 3, 6));

TEST(EngineLoad, ExplicitWindowClipsOps) {
  // Window 50:250 from the first op (t=0) is [50, 250).
  //   kernel: [50,100) 50 + [50,150) 100 + [200,250) 50 -> sum 200, union 150
  //   H2D: [0,40) is outside; [30,70) clips to [50,70) -> 1 op, 20 ns; its bytes count whole
  //   D2H [260,300) is outside
  Trace trace = MakeTrace(ConcurrentOps());
  DeviceLoad d = ComputeEngineLoad(trace, Options("50:250"))[0];
  EXPECT_EQ(d.window.length_ns(), 200);
  EXPECT_EQ(d.engine(Engine::kKernel).ops, 3);
  EXPECT_EQ(d.engine(Engine::kKernel).sum_ns, 200);
  EXPECT_EQ(d.engine(Engine::kKernel).busy_ns, 150);
  EXPECT_EQ(d.engine(Engine::kH2D).ops, 1);
  EXPECT_EQ(d.engine(Engine::kH2D).busy_ns, 20);
  EXPECT_EQ(d.engine(Engine::kH2D).bytes, 4000u);
  EXPECT_EQ(d.engine(Engine::kH2D).op_time_ns, 40);
  EXPECT_EQ(d.engine(Engine::kD2H).ops, 0);
  EXPECT_EQ(d.any_busy_ns, 150);
}

TEST(EngineLoad, ProcessingWindowLeavesOutSetupUploads) {
  // A 1 ms setup upload before the first kernel does not count; an op touching the window's
  // start without overlapping it does not count either.
  Trace trace = MakeTrace({{Engine::kH2D, -1'000'000, 0, 0, 7, 1 << 20},
                           {Engine::kKernel, 0, 500},
                           {Engine::kH2D, 100, 300},
                           {Engine::kD2H, 500, 700}});
  DeviceLoad d = ComputeEngineLoad(trace, Options())[0];
  EXPECT_EQ(d.window.start_ns, 0);
  EXPECT_EQ(d.window.end_ns, 700);
  EXPECT_EQ(d.engine(Engine::kH2D).ops, 1);
  EXPECT_EQ(d.engine(Engine::kH2D).busy_ns, 200);
  DeviceLoad all = ComputeEngineLoad(trace, Options("all"))[0];
  EXPECT_EQ(all.window.start_ns, -1'000'000);
  EXPECT_EQ(all.engine(Engine::kH2D).ops, 2);
  EXPECT_EQ(all.engine(Engine::kH2D).busy_ns, 1'000'200);
}

// A CUDA graph traced at graph level (nsys's default) is one op of the graph engine that runs
// kernels: graph replays anchor the processing window like kernels, so the replays after the last
// eager kernel stay in it, and a device of graph launches alone has a processing window.
TEST(EngineLoad, WholeGraphLaunchesAnchorTheProcessingWindow) {
  Trace trace = MakeTrace({{Engine::kH2D, -1'000, 0},
                           {Engine::kKernel, 0, 100},
                           {Engine::kGraph, 200, 900},
                           {Engine::kGraph, 1'000, 1'500},
                           {Engine::kH2D, 1'600, 1'700},
                           {Engine::kGraph, 0, 400, 1},
                           {Engine::kD2H, 400, 450, 1}});
  const std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, Options());
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].window.start_ns, 0);
  EXPECT_EQ(loads[0].window.end_ns, 1'500);
  EXPECT_EQ(loads[0].engine(Engine::kGraph).ops, 2);
  EXPECT_EQ(loads[0].engine(Engine::kGraph).busy_ns, 1'200);
  EXPECT_EQ(loads[0].engine(Engine::kH2D).ops, 0);
  EXPECT_EQ(loads[1].window.policy, "processing");
  EXPECT_EQ(loads[1].window.start_ns, 0);
  EXPECT_EQ(loads[1].window.end_ns, 450);
}

TEST(EngineLoad, ZeroLengthOpsAreCountedButAddNoTime) {
  Trace trace = MakeTrace(
      {{Engine::kKernel, 0, 100}, {Engine::kKernel, 100, 100}, {Engine::kMemset, 50, 50}});
  DeviceLoad d = ComputeEngineLoad(trace, Options())[0];
  EXPECT_EQ(d.engine(Engine::kKernel).ops, 2);
  EXPECT_EQ(d.engine(Engine::kKernel).busy_ns, 100);
  EXPECT_EQ(d.engine(Engine::kMemset).ops, 1);
  EXPECT_EQ(d.engine(Engine::kMemset).busy_ns, 0);
  EXPECT_FALSE(OverlapFactor(d.engine(Engine::kMemset)).has_value());
}

TEST(EngineLoad, DevicesNeverMerge) {
  // The same intervals on two devices: each device has its own window and union.
  Trace trace = MakeTrace(
      {{Engine::kKernel, 0, 100, 0}, {Engine::kKernel, 50, 150, 1}, {Engine::kH2D, 400, 500, 1}});
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, Options("processing", 5));
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].device_id, 0);
  EXPECT_EQ(loads[0].engine(Engine::kKernel).busy_ns, 100);
  EXPECT_EQ(loads[0].window.end_ns, 100);
  EXPECT_EQ(loads[1].device_id, 1);
  EXPECT_EQ(loads[1].window.start_ns, 50);
  EXPECT_EQ(loads[1].window.end_ns, 150);
  EXPECT_EQ(loads[1].engine(Engine::kH2D).ops, 0);  // after device 1's processing window
  EXPECT_EQ(loads[0].any_busy_ns + loads[1].any_busy_ns, 200);
}

TEST(EngineLoad, UnitsFromKernelLaunchesInTheWindow) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10, 0, 7, 0, "frame"},
                           {Engine::kKernel, 10, 20, 0, 7, 0, "other"},
                           {Engine::kKernel, 20, 30, 0, 7, 0, "frame"},
                           {Engine::kKernel, 30, 40, 0, 7, 0, "frame"}});
  EngineLoadOptions options = Options("0:25");
  options.units = ParseUnitsFrom("kernel:frame");
  DeviceLoad d = ComputeEngineLoad(trace, options)[0];
  ASSERT_TRUE(d.units.has_value());
  EXPECT_EQ(*d.units, 2);  // launches starting at 0 and 20; the one at 30 is after the window
  options.units = ParseUnitsFrom("kernel:nope");
  EXPECT_THROW(ComputeEngineLoad(trace, options), InputError);
}

TEST(EngineLoad, UnitsFromNvtxRangesInTheWindow) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 1000}});
  AddRange(trace, "batch", 0, 100);
  AddRange(trace, "batch", 100, 200);
  AddRange(trace, "batch", 2000, 2100);
  // No API calls: the ranges' work is what runs while they are open (time overlap). With the
  // processing window the window is the units' own span, 0 to 2100; nothing ran in the third
  // batch, so it is no unit, and the note says so.
  EngineLoadOptions options = Options();
  options.units = ParseUnitsFrom("nvtx:batch");
  DeviceLoad d = ComputeEngineLoad(trace, options)[0];
  EXPECT_EQ(*d.units, 2);
  EXPECT_NE(d.units_note.find("1 of 3 instance(s)"), std::string::npos) << d.units_note;
  EXPECT_EQ(d.window.start_ns, 0);
  EXPECT_EQ(d.window.end_ns, 2100);
  EXPECT_EQ(d.window.resolved, "'batch' (3 instances)");
  // An explicit window counts the batches whose first op counts in it.
  options.window = ParseWindowSpec("0:1000");
  d = ComputeEngineLoad(trace, options)[0];
  EXPECT_EQ(*d.units, 2);
  options.units = ParseUnitsFrom("nvtx:epoch");
  EXPECT_THROW(ComputeEngineLoad(trace, options), InputError);
}

// Nested instances of one name (an outer `forward` with two inner ones, in each of 4 steps) and
// the same range on a second thread: only the outermost instances are units, and a note counts
// the others. Each inner range launches one 100 ns kernel: 4 forwards of 200 ns, not 12 of 66.7.
TEST(EngineLoad, OnlyOutermostInstancesOfANvtxRangeAreUnits) {
  std::vector<Op> ops;
  for (int64_t step = 0; step < 4; ++step) {
    ops.push_back({Engine::kKernel, 10000 + 1000 * step, 10100 + 1000 * step});
    ops.push_back({Engine::kKernel, 10200 + 1000 * step, 10300 + 1000 * step});
  }
  Trace trace = MakeTrace(ops);
  for (int64_t step = 0; step < 4; ++step) {
    const int64_t t = 1000 * step;
    AddRange(trace, "forward", t, t + 500, 1);
    AddRange(trace, "forward", t + 100, t + 200, 1);
    AddRange(trace, "forward", t + 300, t + 400, 1);
    AddRange(trace, "forward", t + 1, t + 501, 2);  // the same range on another thread
    testing::AddLaunch(trace, static_cast<size_t>(2 * step), 1, t + 150);
    testing::AddLaunch(trace, static_cast<size_t>(2 * step + 1), 1, t + 350);
  }
  EngineLoadOptions options;
  options.units = ParseUnitsFrom("nvtx:forward");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  ASSERT_TRUE(loads[0].units.has_value());
  EXPECT_EQ(*loads[0].units, 4);
  EXPECT_EQ(loads[0].engine(Engine::kKernel).busy_ns, 800);
  EXPECT_NE(loads[0].units_note.find("12 of 16 instance(s) of range 'forward' lie inside or "
                                     "overlap another instance of it"),
            std::string::npos)
      << loads[0].units_note;
  EXPECT_NE(loads[0].units_note.find("only the outermost count as units"), std::string::npos);
}

// Step 1's all-reduce [800, 1100) runs under step 2's forward kernel [1000, 1300). Step 1's work
// window [0, 1100) holds its kernel [0, 500) and the all-reduce; step 2's kernel is another op in
// the window: 100 ns of it there, and with it the GPU was idle [500, 800) only, 300 ns.
TEST(EngineLoad, AWorkWindowCountsTheOtherOpsThatRanInIt) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 500, 0, 1, 0, "fwd"},
                           {Engine::kKernel, 800, 1100, 0, 2, 0, "ncclAllReduce"},
                           {Engine::kKernel, 1000, 1300, 0, 1, 0, "fwd"}});
  ClassifyCollectiveKernels(trace);
  AddRange(trace, "ProfilerStep#1", 0, 400, 1);
  AddRange(trace, "ProfilerStep#2", 400, 800, 1);
  testing::AddLaunch(trace, 0, 1, 10);
  testing::AddLaunch(trace, 1, 1, 300);
  testing::AddLaunch(trace, 2, 1, 500);
  EngineLoadOptions options;
  options.window = ParseWindowSpec("nvtx:ProfilerStep#1");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].window.start_ns, 0);
  EXPECT_EQ(loads[0].window.end_ns, 1100);
  EXPECT_EQ(loads[0].any_busy_ns, 800);
  EXPECT_EQ(loads[0].outside_in_span_ops, 1);
  EXPECT_EQ(loads[0].outside_in_span_busy_ns, 100);
  EXPECT_EQ(loads[0].span_all_busy_ns, 800);
}

// A family with CPU instances and one GPU-timeline copy that was not joined to its CPU range:
// the copy is no unit of its own (as in ranks and findings), and the note says so.
TEST(EngineLoad, GpuTimelineCopiesBesideCpuInstancesAreNoUnits) {
  Trace trace = MakeTrace({{Engine::kKernel, 100, 600}, {Engine::kKernel, 1100, 1600}});
  AddRange(trace, "ProfilerStep#1", 0, 1000, 1);
  AddRange(trace, "ProfilerStep#2", 1000, 2000, 1);
  AddRange(trace, "ProfilerStep#1", 99, 700);
  for (NvtxRange& range : trace.nvtx_ranges) {
    if (range.start_ns == 99) {
      range.on_gpu = true;
      range.device_id = 0;
    }
  }
  testing::AddLaunch(trace, 0, 1, 10);
  testing::AddLaunch(trace, 1, 1, 1010);
  EngineLoadOptions options;
  options.units = ParseUnitsFrom("nvtx:ProfilerStep");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  ASSERT_TRUE(loads[0].units.has_value());
  EXPECT_EQ(*loads[0].units, 2);
  EXPECT_EQ(loads[0].engine(Engine::kKernel).busy_ns, 1000);
  EXPECT_NE(loads[0].units_note.find("1 GPU-timeline instance(s) of range 'ProfilerStep#*' left "
                                     "out"),
            std::string::npos)
      << loads[0].units_note;
}

TEST(EngineLoad, ZeroUnitsInTheWindowIsAnError) {
  Trace trace = MakeTrace(
      {{Engine::kKernel, 0, 10, 0, 7, 0, "frame"}, {Engine::kKernel, 100, 110, 0, 7, 0, "other"}});
  EngineLoadOptions options = Options("50:200");
  options.units = ParseUnitsFrom("kernel:frame");
  EXPECT_THROW(ComputeEngineLoad(trace, options), InputError);
}

TEST(EngineLoad, ADeviceWithoutCountedUnitsGetsNoPerUnitFigures) {
  // Device 1 only copies: it has no launch of "frame", device 0 has two.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10, 0, 7, 0, "frame"},
                           {Engine::kKernel, 20, 30, 0, 7, 0, "frame"},
                           {Engine::kP2P, 0, 50, 1, 7, 100}});
  EngineLoadOptions options = Options();
  options.units = ParseUnitsFrom("kernel:frame");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(*loads[0].units, 2);
  EXPECT_FALSE(loads[1].units.has_value());
  EXPECT_NE(loads[1].units_note.find("no launch of kernel 'frame'"), std::string::npos);
  EXPECT_FALSE(ComputeRoofline(loads[1]).per_unit_us.has_value());
}

TEST(EngineLoad, NvtxUnitsAndWindowsMatchNamesTheSameWay) {
  // "step" exists undomained and as "D:step": the exact name wins for both features.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 1000}});
  AddRange(trace, "D:step", 0, 100);
  AddRange(trace, "D:step", 100, 200);
  AddRange(trace, "step", 200, 300);
  EngineLoadOptions options = Options("all");
  options.units = ParseUnitsFrom("nvtx:step");
  EXPECT_EQ(*ComputeEngineLoad(trace, options)[0].units, 1);
  options.units = ParseUnitsFrom("nvtx:D:step");
  EXPECT_EQ(*ComputeEngineLoad(trace, options)[0].units, 2);
}

TEST(EngineLoad, AZeroLengthWindowIsAnError) {
  Trace trace = MakeTrace({{Engine::kKernel, 100, 100}, {Engine::kH2D, 100, 100}});
  EXPECT_THROW(ComputeEngineLoad(trace, Options("processing", 2)), InputError);
}

// A device whose every op takes no time (a sub-microsecond memset in a whole-microsecond Kineto
// trace) beside devices whose ops take time: left out, and said on every other device's window,
// instead of failing the whole trace.
TEST(EngineLoad, ADeviceWhoseOpsTakeNoTimeIsLeftOutAndSaid) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100, 0},
                           {Engine::kMemset, 50, 50, 3, 4},
                           {Engine::kKernel, 20, 80, 1}});
  for (const char* window : {"processing", "all"}) {
    std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, Options(window, 0));
    ASSERT_EQ(loads.size(), 2u) << window;
    EXPECT_EQ(loads[0].device_id, 0);
    EXPECT_EQ(loads[1].device_id, 1);
    for (const DeviceLoad& load : loads) {
      EXPECT_NE(load.window.note.find("device 3 left out: every GPU op of it takes no time"),
                std::string::npos)
          << load.window.note;
      EXPECT_EQ(load.engine(Engine::kMemset).ops, 0);
    }
  }
  EngineLoadOptions by_stream = Options("processing", 0);
  by_stream.by_stream = true;
  EXPECT_EQ(ComputeEngineLoad(trace, by_stream).size(), 2u);
  EXPECT_EQ(ProcessingWindows(trace).count(3), 0u);
}

TEST(Roofline, NoEngineBusyMeansNoBottleneck) {
  // All ops in the window take no time: nothing binds, and nothing is made up.
  Trace trace = MakeTrace(
      {{Engine::kKernel, 0, 100, 1}, {Engine::kH2D, 50, 50, 0}, {Engine::kD2H, 60, 60, 0}});
  EngineLoadOptions options = Options("0:100", 2);
  DeviceLoad d = ComputeEngineLoad(trace, options)[0];
  ASSERT_EQ(d.device_id, 0);
  Roofline roofline = ComputeRoofline(d);
  EXPECT_FALSE(roofline.has_bottleneck);
  EXPECT_FALSE(roofline.per_unit_us.has_value());
  EXPECT_TRUE(roofline.headroom.empty());
}

TEST(Roofline, AnEngineWithoutBusyTimeHasAnUnboundedHeadroomFactor) {
  // The memset's ops take no time (a whole-microsecond Kineto trace): it could grow without bound
  // before it binds, so its factor is unset, not 0 ("cannot grow at all").
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100}, {Engine::kMemset, 50, 50}});
  Roofline roofline = ComputeRoofline(ComputeEngineLoad(trace, Options("all", 2))[0]);
  ASSERT_EQ(roofline.headroom.size(), 1u);
  EXPECT_EQ(roofline.headroom[0].engine, Engine::kMemset);
  EXPECT_FALSE(roofline.headroom[0].factor.has_value());
  EXPECT_DOUBLE_EQ(roofline.headroom[0].per_unit_gap_us, 0.05);
}

TEST(EngineLoad, ByStreamGivesOneRowPerStreamInItsDevicesWindow) {
  // Streams 1 and 2 of the hand-worked concurrent trace (window [0, 300)):
  //   stream 1: kernels [0,100) [200,260), H2D [0,40), D2H [260,300)
  //   stream 2: kernel [50,150), H2D [30,70)
  EngineLoadOptions options = Options("processing", 10);
  options.by_stream = true;
  std::vector<DeviceLoad> rows = ComputeEngineLoad(MakeTrace(ConcurrentOps(), 2), options);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].stream.has_value());
  EXPECT_EQ(rows[0].stream->stream_id, 1u);
  EXPECT_EQ(rows[0].window.end_ns, 300);
  EXPECT_EQ(rows[0].engine(Engine::kKernel).busy_ns, 160);
  EXPECT_EQ(rows[0].engine(Engine::kD2H).ops, 1);
  EXPECT_EQ(rows[0].any_busy_ns, 100 + 60 + 40);
  EXPECT_EQ(rows[1].stream->stream_id, 2u);
  EXPECT_EQ(rows[1].engine(Engine::kKernel).busy_ns, 100);
  EXPECT_EQ(rows[1].engine(Engine::kH2D).busy_ns, 40);
  EXPECT_EQ(rows[1].any_busy_ns, 120);  // [30,150)
}

TEST(EngineLoad, ByStreamPutsUvmMigrationsInARowOfTheirOwn) {
  // Stream 1: kernel [0,100). UVM migrations have no stream: H2D [10,30) filed under stream 0,
  // D2H [40,50) under stream 1; both go to the device's "no stream" row, after its streams.
  EngineLoadOptions options = Options("all");
  options.by_stream = true;
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100, 0, 1},
                           {Engine::kUvmH2D, 10, 30, 0, 0, 64},
                           {Engine::kUvmD2H, 40, 50, 0, 1, 64}});
  std::vector<DeviceLoad> rows = ComputeEngineLoad(trace, options);
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].stream.has_value());
  EXPECT_EQ(rows[0].stream->stream_id, 1u);
  EXPECT_FALSE(rows[0].uvm_no_stream);
  EXPECT_EQ(rows[0].engine(Engine::kKernel).ops, 1);
  EXPECT_EQ(rows[0].engine(Engine::kUvmD2H).ops, 0);
  EXPECT_EQ(rows[0].any_busy_ns, 100);
  EXPECT_TRUE(rows[1].uvm_no_stream);
  EXPECT_FALSE(rows[1].stream.has_value());
  EXPECT_EQ(rows[1].engine(Engine::kUvmH2D).ops, 1);
  EXPECT_EQ(rows[1].engine(Engine::kUvmD2H).ops, 1);
  EXPECT_EQ(rows[1].engine(Engine::kKernel).ops, 0);
  EXPECT_EQ(rows[1].any_busy_ns, 20 + 10);
  EXPECT_EQ(rows[1].window.end_ns, 100);  // the device's window
}

TEST(EngineLoad, BandwidthLeavesOutCopiesOfZeroDuration) {
  // 1 MB in 0 ns beside 1 MB in 10 us: 1e6 B / 1e4 ns = 100 GB/s (all bytes over the timed
  // copy's time would say 200).
  Trace trace = MakeTrace({{Engine::kKernel, 0, 20000, 0, 1},
                           {Engine::kH2D, 1000, 1000, 0, 1, 1000000},
                           {Engine::kH2D, 2000, 12000, 0, 1, 1000000}});
  const std::vector<DeviceLoad> devices = ComputeEngineLoad(trace, Options("all"));
  const EngineLoad& h2d = devices[0].engine(Engine::kH2D);
  EXPECT_EQ(h2d.ops, 2);
  EXPECT_EQ(h2d.bytes, 2000000u);
  EXPECT_EQ(h2d.rate.timed_bytes, 1000000u);
  EXPECT_EQ(h2d.rate.time_ns, 10000);
  EXPECT_EQ(h2d.rate.zero_duration_ops, 1);
  EXPECT_EQ(h2d.rate.zero_duration_bytes, 1000000u);
  EXPECT_DOUBLE_EQ(*BandwidthGBps(h2d), 100.0);
  // Only copies of zero duration: no rate at all, and both said.
  ByteRate only_zero;
  only_zero.Add(10, 0);
  only_zero.Add(20, 0);
  EXPECT_FALSE(only_zero.gbps().has_value());
  EXPECT_EQ(only_zero.zero_duration_ops, 2);
  EXPECT_EQ(only_zero.zero_duration_bytes, 30u);
}

TEST(EngineLoad, EmptyTraceIsAnError) {
  Trace trace = MakeTrace({});
  try {
    ComputeEngineLoad(trace, Options());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no GPU activity"), std::string::npos);
  }
}

TEST(ParseUnitsFrom, RejectsUnknownSources) {
  EXPECT_THROW(ParseUnitsFrom("frames"), InputError);
  EXPECT_THROW(ParseUnitsFrom("kernel:"), InputError);
  EXPECT_EQ(ParseUnitsFrom("kernel:a:b").name, "a:b");
}

// Sums past int64 (10 000 ops at the per-op limits of 2^50 ns and 2^50 bytes): the written sums
// clamp, the window note says so with the exact figures, and the overlap factor and GB/s come
// from the exact sums (with the clamp they were 8192 and 18 % low).
TEST(EngineLoad, SumsPastInt64AreSaidAndRatesStayExact) {
  constexpr int64_t kLimit = int64_t{1} << 50;
  std::vector<Op> ops;
  for (int64_t i = 0; i < 10000; ++i) {
    ops.push_back({Engine::kKernel, i, i + kLimit, 0, 1});
    ops.push_back({Engine::kH2D, i * 1000, i * 1000 + 500, 0, 2, static_cast<uint64_t>(kLimit)});
  }
  const DeviceLoad d = ComputeEngineLoad(MakeTrace(ops), Options("all"))[0];
  const EngineLoad& kernel = d.engine(Engine::kKernel);
  EXPECT_EQ(kernel.sum_ns, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(WideSumText(kernel.exact_sum_ns), "11258999068426240000");
  ASSERT_TRUE(OverlapFactor(kernel).has_value());
  EXPECT_NEAR(*OverlapFactor(kernel), 10000.0 * kLimit / (kLimit + 9999.0), 1e-6);
  const EngineLoad& h2d = d.engine(Engine::kH2D);
  EXPECT_EQ(h2d.bytes, static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
  ASSERT_TRUE(BandwidthGBps(h2d).has_value());
  EXPECT_DOUBLE_EQ(*BandwidthGBps(h2d), static_cast<double>(kLimit) / 500.0);
  EXPECT_NE(d.window.note.find("warning: 3 sum(s) pass the int64 maximum"), std::string::npos)
      << d.window.note;
  EXPECT_NE(d.window.note.find("H2D bytes 11258999068426240000"), std::string::npos)
      << d.window.note;
}

}  // namespace
}  // namespace gpuroof
