#include "gpuroof/readers/kineto_launch_processes.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace gpuroof {

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kSeveral = kNone - 1;  // process keys are below 2^33

// Orders calls sorted by correlation against a correlation id, both ways (std::equal_range).
struct ByCorrelation {
  template <typename Call>
  bool operator()(const Call* call, uint32_t c) const {
    return call->correlation < c;
  }
  template <typename Call>
  bool operator()(uint32_t c, const Call* call) const {
    return c < call->correlation;
  }
};

// The process that could have launched most, when one alone could; `taken` processes (those a
// device went to already: one process per device is the usual layout) are not candidates.
uint64_t MostFitting(const std::map<uint64_t, int64_t>& counts, const std::set<uint64_t>& taken) {
  int64_t most = 0;
  uint64_t best = kNone;
  for (const auto& [process, count] : counts) {
    if (taken.count(process) > 0) continue;
    if (count > most) {
      most = count;
      best = process;
    } else if (count == most) {
      best = kNone;
    }
  }
  return best;
}

// The rules of AssignLaunchingProcesses, one method each, in the order they run.
template <typename Call>
class LaunchingProcesses {
 public:
  LaunchingProcesses(Trace& trace, const std::vector<const Call*>& calls)
      : trace_(trace), calls_(calls) {}

  ProcessPlacement Assign() {
    TakeUniqueIds();
    FitDevices();
    for (auto& [correlation, ops] : ambiguous_)
      PlaceAmbiguous(correlation, ops);
    SplitSharedStreams();
    return placed_;
  }

 private:
  using OpRef = std::pair<size_t, size_t>;  // (block, row)
  using CallRange = std::pair<typename std::vector<const Call*>::const_iterator,
                              typename std::vector<const Call*>::const_iterator>;

  CallRange CallsOf(uint32_t correlation) const {
    return std::equal_range(calls_.begin(), calls_.end(), correlation, ByCorrelation{});
  }
  int64_t StartOf(const OpRef& op) const { return trace_.blocks[op.first].start_ns[op.second]; }
  uint32_t StreamOf(const OpRef& op) const { return trace_.blocks[op.first].stream[op.second]; }
  // The device of an op on a stream no process voted for; nullopt on a voted stream.
  std::optional<int32_t> UnvotedDevice(const OpRef& op) const {
    const uint32_t s = StreamOf(op);
    if (voter_[s] != kNone) return std::nullopt;
    return trace_.streams[s].device_id;
  }

  // Rule 1: an id only one process has gives the op that process, and a vote for its stream.
  // Ops whose id several processes have wait in ambiguous_.
  void TakeUniqueIds() {
    op_process_.resize(trace_.blocks.size());
    voter_.assign(trace_.streams.size(), kNone);
    for (size_t b = 0; b < trace_.blocks.size(); ++b) {
      const ActivityBlock& block = trace_.blocks[b];
      op_process_[b].assign(block.correlation.size(), kNone);
      for (size_t i = 0; i < block.correlation.size(); ++i) {
        if (block.correlation[i] == 0) continue;
        auto [first, last] = CallsOf(block.correlation[i]);
        if (first == last) continue;
        const uint64_t process = (*first)->process_id;
        if (process != (*std::prev(last))->process_id) {
          ambiguous_[block.correlation[i]].emplace_back(b, i);
          continue;
        }
        op_process_[b][i] = process;
        uint64_t& stream_voter = voter_[block.stream[i]];
        if (stream_voter == kNone) {
          stream_voter = process;
        } else if (stream_voter != process) {
          stream_voter = kSeveral;
        }
      }
    }
  }

  // Rule 3's candidates: for ops on streams no process voted for (every id of their ops is
  // shared, as in merged SPMD ranks), per device, the process whose calls could have launched
  // (started no later than) most of them, when one alone could. One process per device is the
  // usual layout; votes say more.
  void FitDevices() {
    std::map<int32_t, std::map<uint64_t, int64_t>> fits;
    for (const auto& [correlation, ops] : ambiguous_) {
      auto [first, last] = CallsOf(correlation);
      for (const OpRef& op : ops) {
        const std::optional<int32_t> device = UnvotedDevice(op);
        if (!device) continue;
        uint64_t counted = kNone;  // calls are sorted by process: each process once per op
        for (auto call = first; call != last; ++call) {
          if ((*call)->start_ns > StartOf(op) || (*call)->process_id == counted) continue;
          counted = (*call)->process_id;
          ++fits[*device][counted];
        }
      }
    }
    std::set<uint64_t> taken;
    for (const auto& [device, counts] : fits) {
      if (const uint64_t best = MostFitting(counts, {}); best != kNone) {
        best_fit_[device] = best;
        taken.insert(best);
      }
    }
    // A device whose processes tie may be decided once the others took theirs (merged ranks:
    // each rank's calls precede every device's ops, but one device was told apart by an op).
    for (const auto& [device, counts] : fits) {
      if (best_fit_.count(device) > 0) continue;
      if (const uint64_t best = MostFitting(counts, taken); best != kNone) best_fit_[device] = best;
    }
  }

