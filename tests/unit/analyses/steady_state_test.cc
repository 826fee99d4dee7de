#include "gpuroof/analyses/steady_state.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

Window WholeWindow(int64_t start_ns, int64_t end_ns) {
  Window window;
  window.policy = "processing";
  window.start_ns = start_ns;
  window.end_ns = end_ns;
  return window;
}

UnitSeriesSpec Slices(int count) {
  UnitSeriesSpec series;
  series.slices = count;
  return series;
}

UnitSeriesSpec Named(UnitSeriesSpec::Kind kind, const std::string& name) {
  UnitSeriesSpec series;
  series.kind = kind;
  series.name = name;
  return series;
}

// Window [0, 1003) in 10 slices: 1003 = 10 x 100 + 3, so slice k starts at 100 k + floor(3 k /
// 10): 0, 100, 200, 300, 401, 501, 601, 702, 802, 902, and the last ends at 1003.
// Kernel busy per slice: [0,100) -> 100 in slice 0; [150,170) -> 20 in slice 1; [250,420) ->
// 50 in slice 2, 101 in slice 3 ([300,401)), 19 in slice 4; [620,650) and [630,720) overlap:
// union [620,720) -> 82 in slice 6 ([620,702)) and 18 in slice 7. Total 390 > the H2D's 50, so
// the kernel is the series engine: [100, 20, 50, 101, 19, 0, 82, 18, 0, 0].
// Batches of 5: [58, 20], B = 2, cap 1: MSER(0) = 2 x 19^2 / 4 = 180.5, MSER(1) = 0 -> d* = 1 =
// the cap: 5 slices dropped, steady from 501, and the "no steady state" warning.
// Ramp check on the 5 steady slices [0, 82, 18, 0, 0]: head 1 slice (0); the median of the rest
// is 9: ratio 0, no ramp warning. Device 1's kernel is not device 0's.
TEST(SteadyState, SliceSeriesIsTheBusiestEngineBusyTimePerSlice) {
  for (int blocks : {1, 3}) {
    Trace trace = MakeTrace({{Engine::kKernel, 0, 100},
                             {Engine::kKernel, 150, 170},
                             {Engine::kKernel, 250, 420},
                             {Engine::kKernel, 620, 650},
                             {Engine::kKernel, 630, 720},
                             {Engine::kH2D, 900, 950, 0, 7, 64},
                             {Engine::kKernel, 10, 2000, 1}},
                            blocks);
    SteadyState state = ComputeSteadyState(trace, 0, WholeWindow(0, 1003), Slices(10));
    ASSERT_EQ(state.units.size(), 10u);
    ASSERT_TRUE(state.slice_engine.has_value());
    EXPECT_EQ(*state.slice_engine, Engine::kKernel);
    const std::vector<int64_t> starts = {0, 100, 200, 300, 401, 501, 601, 702, 802, 902};
    const std::vector<double> values = {100, 20, 50, 101, 19, 0, 82, 18, 0, 0};
    for (size_t k = 0; k < 10; ++k) {
      EXPECT_EQ(state.units[k].start_ns, starts[k]) << k;
      EXPECT_EQ(state.units[k].end_ns, k + 1 < 10 ? starts[k + 1] : 1003) << k;
      EXPECT_DOUBLE_EQ(state.units[k].value_ns, values[k]) << k;
    }
    EXPECT_TRUE(state.mser.hit_cap);
    EXPECT_EQ(state.first_kept, 5u);
    EXPECT_EQ(state.start_ns, 501);
    ASSERT_EQ(state.warnings.size(), 1u);
    EXPECT_NE(state.warnings[0].find("no steady state"), std::string::npos) << state.warnings[0];
    ASSERT_TRUE(state.head_ratio.has_value());
    EXPECT_DOUBLE_EQ(*state.head_ratio, 0.0);
    Window steady = SteadyWindow(trace, state, "steady");
    EXPECT_EQ(steady.policy, "steady");
    EXPECT_EQ(steady.start_ns, 501);
    EXPECT_EQ(steady.end_ns, 1003);
    EXPECT_EQ(steady.note, state.warnings[0]);
  }
}

