#include "gpuroof/analyses/steady_state.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/analyses/kernel_matching.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/roofline.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// Equal slices of whole ns: slice k is [Boundary(k), Boundary(k + 1)), exact integer arithmetic
// (no overflow for any window length).
class Slicing {
 public:
  Slicing(const Window& window, int64_t count)
      : start_ns_(window.start_ns), length_ns_(window.length_ns()), count_(count) {}

  int64_t Boundary(int64_t k) const {
    return start_ns_ + (length_ns_ / count_) * k + ((length_ns_ % count_) * k) / count_;
  }

  // The slice holding time_ns, which lies in the window.
  int64_t SliceOf(int64_t time_ns) const {
    double guess = static_cast<double>(time_ns - start_ns_) / static_cast<double>(length_ns_) *
                   static_cast<double>(count_);
    auto k = std::clamp(static_cast<int64_t>(guess), int64_t{0}, count_ - 1);
    while (k > 0 && Boundary(k) > time_ns)
      --k;
    while (k < count_ - 1 && Boundary(k + 1) <= time_ns)
      ++k;
    return k;
  }

 private:
  int64_t start_ns_;
  int64_t length_ns_;
  int64_t count_;
};

// Per slice, the busy time of the engine busiest over the whole window (ties: the earlier engine
// in display order, as for the bottleneck).
void SliceSeries(const Trace& trace, SteadyState& state) {
  const Window& whole = state.whole;
  const int64_t count = state.series.slices;
  if (count < 1 || whole.length_ns() < count) {
    throw InputError(trace.source,
                     fmt::format("device {}: the processing window ({} ns) is too short to cut "
                                 "into {} slices for the steady-state series",
                                 state.device_id, whole.length_ns(), count));
  }
  const Slicing slicing(whole, count);
  std::vector<std::array<IntervalUnion, kEngineCount>> unions(static_cast<size_t>(count));
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    if (trace.streams[block.stream[i]].device_id != state.device_id) return;
    int64_t start = std::max(block.start_ns[i], whole.start_ns);
    const int64_t end = std::min(block.end_ns[i], whole.end_ns);
    if (end <= start) return;  // outside the window, or no time: occupies no slice
    const auto e = static_cast<size_t>(EngineIndex(block.engine[i]));
    // Pieces of one op go to consecutive slices; within a slice starts stay in order.
    for (int64_t k = slicing.SliceOf(start); start < end; ++k) {
      const int64_t piece_end = std::min(end, slicing.Boundary(k + 1));
      unions[static_cast<size_t>(k)][e].Add(start, piece_end);
      start = piece_end;
    }
  });
  std::array<int64_t, kEngineCount> totals{};
  for (const auto& slice : unions) {
    for (size_t e = 0; e < totals.size(); ++e)
      totals[e] += slice[e].length_ns();
  }
  const auto busiest = static_cast<size_t>(std::max_element(totals.begin(), totals.end()) -
                                           totals.begin());  // first of equal maxima
  if (totals[busiest] > 0) state.slice_engine = kAllEngines[busiest];
  for (int64_t k = 0; k < count; ++k) {
    state.units.push_back(
        {slicing.Boundary(k), slicing.Boundary(k + 1),
         static_cast<double>(unions[static_cast<size_t>(k)][busiest].length_ns())});
  }
}

// From each launch of the kernel to the next one, over the launches starting in the window.
void KernelSeries(const Trace& trace, SteadyState& state) {
  const std::vector<bool> named = MatchKernelSignatures(trace, state.series.name).signatures;
  std::vector<int64_t> starts;
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    const int64_t start = block.start_ns[i];
    if (named[block.signature[i]] && start >= state.whole.start_ns && start < state.whole.end_ns &&
        trace.streams[block.stream[i]].device_id == state.device_id) {
      starts.push_back(start);
    }
  });
  for (size_t i = 0; i + 1 < starts.size(); ++i) {
    state.units.push_back(
        {starts[i], starts[i + 1], static_cast<double>(starts[i + 1] - starts[i])});
  }
}

