// Steady state (docs/metrics.md, "Steady state"): a per-unit time series of one device, where
// its warm-up ends (MSER-5), the `steady` window that follows, and how much the per-unit figures
// of the whole processing window differ from those of its steady part.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/mser.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// MSER-5 compares batch means of 5 units: with fewer than two batches there is nothing to compare.
inline constexpr size_t kSteadyMinUnits = 10;
// The warm-up is "still ramping" when the first 10 % of the steady units are more than 5 %
// slower than the median of the other steady units.
inline constexpr size_t kRampHeadPercent = 10;  // rounded up, at least one unit
inline constexpr double kRampTolerance = 0.05;

// One unit of the series: its interval and the value MSER-5 looks at (ns): the instance's
// duration, the time to the next launch, or the slice's busy time of the busiest engine.
struct UnitSample {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  double value_ns = 0;
};

struct SteadyState {
  int32_t device_id = 0;
  UnitSeriesSpec series;
  Window whole;                        // the processing window the series covers
  std::optional<Engine> slice_engine;  // kSlices: the engine busiest over the whole window
  std::vector<UnitSample> units;       // in time order
  // kNvtxRanges: the instance each unit is (its sample spans the instance's work on the device),
  // and what the series left out, said in `notes`.
  std::vector<const NvtxRange*> instances;
  std::vector<std::string> notes;  // what the series left out (not warnings: nothing is off)
  MserResult mser;
  size_t first_kept = 0;  // index of the first steady unit (MSER-5's drop count, at least 1)
  int64_t start_ns = 0;   // the steady window's start: units[first_kept].start_ns
  // Mean value of the first 10 % (at least one) of the steady units / median value of the other
  // steady units; unset when that median is 0.
  std::optional<double> head_ratio;
  std::vector<std::string> warnings;  // "no steady state..." (MSER hit its cap), "still ramping"
};

// The series of device `device_id` over `whole` (its processing window), MSER-5 over it and the
// warnings. Units: kSlices cuts `whole` into `slices` equal parts of whole ns; kKernelLaunches
// takes the launches of the kernel (short or demangled name) on the device starting in `whole`,
// one unit from each launch to the next; kNvtxRanges takes the outermost instances of the range
// with GPU work on the device (attributed as for --units-from nvtx:), one unit each, spanning
// that work (the series value is the instance's own duration). Throws InputError
// naming the trace when the kernel or range does not exist, when there are fewer than
// kSteadyMinUnits units, or when the window is shorter than the slice count in ns.
SteadyState ComputeSteadyState(const Trace& trace, int32_t device_id, const Window& whole,
                               const UnitSeriesSpec& series);

// [state.start_ns, state.whole.end_ns), policy "steady", the warnings (and the processing
// window's own note) joined in its note. For the kNvtxRanges series it is a work window instead:
// the GPU work of the steady instances (units[first_kept...]) on the device, so an instance
// counts whole or not at all.
Window SteadyWindow(const Trace& trace, const SteadyState& state, const std::string& text);

// The series that follows --units-from: kernel launches or NVTX ranges; fixed slices otherwise.
UnitSeriesSpec UnitSeriesFrom(const UnitsSpec& units);

// "50 slices (busy time of H2D)", "1999 intervals between launches of kernel 'k'",
// "2000 instances of NVTX range 'batch'".
std::string DescribeSeries(const SteadyState& state);

// The engine load of one device over the whole processing window and over its steady part.
// Units are those of `units` counted in each window, or, for the slice series, the slices in each
// window (unit name "slice").
struct SteadyComparison {
  SteadyState state;
  DeviceLoad whole;
  DeviceLoad steady;
};

// One comparison per device (ascending id). `units` must not be a fixed count (a count given for
// the whole run cannot be split between warm-up and steady state): InputError "--units".
std::vector<SteadyComparison> CompareSteadyState(const Trace& trace, const UnitsSpec& units);

}  // namespace gpuroof
