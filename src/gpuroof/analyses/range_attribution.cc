#include "gpuroof/analyses/range_attribution.h"

#include <algorithm>
#include <cctype>
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

// How a point (start == end) is placed in an instance: kClosed, `start ≤ t ≤ end` (a zero-length
// op runs in the range, edges included, as for windows); kHalfOpen, `start ≤ t < end` (a launch
// call: back-to-back instances, such as ProfilerStep#N and #N+1, never both get it).
enum class PointRule { kClosed, kHalfOpen };

// Calls `visit(position)` for every instance of `index` whose interval intersects
// [start_ns, end_ns] (a point when start == end: containment by `rule`).
template <typename Visit>
void ForEachOverlapping(const InstanceIndex& index, const std::vector<const NvtxRange*>& ranges,
                        int64_t start_ns, int64_t end_ns, bool point, PointRule rule,
                        Visit&& visit) {
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
    // Half-open: a zero-length instance holds no launch call, even one made at its instant
    // (docs/metrics.md, `range.start <= start_call < range.end`).
    const bool before_end =
        rule == PointRule::kClosed ? start_ns <= range.end_ns : start_ns < range.end_ns;
    const bool hit = point ? (range.start_ns <= start_ns && before_end)
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

// Calls that enqueue GPU work (as the Kineto reader's CanLaunchGpuWork), not host functions.
bool LaunchesGpuWork(std::string_view name) {
  std::string lower(name);
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("hostfunc") != std::string::npos) return false;  // cudaLaunchHostFunc
  return lower.find("launch") != std::string::npos || lower.find("memcpy") != std::string::npos ||
         lower.find("memset") != std::string::npos;
}

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
  // Time overlap keeps the processes apart too when the ops say theirs (nsys: globalPid).
  std::map<uint64_t, InstanceIndex> cpu_by_process;
  std::map<uint64_t, InstanceIndex> overlap_by_process;
  std::map<int32_t, InstanceIndex> gpu_by_device;
  for (size_t i = 0; i < instances.size(); ++i) {
    const NvtxRange& range = *instances[i];
    if (range.on_gpu) {
      gpu_by_device[range.device_id].by_start.push_back(i);
    } else if (correlate) {
      cpu_by_process[range.process_id].by_start.push_back(i);
    } else {
      overlap_by_process[range.process_id].by_start.push_back(i);
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
  for (auto& [process, index] : overlap_by_process)
    SortIndex(index, instances);
  // Time overlap: the processes with CPU ranges anywhere in the trace (not only these ranges):
  // an op of such a process belongs to its own process's instances only, even when none of
  // `ranges` is of it (docs/metrics.md, "Which GPU work belongs to a range"). Found when first
  // needed.
  std::set<uint64_t> range_processes;
  bool range_processes_known = false;
  const auto has_ranges = [&](uint64_t process) {
    if (!range_processes_known) {
      for (const NvtxRange& range : trace.nvtx_ranges) {
        if (!range.on_gpu) range_processes.insert(range.process_id);
      }
      range_processes_known = true;
    }
    return range_processes.count(process) > 0;
  };

  CallFinder calls(trace.api_calls);
  std::vector<bool> call_has_op(correlate ? trace.api_calls.size() : 0, false);
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
          ForEachOverlapping(it->second, instances, start_ns, end_ns, start_ns == end_ns,
                             PointRule::kClosed, add);
        }
      }
      if (!overlap_by_process.empty()) {
        auto own = overlap_by_process.find(stream.process_id);
        if (own != overlap_by_process.end()) {
          ForEachOverlapping(own->second, instances, start_ns, end_ns, start_ns == end_ns,
                             PointRule::kClosed, add);
        } else if (!has_ranges(stream.process_id)) {
          // The op does not say its process (Kineto GPU ops without launch calls), or its
          // process has no CPU range: every process's ranges may take it.
          bool taken = false;
          for (const auto& [process, index] : overlap_by_process) {
            ForEachOverlapping(index, instances, start_ns, end_ns, start_ns == end_ns,
                               PointRule::kClosed, [&](size_t position) {
                                 add(position);
                                 taken = true;
                               });
          }
          if (taken) result.guessed_process_ops.push_back(op);
        }
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
        call_has_op[static_cast<size_t>(call - trace.api_calls.data())] = true;
        auto process = cpu_by_process.find(call->process_id);
        if (process == cpu_by_process.end()) continue;
        if (scope == RangeScope::kProcess) {
          ForEachOverlapping(process->second, instances, call->start_ns, call->start_ns, true,
                             PointRule::kHalfOpen, add);
          continue;
        }
        bool own_thread = false;
        bool other_thread = false;
        ForEachOverlapping(process->second, instances, call->start_ns, call->start_ns, true,
                           PointRule::kHalfOpen, [&](size_t position) {
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

  // Launch calls without their GPU op (nsys keeps them among the calls; the Kineto reader apart),
  // given to the instances by the rule that gives them ops.
  std::vector<int64_t> without_op(instances.size(), 0);
  if (!cpu_by_process.empty()) {
    std::map<uint32_t, bool> launching;  // by name id
    const auto count = [&](const ApiCall& call) {
      if (call.name == 0) return;  // the trace does not say what the call was
      auto [known, fresh] = launching.try_emplace(call.name, false);
      if (fresh) known->second = LaunchesGpuWork(trace.strings.Get(call.name));
      if (!known->second) return;
      auto process = cpu_by_process.find(call.process_id);
      if (process == cpu_by_process.end()) return;
      ForEachOverlapping(
          process->second, instances, call.start_ns, call.start_ns, true, PointRule::kHalfOpen,
          [&](size_t position) {
            if (scope == RangeScope::kProcess || instances[position]->thread_id == call.thread_id) {
              ++without_op[position];
            }
          });
    };
    for (size_t c = 0; c < trace.api_calls.size(); ++c) {
      if (!call_has_op[c] && trace.api_calls[c].correlation != 0) count(trace.api_calls[c]);
    }
    for (const ApiCall& call : trace.calls_without_op)
      count(call);
  }

  if (!result.guessed_process_ops.empty()) {
    has_ranges(0);  // fills range_processes
    result.range_processes = range_processes.size();
    if (result.range_processes > 1) {
      result.method_note +=
          "; " + GuessedProcessNote(result.guessed_process_ops.size(), result.range_processes);
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
  for (size_t i = 0; i < ranges.size(); ++i) {
    result.instances[i].ops = lists[distinct_of[i]];
    result.instances[i].launches_without_op = without_op[distinct_of[i]];
  }
  return result;
}

OutermostInstances KeepOutermost(std::span<const NvtxRange* const> ranges) {
  std::vector<size_t> order(ranges.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a]->start_ns != ranges[b]->start_ns ? ranges[a]->start_ns < ranges[b]->start_ns
                                                      : ranges[a]->end_ns > ranges[b]->end_ns;
  });
  // The timeline: (on the GPU, device) or (on the CPU, process).
  std::map<std::pair<bool, uint64_t>, int64_t> open_until;
  std::vector<bool> keep(ranges.size(), false);
  OutermostInstances result;
  for (size_t i : order) {
    const NvtxRange& range = *ranges[i];
    const std::pair<bool, uint64_t> timeline{
        range.on_gpu, range.on_gpu ? static_cast<uint64_t>(range.device_id) : range.process_id};
    auto [it, fresh] = open_until.try_emplace(timeline, range.end_ns);
    if (!fresh) {
      if (range.start_ns < it->second) {
        ++result.overlapping;
        continue;
      }
      it->second = std::max(it->second, range.end_ns);
    }
    keep[i] = true;
  }
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (keep[i]) result.kept.push_back(ranges[i]);
  }
  return result;
}

std::string LaunchesWithoutOpNote(const Trace& trace, const RangeAttribution& attribution,
                                  std::string_view range, std::string_view counted) {
  size_t instances = 0;
  int64_t calls = 0;
  std::string examples;
  for (size_t k = 0; k < attribution.instances.size(); ++k) {
    const RangeInstanceWork& instance = attribution.instances[k];
    if (instance.launches_without_op == 0) continue;
    ++instances;
    calls += instance.launches_without_op;
    if (instances <= 3) {
      examples += fmt::format("{}{} (instance {}): {}", instances == 1 ? "" : ", ",
                              trace.strings.Get(trace.nvtx_ranges[instance.range_index].name),
                              k + 1, instance.launches_without_op);
    }
  }
  if (instances == 0) return {};
  if (instances > 3) examples += ", ...";
  return fmt::format(
      "{} of {} instance(s) of range {} made {} launch call(s) whose GPU op is not in the trace "
      "({}): their GPU work is incomplete (the capture ended before those records, or the "
      "reader skipped them), yet they are {}",
      instances, attribution.instances.size(), range, calls, examples, counted);
}

size_t DropGpuCopiesBesideCpu(std::vector<const NvtxRange*>& ranges, std::string_view range,
                              std::string* note) {
  const bool any_cpu =
      std::any_of(ranges.begin(), ranges.end(), [](const NvtxRange* r) { return !r->on_gpu; });
  if (!any_cpu) return 0;
  const size_t dropped = std::erase_if(ranges, [](const NvtxRange* r) { return r->on_gpu; });
  if (dropped > 0) {
    *note = fmt::format(
        "{} GPU-timeline instance(s) of range {} left out: the range has CPU instances, whose "
        "GPU-timeline copies they are (not joined to one: no External id, or a copy that starts "
        "before its CPU range)",
        dropped, range);
  }
  return dropped;
}

std::string GuessedProcessNote(size_t ops, size_t range_processes) {
  return fmt::format(
      "{} op(s) do not say which process launched them, or are of a process with no CPU range: "
      "each counts for the overlapping ranges of every process ({} processes have CPU ranges)",
      ops, range_processes);
}

std::string OverlappingInstancesText(size_t overlapping, size_t instances, std::string_view range) {
  return fmt::format(
      "{} of {} instance(s) of range {} lie inside or overlap another instance of it (nested, or "
      "on another thread)",
      overlapping, instances, range);
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