// Each outermost instance of the range with GPU work on the device: its duration, the sample
// spanning its work there (so the steady window can start where the first kept instance's work
// does). Instances of another process (no work on this device), nested or overlapping ones are
// left out, and a note counts them.
void NvtxSeries(const Trace& trace, SteadyState& state) {
  std::vector<const NvtxRange*> ranges = FindNvtxRanges(trace, state.series.name);
  if (ranges.empty()) {
    throw InputError(trace.source, fmt::format("no NVTX range named '{}' for the steady-state "
                                               "series",
                                               state.series.name));
  }
  std::string copies_note;
  DropGpuCopiesBesideCpu(ranges, "'" + state.series.name + "'", &copies_note);
  if (!copies_note.empty()) state.notes.push_back(copies_note);
  const size_t found = ranges.size();
  OutermostInstances outermost = KeepOutermost(ranges);
  if (outermost.overlapping > 0) {
    state.notes.push_back(
        OverlappingInstancesText(outermost.overlapping, found, "'" + state.series.name + "'") +
        ": only the outermost are in the steady-state series");
  }
  const RangeAttribution work = AttributeGpuWork(trace, outermost.kept, state.series.scope);
  size_t without_work = 0;
  for (const RangeInstanceWork& instance : work.instances) {
    const NvtxRange& range = trace.nvtx_ranges[instance.range_index];
    bool any = false;
    UnitSample sample;
    for (OpRef op : instance.ops) {
      if (trace.streams[trace.blocks[op.block].stream[op.index]].device_id != state.device_id) {
        continue;
      }
      const OpInterval interval = CountedInterval(trace, instance, op);
      sample.start_ns = any ? std::min(sample.start_ns, interval.start_ns) : interval.start_ns;
      sample.end_ns = any ? std::max(sample.end_ns, interval.end_ns) : interval.end_ns;
      any = true;
    }
    if (!any) {
      ++without_work;
      continue;
    }
    sample.value_ns = static_cast<double>(range.end_ns - range.start_ns);
    state.units.push_back(sample);
    state.instances.push_back(&range);
  }
  if (without_work > 0) {
    state.notes.push_back(fmt::format(
        "{} of {} outermost instance(s) of range '{}' had no GPU work on this device (another "
        "process's, or empty): not in the steady-state series",
        without_work, outermost.kept.size(), state.series.name));
  }
}

std::string SeriesSource(const UnitSeriesSpec& series) {
  switch (series.kind) {
    case UnitSeriesSpec::Kind::kSlices:
      return "slices";
    case UnitSeriesSpec::Kind::kKernelLaunches:
      return fmt::format("launches of kernel '{}'", series.name);
    case UnitSeriesSpec::Kind::kNvtxRanges:
      break;
  }
  return fmt::format("instances of NVTX range '{}'", series.name);
}

double MedianOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

// The ramp check on the steady units (see kRampHeadPercent).
void CheckRamp(SteadyState& state) {
  const size_t kept = state.units.size() - state.first_kept;
  const size_t head = std::max<size_t>(1, (kept * kRampHeadPercent + 99) / 100);
  if (kept <= head) return;
  double head_sum = 0;
  for (size_t i = state.first_kept; i < state.first_kept + head; ++i)
    head_sum += state.units[i].value_ns;
  std::vector<double> rest;
  for (size_t i = state.first_kept + head; i < state.units.size(); ++i)
    rest.push_back(state.units[i].value_ns);
  const double median = MedianOf(std::move(rest));
  if (median <= 0) return;
  state.head_ratio = head_sum / static_cast<double>(head) / median;
  if (*state.head_ratio > 1.0 + kRampTolerance) {
    const bool slices = state.series.kind == UnitSeriesSpec::Kind::kSlices;
    state.warnings.push_back(fmt::format(
        "the first {} steady {} {} {:.1f} % {} than the median of the rest: the device may "
        "still be warming up (clocks ramping); record a longer run",
        head, slices ? "slices" : "units", head == 1 ? "is" : "are",
        100.0 * (*state.head_ratio - 1.0), slices ? "busier" : "slower"));
  }
}

}  // namespace

SteadyState ComputeSteadyState(const Trace& trace, int32_t device_id, const Window& whole,
                               const UnitSeriesSpec& series) {
  SteadyState state;
  state.device_id = device_id;
  state.series = series;
  state.whole = whole;
  switch (series.kind) {
    case UnitSeriesSpec::Kind::kSlices:
      SliceSeries(trace, state);
      break;
    case UnitSeriesSpec::Kind::kKernelLaunches:
      KernelSeries(trace, state);
      break;
    case UnitSeriesSpec::Kind::kNvtxRanges:
      NvtxSeries(trace, state);
      break;
  }
  if (state.units.size() < kSteadyMinUnits) {
    throw InputError(
        trace.source,
        fmt::format("device {}: only {} unit(s) from {} in the processing window; "
                    "finding a steady state needs at least {} (MSER-5 compares "
                    "batches of 5); record a longer run or use another --window",
                    device_id, state.units.size(), SeriesSource(series), kSteadyMinUnits));
  }
  std::vector<double> values;
  values.reserve(state.units.size());
  for (const UnitSample& unit : state.units)
    values.push_back(unit.value_ns);
  state.mser = MserTruncation(values, 5);
  state.first_kept = state.mser.dropped;
  state.start_ns = state.units[state.first_kept].start_ns;
  if (state.mser.hit_cap) {
    state.warnings.push_back(fmt::format(
        "no steady state: MSER-5 dropped the most it may (the first {} of {} units) and the "
        "series is still drifting; the trace is probably too short",
        state.first_kept, state.units.size()));
  }
  CheckRamp(state);
  return state;
}