// A slow start: 40 launches of `step`, the first 10 every 200 ns, then every 100 ns (starts 200 i
// for i < 10, 2000 + 100 (i - 10) after). 39 intervals: ten of 200, then 29 of 100; batch means
// [200, 200, 100, 100, 100, 100, 100]; MSER(0) = 14285.714 / 49, MSER(1) = 8333.33 / 36,
// MSER(2) = 0 -> d* = 2: the first 10 intervals are warm-up, the steady state starts at launch
// 10 (2000 ns). The 29 steady intervals are flat: ratio 1, no warning. Another kernel and
// another device's launches of `step` do not count.
TEST(SteadyState, KernelSeriesDropsASlowStart) {
  std::vector<Op> ops;
  for (int64_t i = 0; i < 40; ++i) {
    int64_t start = i < 10 ? 200 * i : 2000 + 100 * (i - 10);
    ops.push_back({Engine::kKernel, start, start + 90, 0, 1, 0, "step"});
    ops.push_back({Engine::kKernel, start + 90, start + 95, 0, 1, 0, "other"});
    ops.push_back({Engine::kKernel, start + 7, start + 8, 1, 1, 0, "step"});
  }
  Trace trace = MakeTrace(ops, 2);
  SteadyState state = ComputeSteadyState(trace, 0, WholeWindow(0, 4995),
                                         Named(UnitSeriesSpec::Kind::kKernelLaunches, "step"));
  ASSERT_EQ(state.units.size(), 39u);
  EXPECT_DOUBLE_EQ(state.units[9].value_ns, 200);
  EXPECT_EQ(state.units[9].end_ns, 2000);
  EXPECT_DOUBLE_EQ(state.units[10].value_ns, 100);
  EXPECT_EQ(state.mser.truncated_batches, 2u);
  EXPECT_FALSE(state.mser.hit_cap);
  EXPECT_EQ(state.first_kept, 10u);
  EXPECT_EQ(state.start_ns, 2000);
  EXPECT_TRUE(state.warnings.empty());
  EXPECT_DOUBLE_EQ(*state.head_ratio, 1.0);
  EXPECT_EQ(DescribeSeries(state), "39 intervals between launches of kernel 'step'");
}

// the gate reference's example E6 (docs/metrics.md, "Steady state") as NVTX range durations, back
// to back from 0: MSER-5 drops 10 instances, so the steady state starts at the 11th, at
// 130+122+115+109+105+103+101+100+101+ 100 = 1086 ns. The 30 steady values: head 3 (99, 100, 101:
// mean 100), median of the other 27 = 100: ratio 1. A GPU-timeline range of another device is not
// one of device 0's units.
TEST(SteadyState, NvtxSeriesOnExampleE6) {
  const std::vector<int64_t> e6 = {130, 122, 115, 109, 105, 103, 101, 100, 101, 100,
                                   99,  100, 101, 100, 100, 99,  101, 100, 100, 101,
                                   99,  100, 100, 101, 100, 99,  101, 100, 100, 100,
                                   101, 99,  100, 100, 101, 99,  100, 101, 100, 100};
  Trace trace = MakeTrace({{Engine::kKernel, 0, 5000}});
  int64_t start = 0;
  for (int64_t duration : e6) {
    AddRange(trace, "app:step", start, start + duration);
    start += duration;
  }
  AddRange(trace, "app:step", 5, 4000);
  for (NvtxRange& range : trace.nvtx_ranges) {
    if (range.end_ns == 4000) {
      range.on_gpu = true;
      range.device_id = 1;
    }
  }
  SteadyState state = ComputeSteadyState(trace, 0, WholeWindow(0, 5000),
                                         Named(UnitSeriesSpec::Kind::kNvtxRanges, "step"));
  ASSERT_EQ(state.units.size(), 40u);
  EXPECT_EQ(state.mser.truncated_batches, 2u);
  EXPECT_EQ(state.first_kept, 10u);
  EXPECT_EQ(state.start_ns, 1086);
  EXPECT_TRUE(state.warnings.empty());
  EXPECT_DOUBLE_EQ(*state.head_ratio, 1.0);
}

// The GPU lags the CPU, as in every async training loop: 20 steps (5 of 2000 ns, then 1000 ns on
// the CPU), each launching one 900 ns kernel at its start that runs 800 ns after it. Step 1 is in
// the series (its CPU start, 0, precedes the processing window's first kernel, 800), MSER-5 drops
// the 5 slow steps, and the steady window is the work of steps 6..20, whole: 15 steps, 15 x 900 ns
// of kernel, from step 6's kernel (10 800) to step 20's end (25 700). Before: step 1 was not in
// the series, so the window started at step 7's CPU start (11 000), clipping step 6's kernel to
// 700 ns while still counting step 6 as a unit: 886.7 ns/step.
Trace LaggingSteps() {
  std::vector<Op> ops;
  std::vector<int64_t> cpu_starts;
  int64_t start = 0;
  for (int step = 0; step < 20; ++step) {
    cpu_starts.push_back(start);
    ops.push_back({Engine::kKernel, start + 800, start + 1700});
    start += step < 5 ? 2000 : 1000;
  }
  Trace trace = MakeTrace(ops);
  for (size_t step = 0; step < cpu_starts.size(); ++step) {
    AddRange(trace, "step", cpu_starts[step],
             step + 1 < cpu_starts.size() ? cpu_starts[step + 1] : start, 1);
    testing::AddLaunch(trace, step, 1, cpu_starts[step]);
  }
  return trace;
}

