#include "gpuroof/analyses/range_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {
namespace {

// Accumulates one instance's work on one device. Ops arrive in start order (and clipping to a
// range keeps that order), so each engine's union streams.
struct DeviceAccumulator {
  RangeInstanceLoad row;
  std::array<IntervalUnion, kEngineCount> unions{};
  IntervalUnion any_union;
  bool has_ops = false;

  void Add(Engine engine, int64_t start_ns, int64_t end_ns, uint64_t bytes) {
    RangeEngineWork& work = row.engines[static_cast<size_t>(EngineIndex(engine))];
    ++work.ops;
    work.sum_ns = SaturatingAdd(work.sum_ns, SaturatingSub(end_ns, start_ns));
    work.bytes = SaturatingAddBytes(work.bytes, bytes);
    unions[static_cast<size_t>(EngineIndex(engine))].Add(start_ns, end_ns);
    any_union.Add(start_ns, end_ns);
    ++row.gpu_ops;
    row.gpu_start_ns = has_ops ? std::min(row.gpu_start_ns, start_ns) : start_ns;
    row.gpu_end_ns = has_ops ? std::max(row.gpu_end_ns, end_ns) : end_ns;
    has_ops = true;
  }

  RangeInstanceLoad Finish() {
    for (int i = 0; i < kEngineCount; ++i) {
      RangeEngineWork& work = row.engines[static_cast<size_t>(i)];
      work.busy_ns = unions[static_cast<size_t>(i)].length_ns();
      if (work.ops > 0 && (!row.bottleneck || work.busy_ns > row.roofline_ns)) {
        row.bottleneck = kAllEngines[static_cast<size_t>(i)];
        row.roofline_ns = work.busy_ns;
      }
    }
    row.any_busy_ns = any_union.length_ns();
    return row;
  }
};

void AddInto(std::array<RangeEngineWork, kEngineCount>& total,
             const std::array<RangeEngineWork, kEngineCount>& part) {
  for (size_t i = 0; i < total.size(); ++i) {
    total[i].ops += part[i].ops;
    total[i].sum_ns = SaturatingAdd(total[i].sum_ns, part[i].sum_ns);
    total[i].busy_ns = SaturatingAdd(total[i].busy_ns, part[i].busy_ns);
    total[i].bytes = SaturatingAddBytes(total[i].bytes, part[i].bytes);
  }
}

}  // namespace

std::vector<RangeInstanceLoad> ComputeInstanceLoads(const Trace& trace,
                                                    const RangeAttribution& attribution) {
  std::vector<RangeInstanceLoad> rows;
  // Instances sharing an op list are identical (same interval and attribution key): their rows
  // are computed once, then copied, so identical ranges cost O(ops), not O(ranges x ops).
  std::map<const void*, std::pair<size_t, size_t>> rows_of_list;  // list -> [first, last) row
  int64_t ordinal = 0;
  for (const RangeInstanceWork& instance : attribution.instances) {
    ++ordinal;
    auto [known, fresh] = rows_of_list.try_emplace(instance.ops.storage(), rows.size(), 0);
    if (!fresh && instance.ops.storage() != nullptr) {
      const auto [first, last] = known->second;
      for (size_t r = first; r < last; ++r) {
        RangeInstanceLoad row = rows[r];
        row.range_index = instance.range_index;
        row.ordinal = ordinal;
        rows.push_back(row);
      }
      continue;
    }
    std::map<int32_t, DeviceAccumulator> devices;
    for (OpRef op : instance.ops) {
      const ActivityBlock& block = trace.blocks[op.block];
      const OpInterval interval = CountedInterval(trace, instance, op);
      if (interval.end_ns < interval.start_ns) continue;  // clipped away
      const int32_t device = trace.streams[block.stream[op.index]].device_id;
      DeviceAccumulator& accumulator = devices[device];
      accumulator.Add(block.engine[op.index], interval.start_ns, interval.end_ns,
                      block.bytes[op.index]);
    }
    known->second.first = rows.size();
    if (devices.empty()) {
      RangeInstanceLoad row;
      row.range_index = instance.range_index;
      row.ordinal = ordinal;
      rows.push_back(row);
    }
    for (auto& [device, accumulator] : devices) {
      accumulator.row.range_index = instance.range_index;
      accumulator.row.ordinal = ordinal;
      accumulator.row.device_id = device;
      rows.push_back(accumulator.Finish());
    }
    known->second.second = rows.size();
  }
  return rows;
}