  // Rules 2 to 5 for the ops of one shared id, in start order.
  void PlaceAmbiguous(uint32_t correlation, std::vector<OpRef>& ops) {
    std::stable_sort(ops.begin(), ops.end(),
                     [&](const OpRef& a, const OpRef& b) { return StartOf(a) < StartOf(b); });
    auto [first, last] = CallsOf(correlation);
    const auto call_count = static_cast<size_t>(last - first);
    const bool one_op_per_call = ops.size() <= call_count;
    std::vector<bool> used(call_count, false);
    // The call of `process` (kNone: any) that started last but not after `start`, else the
    // earliest; with one_op_per_call, among the calls not given yet.
    auto pick = [&](uint64_t process, int64_t start) -> std::optional<size_t> {
      std::optional<size_t> fit;
      std::optional<size_t> earliest;
      for (size_t k = 0; k < call_count; ++k) {
        const Call& call = *first[k];
        if ((process != kNone && call.process_id != process) || (one_op_per_call && used[k]))
          continue;
        if (call.start_ns <= start && (!fit || call.start_ns > first[*fit]->start_ns)) fit = k;
        if (!earliest || call.start_ns < first[*earliest]->start_ns) earliest = k;
      }
      return fit ? fit : earliest;
    };
    auto place = [&](const OpRef& op, size_t k) {
      op_process_[op.first][op.second] = first[k]->process_id;
      used[k] = true;
    };
    std::vector<OpRef> by_time;
    for (const OpRef& op : ops) {
      const uint32_t s = StreamOf(op);
      std::optional<size_t> k;
      if (voter_[s] != kNone && voter_[s] != kSeveral) {
        if ((k = pick(voter_[s], StartOf(op)))) ++placed_.by_stream;
      } else if (const std::optional<int32_t> device = UnvotedDevice(op)) {
        auto fit = best_fit_.find(*device);
        if (fit != best_fit_.end() && (k = pick(fit->second, StartOf(op)))) ++placed_.by_fit;
      }
      if (k) {
        place(op, *k);
      } else {
        by_time.push_back(op);
      }
    }
    // Calls of the id not given yet that started no later than `start`.
    auto open_calls = [&](int64_t start) {
      size_t n = 0;
      for (size_t k = 0; k < call_count; ++k)
        n += (!one_op_per_call || !used[k]) && first[k]->start_ns <= start ? 1 : 0;
      return n;
    };
    for (const OpRef& op : by_time) {
      // By time among processes known to share the op's stream, or when one call alone is left
      // that could have launched it; else nothing tells.
      std::optional<size_t> k;
      if (voter_[StreamOf(op)] == kSeveral || open_calls(StartOf(op)) == 1) {
        k = pick(kNone, StartOf(op));
      }
      if (k) {
        place(op, *k);
        ++placed_.by_time;
      } else {
        ++placed_.undecided;
      }
    }
  }

  // One stream per (stream, process): the first process keeps the stream's index.
  void SplitSharedStreams() {
    std::vector<std::optional<uint64_t>> owner(trace_.streams.size());
    std::map<std::pair<uint32_t, uint64_t>, uint32_t> split;
    for (size_t b = 0; b < trace_.blocks.size(); ++b) {
      ActivityBlock& block = trace_.blocks[b];
      for (size_t i = 0; i < op_process_[b].size(); ++i) {
        const uint64_t process = op_process_[b][i];
        if (process == kNone) continue;
        const uint32_t s = block.stream[i];
        if (!owner[s]) owner[s] = process;
        if (*owner[s] == process) continue;
        auto [it, inserted] =
            split.try_emplace({s, process}, static_cast<uint32_t>(trace_.streams.size()));
        if (inserted) {
          StreamInfo info = trace_.streams[s];
          info.process_id = process;
          trace_.streams.push_back(info);
        }
        block.stream[i] = it->second;
      }
    }
    for (size_t s = 0; s < owner.size(); ++s)
      trace_.streams[s].process_id = owner[s].value_or(0);
  }

  Trace& trace_;
  const std::vector<const Call*>& calls_;
  std::vector<std::vector<uint64_t>> op_process_;     // per block and row; kNone: not placed
  std::vector<uint64_t> voter_;                       // per stream; kSeveral: more than one process
  std::map<uint32_t, std::vector<OpRef>> ambiguous_;  // ops of a shared id, by correlation id
  std::map<int32_t, uint64_t> best_fit_;              // rule 3's process per device
  ProcessPlacement placed_;
};

}  // namespace

template <typename Call>
ProcessPlacement AssignLaunchingProcesses(Trace& trace,
                                          const std::vector<const Call*>& launch_calls) {
  return LaunchingProcesses<Call>(trace, launch_calls).Assign();
}

template ProcessPlacement AssignLaunchingProcesses<ApiCall>(Trace&,
                                                            const std::vector<const ApiCall*>&);
template ProcessPlacement AssignLaunchingProcesses<ParsedLaunchEnd>(
    Trace&, const std::vector<const ParsedLaunchEnd*>&);

}  // namespace gpuroof
