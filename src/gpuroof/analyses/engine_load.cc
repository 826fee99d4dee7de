#include "gpuroof/analyses/engine_load.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/device_slots.h"
#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/analyses/kernel_matching.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/roofline.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {

namespace {

// Widens [first, last] to take in [start, end]; `seen` says whether it held an op yet.
void Widen(bool& seen, int64_t& first, int64_t& last, int64_t start, int64_t end) {
  first = seen ? std::min(first, start) : start;
  last = seen ? std::max(last, end) : end;
  seen = true;
}

// Per-device spans for the window policies: one unordered pass. Devices are looked up through
// a stream -> slot table built once, not per op.
std::map<int32_t, DeviceSpan> ComputeSpans(const Trace& trace) {
  const auto [slot_of_device, stream_slot] = SlotDevicesOfStreams(trace);
  std::vector<DeviceSpan> slots(slot_of_device.size());
  for (const auto& [device, slot] : slot_of_device)
    slots[slot].device_id = device;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      DeviceSpan& span = slots[stream_slot[block.stream[i]]];
      int64_t start = block.start_ns[i];
      int64_t end = block.end_ns[i];
      Widen(span.has_ops, span.first_start_ns, span.last_end_ns, start, end);
      Engine engine = block.engine[i];
      // Whole-graph launches run kernels: they anchor the processing window too.
      if (IsKernelEngine(engine) || engine == Engine::kGraph) {
        Widen(span.has_kernels, span.first_kernel_start_ns, span.last_kernel_end_ns, start, end);
      } else if (engine == Engine::kD2H) {
        span.last_d2h_end_ns = span.has_d2h ? std::max(span.last_d2h_end_ns, end) : end;
        span.has_d2h = true;
      }
    }
  }
  std::map<int32_t, DeviceSpan> spans;
  for (const auto& [device, slot] : slot_of_device) {
    if (slots[slot].has_ops) spans[device] = slots[slot];
  }
  return spans;
}

// Units from range instances on one device (docs/metrics.md, "Units"): an instance counts when
// its first op on the device counts in the window (in the range's own work window, every
// instance with work there), its ops being those its launches made or, by time overlap, those
// running in it. Instances with no work on the device are left out, and the units note says how
// many.
int64_t CountRangeUnits(const Trace& trace, const RangeSelection& selection,
                        const RangeAttribution& attribution, DeviceLoad& load) {
  const Window& window = load.window;
  int64_t units = 0;
  int64_t without_work = 0;
  // Of those, instances on a process that launches nothing onto this device: another rank's
  // steps in a capture of several processes, not steps without work.
  int64_t of_other_processes = 0;
  std::set<uint64_t> device_processes;
  for (const StreamInfo& stream : trace.streams) {
    if (stream.device_id == load.device_id) device_processes.insert(stream.process_id);
  }
  std::map<const void*, std::vector<OpRef>::const_iterator> first_on_device;
  for (size_t k = 0; k < attribution.instances.size(); ++k) {
    const RangeInstanceWork& instance = attribution.instances[k];
    // instance.ops is sorted by start: the first op on this device is the instance's first.
    // Identical instances share their list: it is searched once.
    auto [cached, fresh] = first_on_device.try_emplace(instance.ops.storage());
    if (fresh) {
      cached->second = std::find_if(instance.ops.begin(), instance.ops.end(), [&](OpRef op) {
        return trace.streams[trace.blocks[op.block].stream[op.index]].device_id == load.device_id;
      });
    }
    const auto first = cached->second;
    if (first == instance.ops.end()) {
      ++without_work;
      const NvtxRange& range = trace.nvtx_ranges[instance.range_index];
      if (!range.on_gpu && !device_processes.contains(range.process_id)) ++of_other_processes;
      continue;
    }
    const ActivityBlock& block = trace.blocks[first->block];
    units += OpCountsInWindow(trace, block, first->index, window) ? 1 : 0;
  }
  if (without_work > 0 && units > 0) {
    std::string whose;
    if (of_other_processes == without_work) {
      whose = " (another process's, which launches nothing onto it)";
    } else if (of_other_processes > 0) {
      whose = fmt::format(" ({} of them another process's, which launches nothing onto it)",
                          of_other_processes);
    }
    load.units_note = fmt::format(
        "{} of {} instance(s) of range {} had no GPU work on this device{}: not "
        "counted as units",
        without_work, attribution.instances.size(), selection.Describe(), whose);
  }
  const std::string incomplete = LaunchesWithoutOpNote(
      trace, attribution, "'" + selection.name + "'", "counted as units when they have work here");
  if (!incomplete.empty()) {
    load.units_note = load.units_note.empty() ? incomplete : load.units_note + "; " + incomplete;
  }
  return units;
}

}  // namespace