Window SteadyWindow(const Trace& trace, const SteadyState& state, const std::string& text) {
  Window window;
  if (state.series.kind == UnitSeriesSpec::Kind::kNvtxRanges) {
    // A work window: the steady instances' work on the device, whole, and nothing else.
    RangeSelection steady;
    steady.text = steady.name = state.series.name;
    steady.ranges.assign(state.instances.begin() + static_cast<ptrdiff_t>(state.first_kept),
                         state.instances.end());
    steady.instances_of_name = state.instances.size();
    window = RangeWorkWindow(
        trace, steady, AttributeGpuWork(trace, steady.ranges, state.series.scope), state.device_id);
    window.resolved = fmt::format("'{}' (the {} steady instance{})", state.series.name,
                                  steady.ranges.size(), steady.ranges.size() == 1 ? "" : "s");
  } else {
    window.start_ns = state.start_ns;
    window.end_ns = state.whole.end_ns;
    // The whole window's own note first, then the warnings. (Appending in place: inserting at the
    // front of a copied vector trips GCC 12's -Wnull-dereference at -O3.)
    window.note = state.whole.note;
  }
  window.policy = "steady";
  window.text = text;
  for (const std::string& note : state.notes) {
    if (!window.note.empty()) window.note += "; ";
    window.note += note;
  }
  for (const std::string& warning : state.warnings) {
    if (!window.note.empty()) window.note += "; ";
    window.note += warning;
  }
  return window;
}

UnitSeriesSpec UnitSeriesFrom(const UnitsSpec& units) {
  UnitSeriesSpec series;
  if (units.kind == UnitsSpec::Kind::kKernelLaunches) {
    series.kind = UnitSeriesSpec::Kind::kKernelLaunches;
    series.name = units.name;
  } else if (units.kind == UnitsSpec::Kind::kNvtxRanges) {
    series.kind = UnitSeriesSpec::Kind::kNvtxRanges;
    series.name = units.name;
    series.scope = units.scope;
  }
  return series;
}

std::string DescribeSeries(const SteadyState& state) {
  switch (state.series.kind) {
    case UnitSeriesSpec::Kind::kSlices:
      return fmt::format("{} slices (busy time of {})", state.units.size(),
                         state.slice_engine ? EngineName(*state.slice_engine) : "no engine");
    case UnitSeriesSpec::Kind::kKernelLaunches:
      return fmt::format("{} intervals between launches of kernel '{}'", state.units.size(),
                         state.series.name);
    case UnitSeriesSpec::Kind::kNvtxRanges:
      break;
  }
  return fmt::format("{} instances of NVTX range '{}'", state.units.size(), state.series.name);
}

std::vector<SteadyComparison> CompareSteadyState(const Trace& trace, const UnitsSpec& units) {
  if (units.kind == UnitsSpec::Kind::kFixed) {
    throw InputError("--units",
                     "a fixed unit count cannot be split between the warm-up and the steady "
                     "state; count units with --units-from kernel:NAME or nvtx:NAME instead");
  }
  EngineLoadOptions whole_options;
  whole_options.units = units;
  EngineLoadOptions steady_options = whole_options;
  steady_options.window = ParseWindowSpec("steady");
  steady_options.window.steady_units = UnitSeriesFrom(units);
  std::vector<DeviceLoad> whole = ComputeEngineLoad(trace, whole_options);
  std::vector<DeviceLoad> steady = ComputeEngineLoad(trace, steady_options);
  // The warm-up is found over the processing window, as the steady window is cut from it; with
  // NVTX units both windows are the range's work (every instance's, the steady instances').
  const bool work_window = units.kind == UnitsSpec::Kind::kNvtxRanges;
  std::map<int32_t, Window> processing;
  if (work_window) processing = ProcessingWindows(trace);
  std::vector<SteadyComparison> result;
  for (size_t d = 0; d < whole.size(); ++d) {
    SteadyComparison comparison;
    const auto own = processing.find(whole[d].device_id);
    comparison.state = ComputeSteadyState(trace, whole[d].device_id,
                                          own != processing.end() ? own->second : whole[d].window,
                                          steady_options.window.steady_units);
    comparison.whole = std::move(whole[d]);
    comparison.steady = std::move(steady[d]);
    if (units.kind == UnitsSpec::Kind::kNone) {
      // The slice series: the slices are the units.
      const auto slices = static_cast<int64_t>(comparison.state.units.size());
      comparison.whole.units = slices;
      comparison.steady.units = slices - static_cast<int64_t>(comparison.state.first_kept);
      comparison.whole.unit_name = comparison.steady.unit_name = "slice";
      // New units change the per-unit figures of the roofline.
      comparison.whole.roofline = ComputeRoofline(comparison.whole);
      comparison.steady.roofline = ComputeRoofline(comparison.steady);
    }
    result.push_back(std::move(comparison));
  }
  return result;
}

}  // namespace gpuroof
