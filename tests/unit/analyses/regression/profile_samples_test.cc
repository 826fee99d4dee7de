#include "gpuroof/analyses/regression/profile_samples.h"

#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::AddLaunch;
using testing::AddRange;
using testing::MakeTrace;
using testing::Op;

// The options every test here starts from: iterations are the NVTX ranges "step".
ProfileOptions StepOptions() {
  ProfileOptions options;
  options.iteration_range = "step";
  return options;
}

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
  ProfileOptions options = StepOptions();
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
  // GPU idle over disjoint windows: from the iteration's first op (900) to the next iteration's
  // (1900; the last one: its wall time, 1000 ns), less the compute busy in it (200 ns).
  EXPECT_EQ(s.metrics.at("idle:0").level, MetricLevel::kIdle);
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(6, 800.0));
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
  ProfileOptions options = StepOptions();
  options.warmup = 2;
  return SummarizeProfile(EightSteps(ops), options);
}

// A CUDA graph traced at graph level is compute: each iteration launches kernel "a" (900..1100)
// and one graph replay (1050..1400) that overlaps it. Compute busy is their union, 500 ns, not the
// kernel's 200 with the graph as a "copy" engine; idle is the 1000 ns window (900..1900) less it.
TEST(ProfileSamplesTest, WholeGraphLaunchesAreComputeBusy) {
  const ProfileSummary s = KernelAndOtherPerStep({Engine::kGraph, 1050, 1400, 0, 7});
  EXPECT_EQ(s.metrics.at("busy:kernel:0").level, MetricLevel::kGpuBusy);
  EXPECT_EQ(s.metrics.at("busy:kernel:0").values, std::vector<double>(6, 500.0));
  EXPECT_EQ(s.metrics.count("copy:graph:0"), 0u);
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(6, 500.0));
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
  // Idle: the window 900..1900 less compute busy 200 (communication is not compute).
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(6, 800.0));
}

TEST(ProfileSamplesTest, AnnotationRangesWithinSteadyIterationsOnTheirThread) {
  Trace trace = EightIterations();
  for (int i = 0; i < 8; ++i) {
    const int64_t t = i * 1000;
    AddRange(trace, "forward", t + 100, t + 400 + 10 * i, 1);  // inside: 300 + 10 i ns
    AddRange(trace, "other_thread", t + 100, t + 200, 2);      // no iteration on thread 2
  }
  AddRange(trace, "spans_two", 5500, 6500, 1);  // crosses an iteration boundary: no sample
  ProfileOptions options = StepOptions();
  options.warmup = 2;
  const ProfileSummary s = SummarizeProfile(trace, options);
  const SampleSet& forward = s.metrics.at("range:forward");
  EXPECT_EQ(forward.level, MetricLevel::kRange);
  EXPECT_EQ(forward.name, "forward");
  // Iterations 0 and 1 are warm-up: their instances are left out, the rest in time order.
  EXPECT_EQ(forward.values, (std::vector<double>{320, 330, 340, 350, 360, 370}));
  EXPECT_EQ(forward.total, 2070.0);
  EXPECT_EQ(s.metrics.count("range:other_thread"), 0u);
  // S12: not compared, but counted (the steady iterations' 6 instances) and said.
  EXPECT_EQ(s.other_thread_ranges.at("other_thread"), 6u);
  bool said = false;
  for (const std::string& w : s.warnings)
    said = said ||
           w.find("other threads of the iteration's process are not compared") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_EQ(s.metrics.count("range:spans_two"), 0u);
  EXPECT_EQ(s.metrics.count("range:step"), 0u);  // the iteration itself is not a range sample
}

TEST(ProfileSamplesTest, AutoWarmupDropsAtLeastTheFirstIteration) {
  ProfileOptions options = StepOptions();
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
  EXPECT_EQ(s.warnings.front(),
            "no --iteration-range given: kernel-level metrics only (give --iteration-range NAME)");
  // Fixed warm-up drops per kernel; a kernel with nothing left disappears.
  options.warmup = 1;
  const ProfileSummary trimmed = SummarizeProfile(trace, options);
  EXPECT_EQ(trimmed.metrics.at("kernel:a").values, (std::vector<double>{30, 20}));
  EXPECT_EQ(trimmed.metrics.count("kernel:b"), 0u);
}