UnitsSpec ParseUnitsFrom(std::string_view text) {
  UnitsSpec spec;
  if (text.substr(0, 7) == "kernel:" && text.size() > 7) {
    spec.kind = UnitsSpec::Kind::kKernelLaunches;
    spec.name = std::string(text.substr(7));
    return spec;
  }
  if (text.substr(0, 5) == "nvtx:" && text.size() > 5) {
    spec.kind = UnitsSpec::Kind::kNvtxRanges;
    spec.name = std::string(text.substr(5));
    return spec;
  }
  throw InputError("--units-from",
                   fmt::format("'{}' is not a unit source (use kernel:NAME or nvtx:NAME)", text));
}

namespace {

// The span of each device with GPU ops, and of the whole trace (the origin of explicit windows).
struct TraceSpans {
  std::map<int32_t, DeviceSpan> devices;
  int64_t first_start_ns = std::numeric_limits<int64_t>::max();
  int64_t last_end_ns = std::numeric_limits<int64_t>::min();
};

TraceSpans SpansWithGpuWork(const Trace& trace) {
  TraceSpans spans;
  spans.devices = ComputeSpans(trace);
  if (spans.devices.empty()) {
    throw InputError(trace.source,
                     "no GPU activity: the trace has no usable kernel, memcpy or memset records " +
                         trace.diagnostics.NoRecordsCause());
  }
  for (const auto& [id, span] : spans.devices) {
    spans.first_start_ns = std::min(spans.first_start_ns, span.first_start_ns);
    spans.last_end_ns = std::max(spans.last_end_ns, span.last_end_ns);
  }
  return spans;
}

// Whether the device has a zero-length `all` window (every op of it takes no time: sub-
// microsecond ops in a whole-microsecond Kineto trace) beside a device whose ops take time. Such
// a device is left out, and said, rather than failing the whole trace (RequireLength).
bool IsTimelessBesideOthers(const TraceSpans& spans, const Window& window) {
  if (window.length_ns() > 0 || window.policy != "all") return false;
  return std::any_of(spans.devices.begin(), spans.devices.end(), [](const auto& device) {
    return device.second.last_end_ns > device.second.first_start_ns;
  });
}

// The note every device analysed carries about the devices left out by IsTimelessBesideOthers.
std::string TimelessDevicesNote(const std::vector<int32_t>& left_out) {
  return fmt::format(
      "device{} {} left out: every GPU op of {} takes no time (whole-microsecond timestamps?), "
      "so {} no window; --window START:END includes {}",
      left_out.size() == 1 ? "" : "s", fmt::join(left_out, ", "),
      left_out.size() == 1 ? "it" : "them", left_out.size() == 1 ? "it has" : "they have",
      left_out.size() == 1 ? "it" : "them");
}

void RequireLength(const Trace& trace, int32_t device_id, const Window& window) {
  if (window.length_ns() <= 0) {
    throw InputError(trace.source,
                     fmt::format("device {}: the {} window has zero length (its GPU ops take no "
                                 "time); choose one with --window START:END",
                                 device_id, window.policy));
  }
}

// The CPU intervals of a work window's range instances, merged and by start (GPU-timeline
// instances left out): an op that is not their work but runs while one was open was launched by
// no call of it, which is what a dropped launch record looks like.
std::vector<std::pair<int64_t, int64_t>> CpuInstanceSpans(
    const std::vector<const NvtxRange*>& ranges) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const NvtxRange* range : ranges) {
    if (!range->on_gpu && range->end_ns > range->start_ns) {
      spans.emplace_back(range->start_ns, range->end_ns);
    }
  }
  std::sort(spans.begin(), spans.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& span : spans) {
    if (!merged.empty() && span.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, span.second);
    } else {
      merged.push_back(span);
    }
  }
  return merged;
}

// Whether [start_ns, end_ns) overlaps one of `spans` (CpuInstanceSpans) for a positive time, or,
// with no length, lies inside one.
bool RunsDuring(const std::vector<std::pair<int64_t, int64_t>>& spans, int64_t start_ns,
                int64_t end_ns) {
  auto after = std::partition_point(spans.begin(), spans.end(), [&](const auto& span) {
    return start_ns == end_ns ? span.first <= end_ns : span.first < end_ns;
  });
  if (after == spans.begin()) return false;
  Window span;
  span.start_ns = std::prev(after)->first;
  span.end_ns = std::prev(after)->second;
  return OpCountsInWindow(start_ns, end_ns, span);
}