RangeSummary SummarizeRanges(const Trace& trace, const RangeSummaryOptions& options) {
  if (trace.nvtx_ranges.empty()) {
    throw InputError(trace.source,
                     "has no NVTX or annotation ranges (nsys: no NVTX_EVENTS ranges; profile with "
                     "--trace=cuda,nvtx)");
  }
  // Group the ranges by (side, name), instances in start order (nvtx_ranges is sorted). A
  // numbered family (Kineto's ProfilerStep#1, #2, ...) is one group, "ProfilerStep#*".
  std::map<std::pair<bool, std::string>, std::vector<const NvtxRange*>> by_name;
  if (options.name.empty()) {
    for (const NvtxRange& range : trace.nvtx_ranges) {
      const std::string_view name = trace.strings.Get(range.name);
      const std::string_view family = NumberedFamily(name);
      by_name[{range.on_gpu, family.empty() ? std::string(name) : std::string(family) + "#*"}]
          .push_back(&range);
    }
  }
  RangeSummary summary;
  int64_t first_ordinal = 1;  // NAME@N: the one instance is number N of its name
  if (!options.name.empty()) {
    const RangeSelection selection = SelectRanges(trace, options.name, "--name");
    summary.resolved = selection.Describe();
    if (selection.instance > 0) first_ordinal = selection.instance;
    // Everything the name found is one group per side (a numbered family included).
    for (const NvtxRange* range : selection.ranges)
      by_name[{range->on_gpu, options.name}].push_back(range);
  }

  bool method_known = false;
  // Time overlap: ops of a process with no CPU range, given to every process's ranges, counted
  // once over all the names (docs/metrics.md, "Which GPU work belongs to a range").
  std::set<std::pair<uint32_t, uint32_t>> guessed_ops;
  size_t range_processes = 0;
  for (const auto& [key, ranges] : by_name) {
    const bool iteration = !options.name.empty() || key.second.ends_with("#*");
    const RangeScope scope =
        options.scope.value_or(iteration ? RangeScope::kProcess : RangeScope::kThread);
    const RangeAttribution attribution = AttributeGpuWork(trace, ranges, scope);
    for (OpRef op : attribution.guessed_process_ops)
      guessed_ops.emplace(op.block, op.index);
    range_processes = std::max(range_processes, attribution.range_processes);
    if (!key.first && !method_known) {
      summary.method = attribution.method;
      summary.method_note = attribution.method_note;
      // This name's count of guessed ops is replaced by the count over every name, below.
      if (const size_t cut = summary.method_note.find("; "); cut != std::string::npos) {
        summary.method_note.resize(cut);
      }
      summary.unmatched_ops = attribution.unmatched_ops;
      method_known = true;
    }
    RangeGroup group;
    group.name = key.second;
    group.on_gpu = key.first;
    group.method = key.first ? AttributionMethod::kTimeOverlap : attribution.method;
    group.scope = scope;
    group.other_thread_ops = attribution.other_thread_ops;
    group.overlapping_instances = static_cast<int64_t>(KeepOutermost(ranges).overlapping);
    for (const RangeInstanceWork& instance : attribution.instances)
      group.launches_without_op += instance.launches_without_op;
    group.launches_without_op_note =
        LaunchesWithoutOpNote(trace, attribution, "'" + group.name + "'", "counted as instances");
    std::vector<int64_t> durations;
    durations.reserve(ranges.size());
    for (const NvtxRange* range : ranges)
      durations.push_back(SaturatingSub(range->end_ns, range->start_ns));
    group.cpu = SummarizeDurations(durations);

    std::vector<RangeInstanceLoad> rows = ComputeInstanceLoads(trace, attribution);
    for (RangeInstanceLoad& row : rows)
      row.ordinal += first_ordinal - 1;
    int64_t last_ordinal = 0;
    std::set<int32_t> devices;
    // Per engine: the busiest device's busy time of each instance, summed over the instances.
    std::array<int64_t, kEngineCount> bound_ns{};
    std::map<int64_t, std::array<int64_t, kEngineCount>> busiest;  // ordinal -> per engine
    for (const RangeInstanceLoad& row : rows) {
      group.gpu_ops += row.gpu_ops;
      if (row.gpu_ops > 0 && row.ordinal != last_ordinal) ++group.instances_with_work;
      if (row.gpu_ops > 0) {
        last_ordinal = row.ordinal;
        devices.insert(row.device_id);
      }
      AddInto(group.engines, row.engines);
      std::array<int64_t, kEngineCount>& own = busiest[row.ordinal];
      for (size_t i = 0; i < own.size(); ++i)
        own[i] = std::max(own[i], row.engines[i].busy_ns);
    }
    for (const auto& [ordinal, own] : busiest) {
      for (size_t i = 0; i < own.size(); ++i)
        bound_ns[i] = SaturatingAdd(bound_ns[i], own[i]);
    }
    group.devices = static_cast<int>(devices.size());
    for (size_t i = 0; i < bound_ns.size(); ++i) {
      if (group.engines[i].ops > 0 &&
          (!group.bottleneck ||
           bound_ns[i] > bound_ns[static_cast<size_t>(EngineIndex(*group.bottleneck))])) {
        group.bottleneck = kAllEngines[i];
      }
    }
    if (group.bottleneck) {
      group.roofline_ns_per_instance =
          static_cast<double>(bound_ns[static_cast<size_t>(EngineIndex(*group.bottleneck))]) /
          static_cast<double>(ranges.size());
    }
    if (!options.name.empty()) group.instance_rows = std::move(rows);
    summary.groups.push_back(std::move(group));
  }
  if (!guessed_ops.empty() && range_processes > 1) {
    summary.method_note += "; " + GuessedProcessNote(guessed_ops.size(), range_processes);
  }
  std::stable_sort(summary.groups.begin(), summary.groups.end(),
                   [](const RangeGroup& a, const RangeGroup& b) {
                     return std::tie(b.cpu.total_ns, a.on_gpu, a.name) <
                            std::tie(a.cpu.total_ns, b.on_gpu, b.name);
                   });
  return summary;
}

}  // namespace gpuroof
