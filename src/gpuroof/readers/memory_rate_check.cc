#include "gpuroof/readers/memory_rate_check.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpuroof/model/engine.h"

namespace gpuroof {

namespace {

// Host-to-host copies never touch device memory, so the device's bandwidth does not bound them.
bool TouchesDeviceMemory(Engine engine) {
  return EngineMovesBytes(engine) && engine != Engine::kH2H;
}

}  // namespace

OpChecks::OpChecks(const std::vector<DeviceInfo>& devices) {
  for (const DeviceInfo& device : devices) {
    if (device.memory_bandwidth_bytes_per_s > 0)
      bandwidth_bytes_per_ns_[device.id] =
          static_cast<double>(device.memory_bandwidth_bytes_per_s) / 1e9;
  }
}

void OpChecks::NoteFasterThanMemory(Diagnostics& diagnostics) const {
  for (const auto& [device, ops] : fast_) {
    std::string counts;
    for (Engine engine : kAllEngines) {
      const int64_t count = ops.count_by_engine[static_cast<size_t>(EngineIndex(engine))];
      if (count == 0) continue;
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, EngineName(engine));
    }
    // bytes per ns are GB/s.
    diagnostics.Note(fmt::format(
        "device {}: {} op(s) moved bytes faster than the device's memory bandwidth ({:.1f} GB/s; "
        "fastest {:.1f} GB/s): their recorded times do not cover their work, so their GB/s are "
        "not transfer rates",
        device, counts, bandwidth_bytes_per_ns_.at(device), ops.fastest_bytes_per_ns));
  }
}

void NoteOpsFasterThanMemory(Trace& trace) {
  OpChecks checks(trace.devices);
  for (const ActivityBlock& block : trace.blocks)
    checks.AddBlock(block, trace.streams);
  checks.NoteFasterThanMemory(trace.diagnostics);
}

namespace {

using OpSpan = OpChecks::OpSpan;

// A group of ops apart from the rest on one side: how many, and the gap between it and the rest.
struct ApartSide {
  size_t ops = 0;
  int64_t gap = 0;
};

// The groups before and after the rest, the span of the rest (between them) and its op count.
struct Apart {
  ApartSide before, after;
  int64_t rest_span = 0;
  size_t rest = 0;
};

constexpr size_t kMostOpsApart = 16;
constexpr int64_t kApartFactor = 1000;

// Leading groups are the first j <= kMostOpsApart ops of `early` (earliest starts, ascending),
// trailing groups the first k of `late` (latest ends, descending): each pair (j, k) leaves the
// rest between them, from early[j]'s start to late[k]'s end. A pair counts when the groups hold
// fewer ops than the rest and each non-empty group ends (starts) over kApartFactor times the
// rest's span before (after) it. Both sides together: an outlier on one side would otherwise
// widen the rest that the other side's gap is measured against. The pair with the largest gaps
// wins.
Apart FindApart(const std::vector<OpSpan>& early, const std::vector<OpSpan>& late, size_t total) {
  Apart found;
  int64_t lead_end = std::numeric_limits<int64_t>::min();
  for (size_t j = 0; j < early.size() && j <= kMostOpsApart; ++j) {
    if (j > 0) lead_end = std::max(lead_end, early[j - 1].end);
    const int64_t rest_start = early[j].start;
    if (j > 0 && lead_end >= rest_start) continue;
    int64_t trail_start = std::numeric_limits<int64_t>::max();
    for (size_t k = 0; k < late.size() && k <= kMostOpsApart && 2 * (j + k) < total; ++k) {
      if (k > 0) trail_start = std::min(trail_start, late[k - 1].start);
      if (j + k == 0) continue;
      const int64_t rest_end = late[k].end;
      if (k > 0 && trail_start <= rest_end) continue;
      const int64_t rest_span = rest_end - rest_start;
      if (rest_span <= 0) continue;
      const int64_t gap_before = j > 0 ? rest_start - lead_end : 0;
      const int64_t gap_after = k > 0 ? trail_start - rest_end : 0;
      if (j > 0 && gap_before / kApartFactor <= rest_span) continue;
      if (k > 0 && gap_after / kApartFactor <= rest_span) continue;
      int64_t gaps = 0;
      int64_t found_gaps = 0;
      if (__builtin_add_overflow(gap_before, gap_after, &gaps)) {
        gaps = std::numeric_limits<int64_t>::max();
      }
      if (__builtin_add_overflow(found.before.gap, found.after.gap, &found_gaps)) {
        found_gaps = std::numeric_limits<int64_t>::max();
      }
      if (gaps > found_gaps) {
        found = {{j, gap_before}, {k, gap_after}, rest_span, total - j - k};
      }
    }
  }
  return found;
}

std::string Seconds(int64_t ns) {
  const double s = static_cast<double>(ns) / 1e9;
  constexpr double kYear = 365.25 * 86400;
  if (s >= kYear) return fmt::format("{:.3f} s (about {:.1f} years)", s, s / kYear);
  if (s >= 86400) return fmt::format("{:.3f} s (about {:.1f} days)", s, s / 86400);
  return fmt::format("{:.6f} s", s);
}

}  // namespace

namespace {

constexpr size_t kKeepEdges = kMostOpsApart + 1;
// Function objects, not functions: the heap operations run for most ops, and inline these.
struct LaterStart {
  bool operator()(const OpSpan& a, const OpSpan& b) const { return a.start < b.start; }
};
struct EarlierEnd {
  bool operator()(const OpSpan& a, const OpSpan& b) const { return a.end > b.end; }
};

}  // namespace