// Whether no API call of the trace launched op `i` of `block` (no correlation id, or one that no
// call names). trace.api_calls is sorted by (process_id, correlation).
bool LaunchedByNoCall(const Trace& trace, const ActivityBlock& block, size_t i) {
  if (block.correlation.empty() || block.correlation[i] == 0) return true;
  const uint64_t process = trace.streams[block.stream[i]].process_id;
  const uint32_t correlation = block.correlation[i];
  auto it = std::lower_bound(
      trace.api_calls.begin(), trace.api_calls.end(), std::make_pair(process, correlation),
      [](const ApiCall& call, const std::pair<uint64_t, uint32_t>& key) {
        return std::tie(call.process_id, call.correlation) < std::tie(key.first, key.second);
      });
  return it == trace.api_calls.end() || it->process_id != process || it->correlation != correlation;
}

}  // namespace

std::map<int32_t, Window> ProcessingWindows(const Trace& trace) {
  const TraceSpans spans = SpansWithGpuWork(trace);
  std::map<int32_t, Window> windows;
  for (const auto& [id, span] : spans.devices) {
    Window window =
        ResolveWindow(trace, WindowSpec{}, span, spans.first_start_ns, spans.last_end_ns);
    if (IsTimelessBesideOthers(spans, window)) continue;  // ComputeEngineLoad says so
    RequireLength(trace, id, window);
    windows.emplace(id, std::move(window));
  }
  return windows;
}

void ByteRate::Add(uint64_t bytes, int64_t duration_ns) {
  if (duration_ns > 0) {
    timed_bytes = SaturatingAddBytes(timed_bytes, bytes);
    time_ns = SaturatingAdd(time_ns, duration_ns);
    exact_bytes += bytes;
    exact_time_ns += duration_ns;
  } else {
    ++zero_duration_ops;
    zero_duration_bytes = SaturatingAddBytes(zero_duration_bytes, bytes);
  }
}

std::optional<double> ByteRate::gbps() const {
  if (time_ns <= 0) return std::nullopt;
  // bytes per ns is GB/s (10^9 B/s); from the exact sums, which a clamp never bends.
  if (exact_time_ns <= 0) return static_cast<double>(timed_bytes) / static_cast<double>(time_ns);
  return static_cast<double>(exact_bytes) / static_cast<double>(exact_time_ns);
}