// A Kineto trace has its steps (ProfilerStep#N) whether or not they are asked for: the warning
// says how many, and how to take them, instead of reading as if the trace had none.
TEST(ProfileSamplesTest, WithoutIterationsTheWarningCountsTheTracesSteps) {
  Trace trace = MakeTrace(
      {{Engine::kKernel, 0, 50, 0, 7, 0, "a"}, {Engine::kKernel, 1000, 1050, 0, 7, 0, "a"}});
  AddRange(trace, "ProfilerStep#1", 0, 1000, 1);
  AddRange(trace, "ProfilerStep#2", 1000, 2000, 1);
  AddRange(trace, "forward", 0, 500, 1);
  ProfileOptions options;
  const ProfileSummary s = SummarizeProfile(trace, options);
  EXPECT_FALSE(s.has_iterations);
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_EQ(s.warnings.front(),
            "no --iteration-range given: kernel-level metrics only; the trace has 2 "
            "ProfilerStep#* range(s) (give --iteration-range 'ProfilerStep#*')");
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

// Iterations "step" of the given wall times, one every 1000 ns on thread 1, each launching one
// 200 ns kernel "a" at 100 ns into the step, plus `extra` ops launched at the given times.
Trace StepsWithWalls(const std::vector<double>& walls, std::vector<Op> extra = {},
                     const std::vector<int64_t>& extra_launches = {}) {
  std::vector<Op> ops;
  for (size_t i = 0; i < walls.size(); ++i) {
    const auto t = static_cast<int64_t>(i) * 1000;
    ops.push_back({Engine::kKernel, t + 100, t + 300, 0, 7, 0, "a"});
  }
  ops.insert(ops.end(), extra.begin(), extra.end());
  Trace trace = MakeTrace(ops);
  trace.devices.push_back({0, "Test GPU"});
  for (size_t i = 0; i < walls.size(); ++i) {
    const auto t = static_cast<int64_t>(i) * 1000;
    AddRange(trace, "step", t, t + static_cast<int64_t>(walls[i]), 1);
    AddLaunch(trace, i, 1, t + 10);
  }
  for (size_t k = 0; k < extra_launches.size(); ++k)
    AddLaunch(trace, walls.size() + k, 1, extra_launches[k]);
  return trace;
}

// F3: a stationary 10-step capture keeps 9 iterations and says no NO STEADY STATE (MSER-5 with
// its reference cap dropped 5 and warned, every time).
TEST(ProfileSamplesTest, StationaryTenStepCaptureKeepsAllButTheFirst) {
  ProfileOptions options = StepOptions();
  const ProfileSummary s =
      SummarizeProfile(StepsWithWalls({900, 901, 899, 900, 902, 898, 900, 901, 899, 900}), options);
  EXPECT_EQ(s.warmup_dropped, 1u);
  EXPECT_EQ(s.steady_iterations, 9u);
  for (const std::string& w : s.warnings)
    EXPECT_EQ(w.find("NO STEADY STATE"), std::string::npos) << w;
}

// At the cap, a material drift is still cut and said: 20 steps falling 900 -> 700 over the first
// ten, then flat (B = 4, cap 1: d* = 1).
TEST(ProfileSamplesTest, DriftUpToTheCapIsCutAndSaid) {
  std::vector<double> walls;
  for (int i = 0; i < 10; ++i)
    walls.push_back(900 - 20 * i);
  for (int i = 0; i < 10; ++i)
    walls.push_back(700 + (i % 2));
  ProfileOptions options = StepOptions();
  const ProfileSummary s = SummarizeProfile(StepsWithWalls(walls), options);
  EXPECT_EQ(s.warmup_dropped, 5u);
  bool said = false;
  for (const std::string& w : s.warnings)
    said = said ||
           w.rfind("NO STEADY STATE: MSER-5 dropped the largest warm-up it may (5 of 20", 0) == 0;
  EXPECT_TRUE(said);
}

// A3: a 10-step capture is too short for MSER-5 to consider any cut (it needs 20 steps), so only
// the first step went and steps 2-4 (950, 955, 948 ns against ~800) were kept without a word.
// MSER on single steps cuts at 4; their mean, 951 ns, is 18.9 % above the kept 800 ns, far over
// 2 % and over 4 standard errors (kept SD sqrt(2) ns): dropped, and said with the figures.
TEST(ProfileSamplesTest, ShortCaptureWarmupIsDroppedAndSaid) {
  ProfileOptions options = StepOptions();
  const ProfileSummary s =
      SummarizeProfile(StepsWithWalls({990, 950, 955, 948, 800, 801, 799, 800, 802, 798}), options);
  EXPECT_EQ(s.warmup_dropped, 4u);
  EXPECT_EQ(s.steady_iterations, 6u);
  EXPECT_EQ(s.metrics.at("iteration").values, (std::vector<double>{800, 801, 799, 800, 802, 798}));
  bool said = false;
  for (const std::string& w : s.warnings) {
    if (w.rfind("WARM-UP: ", 0) != 0) continue;
    said = true;
    EXPECT_NE(w.find("in 10 iterations (it needs 20); iterations 2-4 took +18.9% against the 6 "
                     "after them (mean 951 ns vs 800 ns): dropped as warm-up with the first (4 "
                     "of 10 iterations); --warmup N sets the cut"),
              std::string::npos)
        << w;
  }
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(s.warnings, "\n"));
  // A fixed warm-up is the user's cut: nothing searched, nothing said.
  options.warmup = 1;
  const ProfileSummary fixed =
      SummarizeProfile(StepsWithWalls({990, 950, 955, 948, 800, 801, 799, 800, 802, 798}), options);
  EXPECT_EQ(fixed.warmup_dropped, 1u);
  for (const std::string& w : fixed.warnings)
    EXPECT_EQ(w.rfind("WARM-UP", 0), std::string::npos) << w;
}