inline void OpChecks::AddEarly(DeviceEdges& d, const OpSpan& op) {
  if (d.early.size() < kKeepEdges) {
    d.early.push_back(op);
    std::push_heap(d.early.begin(), d.early.end(), LaterStart{});
  } else if (op.start < d.early.front().start) {
    std::pop_heap(d.early.begin(), d.early.end(), LaterStart{});
    d.early.back() = op;
    std::push_heap(d.early.begin(), d.early.end(), LaterStart{});
  }
}

inline void OpChecks::AddLate(DeviceEdges& d, const OpSpan& op) {
  if (d.late.size() < kKeepEdges) {
    d.late.push_back(op);
    std::push_heap(d.late.begin(), d.late.end(), EarlierEnd{});
  } else if (op.end > d.late.front().end) {
    std::pop_heap(d.late.begin(), d.late.end(), EarlierEnd{});
    d.late.back() = op;
    std::push_heap(d.late.begin(), d.late.end(), EarlierEnd{});
  }
}

void OpChecks::SetDevice(int32_t device) {
  device_ = device;
  edges_ = &devices_[device];
  const auto limit = bandwidth_bytes_per_ns_.find(device);
  limit_ = limit == bandwidth_bytes_per_ns_.end() ? nullptr : &limit->second;
}

// Inline: AddBlock calls it for every op.
inline void OpChecks::Add(int32_t device, Engine engine, int64_t start_ns, int64_t end_ns,
                          uint64_t bytes) {
  if (edges_ == nullptr || device != device_) SetDevice(device);
  ++edges_->total;
  AddEarly(*edges_, OpSpan{start_ns, end_ns});
  AddLate(*edges_, OpSpan{start_ns, end_ns});
  // Faster than memory: only copies and memsets touching device memory, with a rate.
  const int64_t duration_ns = end_ns - start_ns;
  if (limit_ == nullptr || !TouchesDeviceMemory(engine) || duration_ns <= 0 || bytes == 0) return;
  const double rate = static_cast<double>(bytes) / static_cast<double>(duration_ns);
  if (rate <= *limit_) return;
  FastOps& ops = fast_[device];
  ++ops.count_by_engine[static_cast<size_t>(EngineIndex(engine))];
  ops.fastest_bytes_per_ns = std::max(ops.fastest_bytes_per_ns, rate);
}

void OpChecks::AddBlock(const ActivityBlock& block, const std::vector<StreamInfo>& streams) {
  for (size_t i = 0; i < block.size(); ++i) {
    const uint32_t stream = block.stream[i];
    const int32_t device = stream < streams.size() ? streams[stream].device_id : 0;
    Add(device, block.engine[i], block.start_ns[i], block.end_ns[i], block.bytes[i]);
  }
}

// The result does not depend on the order ops were added in: FindApart only reads a group at
// a boundary between distinct starts (ends), the same ops whichever of tied ones a heap kept.
void OpChecks::Merge(const OpChecks& other) {
  for (const auto& [device, ops] : other.fast_) {
    FastOps& mine = fast_[device];
    for (size_t e = 0; e < mine.count_by_engine.size(); ++e)
      mine.count_by_engine[e] += ops.count_by_engine[e];
    mine.fastest_bytes_per_ns = std::max(mine.fastest_bytes_per_ns, ops.fastest_bytes_per_ns);
  }
  for (const auto& [device, edges] : other.devices_) {
    DeviceEdges& mine = devices_[device];
    mine.total += edges.total;
    for (const OpSpan& op : edges.early)
      AddEarly(mine, op);
    for (const OpSpan& op : edges.late)
      AddLate(mine, op);
  }
}

void NoteFarOutlyingOps(Trace& trace) {
  // Per device: each device has its own window, the one such ops would stretch.
  // The kMostOpsApart + 1 earliest starts and latest ends of each, in one pass (bounded heaps):
  // the check costs no copy of the ops. (No bandwidths: the other check is off.)
  OpChecks checks;
  for (const ActivityBlock& block : trace.blocks)
    checks.AddBlock(block, trace.streams);
  checks.NoteFarOutlying(trace.diagnostics);
}

void OpChecks::NoteFarOutlying(Diagnostics& diagnostics) const {
  for (const auto& [device, d] : devices_) {
    if (d.total < 3) continue;
    std::vector<OpSpan> early = d.early;
    std::vector<OpSpan> late = d.late;
    std::sort_heap(early.begin(), early.end(), LaterStart{});  // by start, ascending
    std::sort_heap(late.begin(), late.end(), EarlierEnd{});    // by end, descending
    const Apart apart = FindApart(early, late, d.total);
    // Said as a fact: a few warm-up ops, a long pause, then the profiled steps is a real trace.
    auto say = [&, device = device](const ApartSide& side, std::string_view where) {
      const size_t count = side.ops;
      const int64_t gap = side.gap;
      if (count == 0) return;
      diagnostics.Note(fmt::format(
          "device {}: {} GPU op{} {} {} {} the other {} ops on it (a gap {}x their span of {}); "
          "the device's window spans them (--window limits it)",
          device, count, count == 1 ? "" : "s", count == 1 ? "lies" : "lie", Seconds(gap), where,
          apart.rest, gap / apart.rest_span, Seconds(apart.rest_span)));
    };
    say(apart.before, "before");
    say(apart.after, "after");
  }
}

}  // namespace gpuroof