std::vector<DeviceLoad> ComputeEngineLoad(const Trace& trace, const EngineLoadOptions& options) {
  const TraceSpans spans = SpansWithGpuWork(trace);

  // --units-from nvtx:NAME: the instances and their work, found once for every device.
  // Only the outermost instances are units: an instance nested in another of the same name (or
  // the same range on another thread) would count that work again.
  std::optional<RangeSelection> unit_ranges;
  RangeAttribution unit_work;
  std::string overlapping_note;
  if (options.units.kind == UnitsSpec::Kind::kNvtxRanges) {
    unit_ranges = SelectRanges(trace, options.units.name, "--units-from");
    std::string copies_note;
    DropGpuCopiesBesideCpu(unit_ranges->ranges, "'" + unit_ranges->name + "'", &copies_note);
    OutermostInstances outermost = KeepOutermost(unit_ranges->ranges);
    if (outermost.overlapping > 0) {
      overlapping_note = OverlappingInstancesText(outermost.overlapping, unit_ranges->ranges.size(),
                                                  "'" + unit_ranges->name + "'") +
                         ": only the outermost count as units";
      unit_ranges->ranges = std::move(outermost.kept);
    }
    if (!copies_note.empty()) {
      overlapping_note =
          overlapping_note.empty() ? copies_note : copies_note + "; " + overlapping_note;
    }
    unit_work = AttributeGpuWork(trace, unit_ranges->ranges, options.units.scope);
  }
  const bool units_window = unit_ranges && options.window.kind == WindowSpec::Kind::kProcessing;
  // The instances' CPU time, for the note on ops that are not their work (a work window only).
  std::vector<std::pair<int64_t, int64_t>> instance_spans;
  if (units_window) {
    instance_spans = CpuInstanceSpans(unit_ranges->ranges);
  } else if (options.window.kind == WindowSpec::Kind::kNvtx) {
    instance_spans =
        CpuInstanceSpans(SelectRanges(trace, options.window.nvtx_name, "--window").ranges);
  }

  // Dense per-device state, indexed through the stream table.
  std::vector<DeviceLoad> loads;
  std::map<int32_t, size_t> device_index;
  std::vector<int32_t> timeless;  // devices left out: every op of theirs takes no time
  for (const auto& [id, span] : spans.devices) {
    DeviceLoad load;
    load.device_id = id;
    load.device_name = std::string(trace.DeviceName(id));
    if (units_window) {
      // The units and the window agree: the window is exactly the counted instances' work.
      load.window = RangeWorkWindow(trace, *unit_ranges, unit_work, id);
      load.window.text = "processing";
    } else {
      load.window =
          ResolveWindow(trace, options.window, span, spans.first_start_ns, spans.last_end_ns);
    }
    if (IsTimelessBesideOthers(spans, load.window)) {
      timeless.push_back(id);
      continue;
    }
    RequireLength(trace, id, load.window);
    device_index[id] = loads.size();
    load.unit_name = options.units.unit_name;
    for (Engine engine : kAllEngines)
      load.engines[static_cast<size_t>(EngineIndex(engine))].engine = engine;
    loads.push_back(load);
  }
  if (!timeless.empty()) {
    const std::string note = TimelessDevicesNote(timeless);
    for (DeviceLoad& load : loads) {
      load.devices_left_out_note = note;
      load.window.note = load.window.note.empty() ? note : load.window.note + "; " + note;
    }
  }
  // The ops of a device left out map to no load.
  constexpr size_t kNoLoad = std::numeric_limits<size_t>::max();
  std::vector<size_t> stream_device(trace.streams.size(), kNoLoad);
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    const auto it = device_index.find(trace.streams[s].device_id);
    if (it != device_index.end()) stream_device[s] = it->second;
  }
  // --by-stream: the row of each device's UVM migrations (kNoLoad: the device has none).
  std::vector<size_t> uvm_row;
  if (options.by_stream) {
    // One row per stream with ops, in the device's window, ordered by device then stream; the
    // UVM migrations run on no stream (a file gives them stream 0, or the stream of a launch):
    // one row of their own per device, after its streams.
    std::vector<bool> used(trace.streams.size(), false);
    std::vector<bool> uvm_used(loads.size(), false);
    for (const ActivityBlock& block : trace.blocks) {
      for (size_t i = 0; i < block.stream.size(); ++i) {
        const uint32_t s = block.stream[i];
        if (!IsUvmEngine(block.engine[i])) {
          used[s] = true;
        } else if (stream_device[s] != kNoLoad) {
          uvm_used[stream_device[s]] = true;
        }
      }
    }
    std::vector<size_t> order;
    for (size_t s = 0; s < trace.streams.size(); ++s) {
      if (used[s] && stream_device[s] != kNoLoad) order.push_back(s);
    }
    std::sort(order.begin(), order.end(), [&trace](size_t a, size_t b) {
      const StreamInfo& x = trace.streams[a];
      const StreamInfo& y = trace.streams[b];
      return std::tie(x.device_id, x.stream_id, x.process_id, x.context_id) <
             std::tie(y.device_id, y.stream_id, y.process_id, y.context_id);
    });
    std::vector<DeviceLoad> per_stream;
    std::vector<size_t> stream_row(trace.streams.size(), kNoLoad);
    uvm_row.assign(trace.streams.size(), kNoLoad);
    size_t next = 0;
    auto add_uvm_rows_before = [&](size_t device_end) {
      // Devices (in `loads` order, ascending id) up to device_end get their UVM row.
      for (; next < device_end; ++next) {
        if (!uvm_used[next]) continue;
        DeviceLoad load = loads[next];
        load.uvm_no_stream = true;
        for (size_t s = 0; s < trace.streams.size(); ++s) {
          if (stream_device[s] == next) uvm_row[s] = per_stream.size();
        }
        per_stream.push_back(std::move(load));
      }
    };
    for (size_t s : order) {
      add_uvm_rows_before(stream_device[s]);
      DeviceLoad load = loads[stream_device[s]];
      load.stream = trace.streams[s];
      stream_row[s] = per_stream.size();
      per_stream.push_back(std::move(load));
    }
    add_uvm_rows_before(loads.size());
    stream_device = std::move(stream_row);
    loads = std::move(per_stream);
  }
  std::vector<std::array<IntervalUnion, kEngineCount>> engine_unions(loads.size());
  std::vector<IntervalUnion> any_unions(loads.size());
  std::vector<IntervalUnion> outside_unions(loads.size());
  // Work windows: the other ops in the window, and every op in it (clipped).
  std::vector<IntervalUnion> span_other_unions(loads.size());
  std::vector<IntervalUnion> span_all_unions(loads.size());
  std::vector<bool> unit_kernel;
  std::string unit_kernel_disclosure;  // which kernel a name not taken exactly was taken to mean
  if (options.units.kind == UnitsSpec::Kind::kKernelLaunches) {
    KernelMatch match = MatchKernelSignatures(trace, options.units.name);
    // The disclosure counts the matched signatures: written before they are moved out.
    unit_kernel_disclosure = match.Disclosure(options.units.name);
    unit_kernel = std::move(match.signatures);
  }
  std::vector<int64_t> kernel_units(loads.size(), 0);
  std::vector<int64_t> outside_during_instance(loads.size(), 0);

  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    size_t d = !uvm_row.empty() && IsUvmEngine(block.engine[i]) ? uvm_row[block.stream[i]]
                                                                : stream_device[block.stream[i]];
    if (d == kNoLoad) return;  // a device left out (its note says so)
    DeviceLoad& load = loads[d];
    const Window& window = load.window;
    int64_t start = block.start_ns[i];
    int64_t end = block.end_ns[i];
    if (!OpCountsInWindow(trace, block, i, window)) {
      ++load.outside_ops;
      if (window.work != nullptr && OpCountsInWindow(start, end, window)) {
        ++load.outside_in_span_ops;
        span_other_unions[d].Add(std::max(start, window.start_ns), std::min(end, window.end_ns));
        span_all_unions[d].Add(std::max(start, window.start_ns), std::min(end, window.end_ns));
      }
      if (window.work != nullptr && RunsDuring(instance_spans, start, end) &&
          LaunchedByNoCall(trace, block, i)) {
        ++outside_during_instance[d];
      }
      outside_unions[d].Add(start, end);
      return;
    }
    int64_t clipped_start = std::max(start, window.start_ns);
    int64_t clipped_end = std::min(end, window.end_ns);
    auto e = static_cast<size_t>(EngineIndex(block.engine[i]));
    EngineLoad& engine = load.engines[e];
    ++engine.ops;
    // Saturating: a trace built by any reader may hold ops whose durations add past int64.
    engine.sum_ns = SaturatingAdd(engine.sum_ns,
                                  std::max<int64_t>(0, SaturatingSub(clipped_end, clipped_start)));
    engine.bytes = SaturatingAddBytes(engine.bytes, block.bytes[i]);
    engine.op_time_ns = SaturatingAdd(engine.op_time_ns, SaturatingSub(end, start));
    engine.rate.Add(block.bytes[i], SaturatingSub(end, start));
    engine.exact_sum_ns += std::max<int64_t>(0, SaturatingSub(clipped_end, clipped_start));
    engine.exact_bytes += block.bytes[i];
    engine.exact_op_time_ns += SaturatingSub(end, start);
    engine_unions[d][e].Add(clipped_start, clipped_end);
    any_unions[d].Add(clipped_start, clipped_end);
    if (window.work != nullptr) span_all_unions[d].Add(clipped_start, clipped_end);
    ++load.any_ops;
    if (!unit_kernel.empty() && unit_kernel[block.signature[i]] && start >= window.start_ns &&
        start < window.end_ns) {
      ++kernel_units[d];
    }
  });

  for (size_t d = 0; d < loads.size(); ++d) {
    DeviceLoad& load = loads[d];
    for (size_t e = 0; e < static_cast<size_t>(kEngineCount); ++e) {
      load.engines[e].busy_ns = engine_unions[d][e].length_ns();
    }
    load.any_busy_ns = any_unions[d].length_ns();
    load.outside_busy_ns = outside_unions[d].length_ns();
    load.outside_in_span_busy_ns = span_other_unions[d].length_ns();
    load.span_all_busy_ns = span_all_unions[d].length_ns();
    // A sum past int64 is written clamped: said, with the exact figure (docs/metrics.md).
    std::string clamped;
    int clamped_count = 0;
    for (const EngineLoad& engine : load.engines) {
      const auto say = [&](std::string_view what, WideSum exact) {
        if (exact <= kWideInt64Max) return;
        ++clamped_count;
        clamped += fmt::format("{}{} {} {}", clamped.empty() ? "" : ", ", EngineName(engine.engine),
                               what, WideSumText(exact));
      };
      say("sum_ns", engine.exact_sum_ns);
      say("bytes", engine.exact_bytes);
      say("op time ns", engine.exact_op_time_ns);
    }
    if (clamped_count > 0) {
      const std::string note = fmt::format(
          "warning: {} sum(s) pass the int64 maximum and are written as {} ({}): overlap factors "
          "and GB/s use the exact sums",
          clamped_count, std::numeric_limits<int64_t>::max(), clamped);
      load.window.note = load.window.note.empty() ? note : load.window.note + "; " + note;
    }
    if (load.outside_ops > 0) {
      load.outside_note =
          load.window.work != nullptr
              ? fmt::format(
                    "{} op(s) ({} busy) are not the work of range {}: not counted ({} of them "
                    "run within the GPU span of its work{}); --window all includes them",
                    load.outside_ops, FormatDurationNs(load.outside_busy_ns), load.window.resolved,
                    load.outside_in_span_ops,
                    outside_during_instance[d] == 0
                        ? ""
                        : fmt::format(", {} while an instance of it was open, launched by no "
                                      "call in the trace: dropped launch records?",
                                      outside_during_instance[d]))
              : fmt::format("{} op(s) ({} busy) lie outside the window; --window all includes them",
                            load.outside_ops, FormatDurationNs(load.outside_busy_ns));
      // On the window's note too, so every command that shows the window says it.
      load.window.note = load.window.note.empty() ? load.outside_note
                                                  : load.window.note + "; " + load.outside_note;
    }
    switch (options.units.kind) {
      case UnitsSpec::Kind::kNone:
        break;
      case UnitsSpec::Kind::kFixed:
        load.units = options.units.count;
        break;
      case UnitsSpec::Kind::kKernelLaunches:
        load.units = kernel_units[d];
        break;
      case UnitsSpec::Kind::kNvtxRanges:
        load.units = CountRangeUnits(trace, *unit_ranges, unit_work, load);
        if (!overlapping_note.empty()) {
          load.units_note = load.units_note.empty() ? overlapping_note
                                                    : overlapping_note + "; " + load.units_note;
        }
        break;
    }
    // A device where no counted unit starts (an idle GPU beside a busy one) gets no per-unit
    // figures rather than failing the whole trace.
    if (load.units && *load.units <= 0) {
      load.units.reset();
      load.units_note = fmt::format("no {} starts in this device's window: no per-unit figures",
                                    options.units.kind == UnitsSpec::Kind::kKernelLaunches
                                        ? "launch of kernel '" + options.units.name + "'"
                                        : "work of NVTX range '" + options.units.name + "'");
    }
    if (!unit_kernel_disclosure.empty()) {
      load.units_note = load.units_note.empty() ? unit_kernel_disclosure
                                                : unit_kernel_disclosure + "; " + load.units_note;
    }
  }
  bool counting = options.units.kind == UnitsSpec::Kind::kKernelLaunches ||
                  options.units.kind == UnitsSpec::Kind::kNvtxRanges;
  if (counting && std::none_of(loads.begin(), loads.end(),
                               [](const DeviceLoad& load) { return load.units.has_value(); })) {
    throw InputError(
        trace.source,
        fmt::format("--units-from {}:{}: no instance starts in the window of any "
                    "device, so there is no unit to divide by",
                    options.units.kind == UnitsSpec::Kind::kKernelLaunches ? "kernel" : "nvtx",
                    options.units.name));
  }
  // The roofline and headroom belong to the result: computed here once, read by every writer.
  // The UVM row of --by-stream names no bottleneck: its migrations are the driver's page moves,
  // paced by the program's page faults, not a queue of the program's work that could bind it
  // (docs/metrics.md, "Engines", the --by-stream paragraph).
  for (DeviceLoad& load : loads)
    load.roofline = load.uvm_no_stream ? Roofline{} : ComputeRoofline(load);
  return loads;
}

const std::vector<DeviceLoad>& GivenOrComputedEngineLoad(const Trace& trace,
                                                         const WindowSpec& window,
                                                         const std::vector<DeviceLoad>* given,
                                                         std::vector<DeviceLoad>& storage) {
  if (given != nullptr) return *given;
  EngineLoadOptions options;
  options.window = window;
  storage = ComputeEngineLoad(trace, options);
  return storage;
}

}  // namespace gpuroof