// One slow step in the first half of a short capture is an outlier, not a warm-up: MSER on single
// steps cuts after it (at step 8 of 16, dropping 2-8 at +4.3 % on average), but without that
// step the dropped ones are the kept ones' level. Kept, and no WARM-UP; a slow second step alone
// still is one.
TEST(ProfileSamplesTest, OneSlowStepIsNoShortCaptureWarmup) {
  ProfileOptions options = StepOptions();
  std::vector<double> walls = {990};
  for (int i = 1; i < 16; ++i)
    walls.push_back(i == 7 ? 1300 : 1000 + (i % 3));
  const ProfileSummary s = SummarizeProfile(StepsWithWalls(walls), options);
  EXPECT_EQ(s.warmup_dropped, 1u);
  for (const std::string& w : s.warnings)
    EXPECT_EQ(w.rfind("WARM-UP", 0), std::string::npos) << w;
  walls[1] = 1300;
  walls[7] = 1001;
  const ProfileSummary second = SummarizeProfile(StepsWithWalls(walls), options);
  EXPECT_EQ(second.warmup_dropped, 2u);
  // A slow second step followed by a near-normal one: a cut holding both fails the outlier test,
  // and the shorter cut, the second step alone, is the warm-up.
  const ProfileSummary near = SummarizeProfile(
      StepsWithWalls({990, 1500, 1010, 1000, 1001, 999, 1000, 1002, 998, 1000}), options);
  EXPECT_EQ(near.warmup_dropped, 2u);
}

// Stationary short captures (a slow first step, then 600 ns +- up to 2 % of uniform noise, from
// mt19937's raw output, the same on every platform) of 7 to 19 steps, 30 noise sequences each: no
// warm-up beyond the first step, no WARM-UP.
TEST(ProfileSamplesTest, StationaryShortCapturesGetNoWarmupWarning) {
  ProfileOptions options = StepOptions();
  for (size_t n : {7, 10, 13, 16, 19}) {
    for (unsigned seed = 1; seed <= 30; ++seed) {
      std::mt19937 noise(seed);
      std::vector<double> walls = {990};
      for (size_t i = 1; i < n; ++i)
        walls.push_back(600.0 + static_cast<double>(noise() % 25) - 12.0);
      const ProfileSummary s = SummarizeProfile(StepsWithWalls(walls), options);
      EXPECT_EQ(s.warmup_dropped, 1u) << n << " steps, seed " << seed;
      for (const std::string& w : s.warnings)
        EXPECT_EQ(w.rfind("WARM-UP", 0), std::string::npos) << n << " steps, seed " << seed << w;
    }
  }
}

