#include "gpuroof/analyses/range_attribution.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/model/time_limits.h"

namespace gpuroof {
namespace {

// Instances to search by time, sorted by start, with the longest duration so a search for the
// instances containing time t only looks back that far.
struct InstanceIndex {
  std::vector<size_t> by_start;  // positions in the instance list
  int64_t longest_ns = 0;
};

void SortIndex(InstanceIndex& index, const std::vector<const NvtxRange*>& ranges) {
  std::stable_sort(index.by_start.begin(), index.by_start.end(),
                   [&](size_t a, size_t b) { return ranges[a]->start_ns < ranges[b]->start_ns; });
  for (size_t position : index.by_start) {
    index.longest_ns = std::max(
        index.longest_ns, SaturatingSub(ranges[position]->end_ns, ranges[position]->start_ns));
  }
}

// Calls `visit(position)` for every instance of `index` whose interval intersects
// [start_ns, end_ns] (a point when start == end: containment).
template <typename Visit>
void ForEachOverlapping(const InstanceIndex& index, const std::vector<const NvtxRange*>& ranges,
                        int64_t start_ns, int64_t end_ns, bool point, Visit&& visit) {
  // First instance that starts after the op ends (or after the point).
  auto it =
      std::upper_bound(index.by_start.begin(), index.by_start.end(), end_ns,
                       [&](int64_t t, size_t position) { return t < ranges[position]->start_ns; });
  // Saturating: an op early in a trace with a long range would overflow for times well inside
  // the readers' bounds.
  const int64_t earliest_start = SaturatingSub(start_ns, index.longest_ns);
  while (it != index.by_start.begin()) {
    --it;
    const NvtxRange& range = *ranges[*it];
    if (range.start_ns < earliest_start) break;
    const bool hit = point ? (range.start_ns <= start_ns && start_ns <= range.end_ns)
                           : (range.start_ns < end_ns && start_ns < range.end_ns);
    if (hit) visit(*it);
  }
}

bool HasCorrelations(const Trace& trace) {
  for (const ActivityBlock& block : trace.blocks) {
    if (block.correlation.size() != block.size()) return false;
  }
  return true;
}

// Finds launch calls by (process, correlation) in trace.api_calls (sorted by that key). A block's
// ops, in start order, come with nearly increasing correlation ids, so each search gallops out
// from the previous hit instead of bisecting millions of calls for every op (same answer).
class CallFinder {
 public:
  explicit CallFinder(const std::vector<ApiCall>& calls) : calls_(calls) {}

  const ApiCall* Find(uint64_t process_id, uint32_t correlation) {
    const Key key{process_id, correlation};
    const size_t n = calls_.size();
    const size_t hint = std::min(hint_, n);
    size_t lo = 0;
    size_t hi = n;
    if (hint < n && Less(calls_[hint], key)) {  // the answer is after the hint
      lo = hint + 1;
      for (size_t step = 1;; step *= 2) {
        const size_t probe = hint + step;
        if (probe >= n) break;
        if (!Less(calls_[probe], key)) {
          hi = probe;
          break;
        }
        lo = probe + 1;
      }
    } else {  // at or before it
      hi = hint;
      for (size_t step = 1;; step *= 2) {
        if (hint < step) break;
        const size_t probe = hint - step;
        if (Less(calls_[probe], key)) {
          lo = probe + 1;
          break;
        }
        hi = probe;
      }
    }
    auto it = std::lower_bound(calls_.begin() + static_cast<ptrdiff_t>(lo),
                               calls_.begin() + static_cast<ptrdiff_t>(hi), key, Less);
    hint_ = static_cast<size_t>(it - calls_.begin());
    if (it == calls_.end() || it->process_id != process_id || it->correlation != correlation) {
      return nullptr;
    }
    return &*it;
  }