TEST(SteadyState, NvtxUnitsCountWholeInstancesInTheSteadyWindow) {
  const Trace trace = LaggingSteps();
  EngineLoadOptions options;
  options.units = ParseUnitsFrom("nvtx:step");
  options.window = ParseWindowSpec("steady");
  options.window.steady_units = UnitSeriesFrom(options.units);
  const std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  const DeviceLoad& load = loads[0];
  EXPECT_EQ(load.window.policy, "steady");
  EXPECT_EQ(load.window.start_ns, 10800);
  EXPECT_EQ(load.window.end_ns, 25700);
  ASSERT_TRUE(load.units.has_value());
  EXPECT_EQ(*load.units, 15);
  EXPECT_EQ(load.engine(Engine::kKernel).busy_ns, 15 * 900);

  const SteadyState state =
      ComputeSteadyState(trace, 0, WholeWindow(800, 25700), UnitSeriesFrom(options.units));
  EXPECT_EQ(state.units.size(), 20u);  // step 1 too, though it starts before the window
  EXPECT_EQ(state.first_kept, 5u);
  EXPECT_EQ(state.start_ns, 10800);
  EXPECT_TRUE(state.notes.empty());

  // --steady-report: both windows are the range's work, so the per-step kernel time agrees.
  const std::vector<SteadyComparison> comparisons = CompareSteadyState(trace, options.units);
  ASSERT_EQ(comparisons.size(), 1u);
  EXPECT_EQ(*comparisons[0].whole.units, 20);
  EXPECT_EQ(comparisons[0].whole.engine(Engine::kKernel).busy_ns, 20 * 900);
  EXPECT_EQ(*comparisons[0].steady.units, 15);
  EXPECT_EQ(comparisons[0].steady.engine(Engine::kKernel).busy_ns, 15 * 900);
}

// Instances that did no work on the device (another process's steps) are left out of the series,
// and nested instances of the name (only the outermost are units), each with a count.
TEST(SteadyState, NvtxSeriesSaysWhatItLeavesOut) {
  Trace trace = LaggingSteps();
  AddRange(trace, "step", 30000, 31000, 1);  // launched nothing
  AddRange(trace, "step", 12100, 12200, 1);  // inside step 7
  const SteadyState state = ComputeSteadyState(trace, 0, WholeWindow(800, 25700),
                                               Named(UnitSeriesSpec::Kind::kNvtxRanges, "step"));
  EXPECT_EQ(state.units.size(), 20u);
  ASSERT_EQ(state.notes.size(), 2u);
  EXPECT_NE(state.notes[0].find("1 of 22 instance(s) of range 'step' lie inside or overlap"),
            std::string::npos)
      << state.notes[0];
  EXPECT_NE(state.notes[1].find("1 of 21 outermost instance(s) of range 'step' had no GPU work"),
            std::string::npos)
      << state.notes[1];
  EXPECT_NE(SteadyWindow(trace, state, "steady").note.find("had no GPU work"), std::string::npos);
}

// A series falling by 1 ns per unit never settles: 40 intervals of 200 - i. MSER-5 hits its cap
// (4 of 8 batches, 20 units) and the 20 steady intervals (180 .. 161) still ramp: head 2
// (180, 179: mean 179.5) vs the median of 178 .. 161 = 169.5: 5.9 % slower -> both warnings.
TEST(SteadyState, ARampingSeriesWarnsTwice) {
  std::vector<Op> ops;
  int64_t start = 0;
  for (int64_t i = 0; i <= 40; ++i) {
    ops.push_back({Engine::kKernel, start, start + 10, 0, 1, 0, "k"});
    start += 200 - i;
  }
  Trace trace = MakeTrace(ops);
  SteadyState state = ComputeSteadyState(trace, 0, WholeWindow(0, start),
                                         Named(UnitSeriesSpec::Kind::kKernelLaunches, "k"));
  ASSERT_EQ(state.units.size(), 40u);
  EXPECT_TRUE(state.mser.hit_cap);
  EXPECT_EQ(state.first_kept, 20u);
  EXPECT_NEAR(*state.head_ratio, 179.5 / 169.5, 1e-12);
  ASSERT_EQ(state.warnings.size(), 2u);
  EXPECT_NE(state.warnings[0].find("no steady state"), std::string::npos);
  EXPECT_NE(state.warnings[1].find("first 2 steady units are 5.9 % slower"), std::string::npos)
      << state.warnings[1];
}