// F9/S8: a GPU lagging its CPU (each step's kernel runs 1500..1700 ns after the step starts, its
// copy at once) made the op span 1650 ns on a 1000 ns iteration. Over disjoint windows (first op
// to the next step's first op) less every compute op in them, idle is 800 ns, never over the wall.
TEST(ProfileSamplesTest, IdleOfALaggingGpuNeverExceedsTheIteration) {
  std::vector<Op> ops;
  for (int i = 0; i < 8; ++i) {
    const int64_t t = i * 1000;
    ops.push_back({Engine::kKernel, t + 1500, t + 1700, 0, 7, 0, "a"});
    ops.push_back({Engine::kH2D, t + 50, t + 60, 0, 8, 64, ""});
  }
  ProfileOptions options = StepOptions();
  options.warmup = 2;
  const ProfileSummary s = SummarizeProfile(EightSteps(ops), options);
  const std::vector<double>& idle = s.metrics.at("idle:0").values;
  ASSERT_EQ(idle.size(), 6u);
  // A9: the last step too. Its window ran to its own kernel's end (8700) when that was later than
  // its wall time: 7050..8700 less 200 ns was capped at 1000, its whole wall time. Now for its
  // period (1000 ns wall, no gap), 7050..8050, less the previous step's kernel (7500..7700).
  for (size_t i = 0; i < idle.size(); ++i)
    EXPECT_EQ(idle[i], 800.0) << i;
}

// A9: steps of 800 ns every 1000 ns (200 ns gaps), each kernel 100..300 ns into its step. A step's
// window runs to the next step's first op (1000 ns); its first 800 ns (the wall) count, less 200
// busy: 600. The last step's window is its period too (wall + the median gap), so it reads 600
// like the others, not its own wall less nothing. (s34 review2 P6: the window's idle, 800, was
// capped at the wall, 800, so the 200 ns host gap between the ranges counted as idle.)
TEST(ProfileSamplesTest, IdleOfTheLastIterationSpansItsPeriod) {
  ProfileOptions options = StepOptions();
  options.warmup = 1;
  const ProfileSummary s =
      SummarizeProfile(StepsWithWalls(std::vector<double>(10, 800.0)), options);
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(9, 600.0));
}