 private:
  using Key = std::pair<uint64_t, uint32_t>;
  static bool Less(const ApiCall& call, const Key& key) {
    return std::tie(call.process_id, call.correlation) < std::tie(key.first, key.second);
  }
  const std::vector<ApiCall>& calls_;
  size_t hint_ = 0;
};

}  // namespace

std::string_view RangeScopeName(RangeScope scope) {
  return scope == RangeScope::kThread ? "thread" : "process";
}

RangeAttribution AttributeGpuWork(const Trace& trace, std::span<const NvtxRange* const> ranges,
                                  RangeScope scope) {
  RangeAttribution result;
  result.instances.resize(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    result.instances[i].range_index = static_cast<size_t>(ranges[i] - trace.nvtx_ranges.data());
  }

  const bool correlate = !trace.api_calls.empty() && HasCorrelations(trace);
  if (!correlate) {
    result.method = AttributionMethod::kTimeOverlap;
    result.method_note =
        trace.api_calls.empty()
            ? "the trace has no CUDA API calls: GPU work attributed to CPU ranges by time overlap"
            : "the trace was read without correlation ids: GPU work attributed by time overlap";
  }

  // Instances that cannot get different ops are attributed once: the first of each kind stands
  // for the others, which share its list (what makes memory O(ranges + ops) for identical ranges).
  // The thread only matters to the thread rule of launch correlation.
  const bool thread_matters = correlate && scope == RangeScope::kThread;
  using InstanceKey = std::tuple<bool, int32_t, uint64_t, uint64_t, int64_t, int64_t>;
  std::map<InstanceKey, size_t> first_of_kind;
  std::vector<const NvtxRange*> instances;  // the distinct ones
  std::vector<size_t> distinct_of(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const NvtxRange& range = *ranges[i];
    const bool by_device = range.on_gpu;
    const InstanceKey key{by_device,
                          by_device ? range.device_id : 0,
                          !by_device && correlate ? range.process_id : 0,
                          !by_device && thread_matters ? range.thread_id : 0,
                          range.start_ns,
                          range.end_ns};
    auto [it, inserted] = first_of_kind.try_emplace(key, instances.size());
    if (inserted) instances.push_back(&range);
    distinct_of[i] = it->second;
  }
  std::vector<std::vector<OpRef>> ops(instances.size());

  // CPU ranges by process (launch correlation; the thread rule then checks the call's thread, and
  // counts the other threads' launches it leaves out), or all CPU ranges (time overlap, any
  // device); GPU-timeline ranges by device.
  std::map<uint64_t, InstanceIndex> cpu_by_process;
  InstanceIndex cpu_all;
  std::map<int32_t, InstanceIndex> gpu_by_device;
  for (size_t i = 0; i < instances.size(); ++i) {
    const NvtxRange& range = *instances[i];
    if (range.on_gpu) {
      gpu_by_device[range.device_id].by_start.push_back(i);
    } else if (correlate) {
      cpu_by_process[range.process_id].by_start.push_back(i);
    } else {
      cpu_all.by_start.push_back(i);
    }
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i]->on_gpu || !correlate) {
      result.instances[i].method = AttributionMethod::kTimeOverlap;
    }
  }
  for (auto& [process, index] : cpu_by_process)
    SortIndex(index, instances);
  for (auto& [device, index] : gpu_by_device)
    SortIndex(index, instances);
  SortIndex(cpu_all, instances);

  CallFinder calls(trace.api_calls);
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    const ActivityBlock& block = trace.blocks[b];
    for (uint32_t row = 0; row < block.size(); ++row) {
      const OpRef op{b, row};
      const auto add = [&](size_t position) { ops[position].push_back(op); };
      const int64_t start_ns = block.start_ns[row];
      const int64_t end_ns = block.end_ns[row];
      const StreamInfo& stream = trace.streams[block.stream[row]];
      if (!gpu_by_device.empty()) {
        auto it = gpu_by_device.find(stream.device_id);
        if (it != gpu_by_device.end()) {
          ForEachOverlapping(it->second, instances, start_ns, end_ns, start_ns == end_ns, add);
        }
      }
      if (!cpu_all.by_start.empty()) {
        ForEachOverlapping(cpu_all, instances, start_ns, end_ns, start_ns == end_ns, add);
      }
      if (!cpu_by_process.empty()) {
        // No correlation id (a driver migration, a reader that had none): no call launched it
        // as far as the trace says, so it is counted with the unmatched, never dropped unsaid.
        const ApiCall* call = block.correlation[row] == 0
                                  ? nullptr
                                  : calls.Find(stream.process_id, block.correlation[row]);
        if (call == nullptr) {
          ++result.unmatched_ops;
          continue;
        }
        auto process = cpu_by_process.find(call->process_id);
        if (process == cpu_by_process.end()) continue;
        if (scope == RangeScope::kProcess) {
          ForEachOverlapping(process->second, instances, call->start_ns, call->start_ns, true, add);
          continue;
        }
        bool own_thread = false;
        bool other_thread = false;
        ForEachOverlapping(process->second, instances, call->start_ns, call->start_ns, true,
                           [&](size_t position) {
                             if (instances[position]->thread_id == call->thread_id) {
                               add(position);
                               own_thread = true;
                             } else {
                               other_thread = true;
                             }
                           });
        if (other_thread && !own_thread) ++result.other_thread_ops;
      }
    }
  }

  std::vector<OpList> lists;
  lists.reserve(ops.size());
  for (std::vector<OpRef>& list : ops) {
    std::sort(list.begin(), list.end(), [&](OpRef a, OpRef b) {
      return std::tie(trace.blocks[a.block].start_ns[a.index], a.block, a.index) <
             std::tie(trace.blocks[b.block].start_ns[b.index], b.block, b.index);
    });
    lists.emplace_back(std::move(list));
  }
  for (size_t i = 0; i < ranges.size(); ++i)
    result.instances[i].ops = lists[distinct_of[i]];
  return result;
}

std::string OtherThreadNote(int64_t other_thread_ops) {
  return fmt::format(
      "{} op(s) launched by other threads of the process while the range was open are not "
      "counted (--attribute thread); --attribute process counts them",
      other_thread_ops);
}

OpSelection SelectAttributedOps(const Trace& trace, const RangeAttribution& attribution) {
  OpSelection selection;
  selection.selected.reserve(trace.blocks.size());
  for (const ActivityBlock& block : trace.blocks)
    selection.selected.emplace_back(block.size(), false);
  std::set<const void*> marked;  // a list shared by identical instances is marked once
  for (const RangeInstanceWork& instance : attribution.instances) {
    if (!marked.insert(instance.ops.storage()).second) continue;
    for (OpRef op : instance.ops)
      selection.selected[op.block][op.index] = true;
  }
  return selection;
}

OpInterval CountedInterval(const Trace& trace, const RangeInstanceWork& instance, OpRef op) {
  const ActivityBlock& block = trace.blocks[op.block];
  OpInterval interval{block.start_ns[op.index], block.end_ns[op.index]};
  if (instance.method == AttributionMethod::kTimeOverlap) {
    const NvtxRange& range = trace.nvtx_ranges[instance.range_index];
    interval.start_ns = std::max(interval.start_ns, range.start_ns);
    interval.end_ns = std::min(interval.end_ns, range.end_ns);
  }
  return interval;
}

}  // namespace gpuroof