TEST(SteadyState, TooFewUnitsOrUnknownNamesAreErrors) {
  std::vector<Op> ops;
  for (int64_t i = 0; i < 10; ++i)
    ops.push_back({Engine::kKernel, 100 * i, 100 * i + 50, 0, 1, 0, "k"});
  Trace trace = MakeTrace(ops);
  // 10 launches are only 9 intervals.
  try {
    ComputeSteadyState(trace, 0, WholeWindow(0, 1000),
                       Named(UnitSeriesSpec::Kind::kKernelLaunches, "k"));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "memory.trace");
    EXPECT_NE(e.problem().find("only 9 unit(s)"), std::string::npos) << e.what();
    EXPECT_NE(e.problem().find("at least 10"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ComputeSteadyState(trace, 0, WholeWindow(0, 1000),
                                  Named(UnitSeriesSpec::Kind::kKernelLaunches, "missing")),
               InputError);
  EXPECT_THROW(ComputeSteadyState(trace, 0, WholeWindow(0, 1000),
                                  Named(UnitSeriesSpec::Kind::kNvtxRanges, "missing")),
               InputError);
  EXPECT_THROW(ComputeSteadyState(trace, 0, WholeWindow(0, 30), Slices(50)), InputError);
}

// --window steady resolves through ComputeEngineLoad like every other policy: with a flat series
// MSER-5 drops only the first unit (mser.h), so the steady window starts at the second slice.
// Window processing [0, 1000): 50 slices of 20 ns; kernels back to back, so every slice is 20.
TEST(SteadyState, SteadyWindowPolicyThroughTheEngineLoad) {
  std::vector<Op> ops;
  for (int64_t i = 0; i < 100; ++i)
    ops.push_back({Engine::kKernel, 10 * i, 10 * i + 10});
  Trace trace = MakeTrace(ops);
  EngineLoadOptions options;
  options.window = ParseWindowSpec("steady");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].window.policy, "steady");
  EXPECT_EQ(loads[0].window.start_ns, 20);
  EXPECT_EQ(loads[0].window.end_ns, 1000);
  // The two warm-up kernels, [0,10) and [10,20), are what the window leaves out.
  EXPECT_EQ(loads[0].window.note,
            "2 op(s) (20 ns busy) lie outside the window; --window all includes them");
  EXPECT_EQ(loads[0].engine(Engine::kKernel).busy_ns, 980);
}

// The comparison of a slow start: 20 launches every 200 ns then 80 every 100 ns (kernel 50 ns
// each); processing window [0, 4000 + 7900 + 50) = [0, 11950). Unit series (launch intervals):
// 20 x 200 then 79 x 100; MSER-5 drops 20 units -> steady from 4000.
//   whole: 100 launches, kernel busy 5000 -> 50 ns per unit; window 11950 / 100 = 119.5 ns
//   steady [4000, 11950): 80 launches, busy 4000 -> 50 ns per unit; window 7950 / 80 = 99.375
TEST(SteadyState, ComparisonCountsUnitsInEachWindow) {
  std::vector<Op> ops;
  for (int64_t i = 0; i < 100; ++i) {
    int64_t start = i < 20 ? 200 * i : 4000 + 100 * (i - 20);
    ops.push_back({Engine::kKernel, start, start + 50, 0, 1, 0, "step"});
  }
  Trace trace = MakeTrace(ops);
  UnitsSpec units = ParseUnitsFrom("kernel:step");
  std::vector<SteadyComparison> comparisons = CompareSteadyState(trace, units);
  ASSERT_EQ(comparisons.size(), 1u);
  const SteadyComparison& c = comparisons[0];
  EXPECT_EQ(c.state.first_kept, 20u);
  EXPECT_EQ(c.whole.window.start_ns, 0);
  EXPECT_EQ(c.whole.window.end_ns, 11950);
  EXPECT_EQ(c.steady.window.start_ns, 4000);
  EXPECT_EQ(c.steady.window.end_ns, 11950);
  EXPECT_EQ(c.whole.units, 100);
  EXPECT_EQ(c.steady.units, 80);
  EXPECT_EQ(c.whole.engine(Engine::kKernel).busy_ns, 5000);
  EXPECT_EQ(c.steady.engine(Engine::kKernel).busy_ns, 4000);

  UnitsSpec fixed;
  fixed.kind = UnitsSpec::Kind::kFixed;
  fixed.count = 100;
  EXPECT_THROW(CompareSteadyState(trace, fixed), InputError);
}

}  // namespace
}  // namespace gpuroof