// s34 finding 5: a CPU range that only launches (50 ns every 1000 ns) while its kernel runs later
// (100..300 ns): idle was capped at the 50 ns wall without a word, so it read as the launch time.
// s34 review2 P6: capping the value at the iteration's length (the span, 200 ns) made idle the
// kernel's busy time, 200, on a GPU busy the whole length. Idle is now the idle time inside the
// length: 200 less 200 busy = 0, and a note gives the count and the median over the whole window
// (1000 ns less 200 busy).
TEST(ProfileSamplesTest, IdleIsTheIdleInsideTheIterationsLengthAndTheRestIsSaid) {
  ProfileOptions options = StepOptions();
  options.warmup = 1;
  const ProfileSummary s = SummarizeProfile(StepsWithWalls(std::vector<double>(10, 50.0)), options);
  EXPECT_EQ(s.metrics.at("idle:0").values, std::vector<double>(9, 0.0));
  size_t notes = 0;
  for (const std::string& w : s.warnings) {
    if (w.find("GPU idle") == std::string::npos) continue;
    ++notes;
    // A note (report-only metric), one line, with the count and the whole window's median.
    EXPECT_EQ(w.rfind("note: GPU idle / iter: counted within the iteration's length", 0), 0u) << w;
    EXPECT_NE(w.find("on 9 of 9 steady iteration(s)"), std::string::npos) << w;
    EXPECT_NE(w.find("next iteration's first op 800 ns"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  }
  EXPECT_EQ(notes, 1u);
  // A second kernel (500..1000, launched at 20 in the range) makes the span 100..1000, 900 ns,
  // with 200 ns of idle inside it (300..500): those count. The window's last 100 ns (1000..1100,
  // after the span) do not, and the note says so (window 1000 less 700 busy: 300).
  std::vector<Op> extra;
  std::vector<int64_t> launches;
  for (int i = 0; i < 10; ++i) {
    extra.push_back({Engine::kKernel, i * 1000 + 500, i * 1000 + 1000, 0, 7, 0, "b"});
    launches.push_back(i * 1000 + 20);
  }
  const ProfileSummary two =
      SummarizeProfile(StepsWithWalls(std::vector<double>(10, 50.0), extra, launches), options);
  EXPECT_EQ(two.metrics.at("idle:0").values, std::vector<double>(9, 200.0));
  size_t two_notes = 0;
  for (const std::string& w : two.warnings) {
    if (w.find("GPU idle") == std::string::npos) continue;
    ++two_notes;
    EXPECT_NE(w.find("on 9 of 9 steady iteration(s)"), std::string::npos) << w;
    EXPECT_NE(w.find("next iteration's first op 300 ns"), std::string::npos) << w;
  }
  EXPECT_EQ(two_notes, 1u);
  // Back-to-back steps (1000 ns walls): the window is the length, nothing is left out or said.
  const ProfileSummary full =
      SummarizeProfile(StepsWithWalls(std::vector<double>(10, 1000.0)), options);
  EXPECT_EQ(full.metrics.at("idle:0").values, std::vector<double>(9, 800.0));
  for (const std::string& w : full.warnings)
    EXPECT_EQ(w.find("GPU idle"), std::string::npos) << w;
}

// F12: a kernel launched between the steps belongs to no iteration: counted, and said.
TEST(ProfileSamplesTest, WorkLaunchedBetweenTheStepsIsCounted) {
  const std::vector<double> walls(10, 800.0);  // 200 ns gaps between the steps
  std::vector<Op> extra;
  std::vector<int64_t> launches;
  for (int i = 2; i < 6; ++i) {
    const int64_t t = i * 1000;
    extra.push_back({Engine::kKernel, t + 850, t + 950, 0, 7, 0, "sneaky"});
    launches.push_back(t + 820);
  }
  ProfileOptions options = StepOptions();
  options.warmup = 1;
  const ProfileSummary s = SummarizeProfile(StepsWithWalls(walls, extra, launches), options);
  EXPECT_EQ(s.outside_ops, 4u);
  EXPECT_EQ(s.outside_kernel_ns, 400.0);
  EXPECT_EQ(s.between_ops, 4u);
  EXPECT_EQ(s.between_kernel_ns, 400.0);
  EXPECT_EQ(s.metrics.count("kernel:sneaky <<<(0,0,0),(0,0,0)>>>"), 0u);
  bool said = false;
  for (const std::string& w : s.warnings)
    said = said || w.rfind("outside the iterations: 4 GPU op(s) (400 ns", 0) == 0;
  EXPECT_TRUE(said);
}

// The step range also open on a second thread (0.5 us later): each step would be two samples,
// narrowing the intervals as if the run were twice as long. Only the outermost are iterations,
// said.
TEST(ProfileSamplesTest, AStepRangeOnTwoThreadsIsOneIterationEach) {
  Trace trace = EightIterations();
  for (int i = 0; i < 8; ++i)
    AddRange(trace, "step", i * 1000 + 1, i * 1000 + 999, 2);
  ProfileOptions options = StepOptions();
  options.warmup = 2;
  const ProfileSummary s = SummarizeProfile(trace, options);
  EXPECT_EQ(s.iterations, 8u);
  EXPECT_EQ(s.steady_iterations, 6u);
  EXPECT_EQ(s.metrics.at("iteration").values, std::vector<double>(6, 1000.0));
  bool said = false;
  for (const std::string& w : s.warnings)
    said = said || w == "8 of 16 instance(s) of range 'step' lie inside or overlap another "
                        "instance of it (nested, or on another thread): only the outermost are "
                        "iterations";
  EXPECT_TRUE(said) << fmt::format("{}", fmt::join(s.warnings, "\n"));
}

// S3: one capture holding two processes' iteration ranges is refused, naming both.
TEST(ProfileSamplesTest, IterationsOfSeveralProcessesAreRefused) {
  Trace trace = EightIterations();
  for (NvtxRange& range : trace.nvtx_ranges)
    if (range.start_ns >= 4000) range.process_id = 77;
  ProfileOptions options = StepOptions();
  try {
    SummarizeProfile(trace, options);
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("open in 2 processes"), std::string::npos) << what;
    EXPECT_NE(what.find("pid 77 (4 instance(s))"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace gpuroof
