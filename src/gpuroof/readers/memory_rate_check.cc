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

struct FastOps {
  std::array<int64_t, kEngineCount> count_by_engine{};
  double fastest_bytes_per_ns = 0;
};

// Host-to-host copies never touch device memory, so the device's bandwidth does not bound them.
bool TouchesDeviceMemory(Engine engine) {
  return EngineMovesBytes(engine) && engine != Engine::kH2H;
}

}  // namespace

void NoteOpsFasterThanMemory(Trace& trace) {
  std::map<int32_t, double> bandwidth_bytes_per_ns;
  for (const DeviceInfo& device : trace.devices) {
    if (device.memory_bandwidth_bytes_per_s > 0)
      bandwidth_bytes_per_ns[device.id] =
          static_cast<double>(device.memory_bandwidth_bytes_per_s) / 1e9;
  }
  if (bandwidth_bytes_per_ns.empty()) return;
  std::map<int32_t, FastOps> fast;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const Engine engine = block.engine[i];
      const int64_t duration_ns = block.end_ns[i] - block.start_ns[i];
      if (!TouchesDeviceMemory(engine) || duration_ns <= 0 || block.bytes[i] == 0) continue;
      const int32_t device = trace.streams[block.stream[i]].device_id;
      auto limit = bandwidth_bytes_per_ns.find(device);
      if (limit == bandwidth_bytes_per_ns.end()) continue;
      const double rate = static_cast<double>(block.bytes[i]) / static_cast<double>(duration_ns);
      if (rate <= limit->second) continue;
      FastOps& ops = fast[device];
      ++ops.count_by_engine[static_cast<size_t>(EngineIndex(engine))];
      ops.fastest_bytes_per_ns = std::max(ops.fastest_bytes_per_ns, rate);
    }
  }
  for (const auto& [device, ops] : fast) {
    std::string counts;
    for (Engine engine : kAllEngines) {
      const int64_t count = ops.count_by_engine[static_cast<size_t>(EngineIndex(engine))];
      if (count == 0) continue;
      counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", count, EngineName(engine));
    }
    // bytes per ns are GB/s.
    trace.diagnostics.Note(fmt::format(
        "device {}: {} op(s) moved bytes faster than the device's memory bandwidth ({:.1f} GB/s; "
        "fastest {:.1f} GB/s): their recorded times do not cover their work, so their GB/s are "
        "not transfer rates",
        device, counts, bandwidth_bytes_per_ns.at(device), ops.fastest_bytes_per_ns));
  }
}

namespace {

struct OpSpan {
  int64_t start = 0;
  int64_t end = 0;
};

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

void NoteFarOutlyingOps(Trace& trace) {
  // Per device: each device has its own window, the one such ops would stretch.
  // The kMostOpsApart + 1 earliest starts and latest ends of each, in one pass (bounded heaps):
  // the check costs no copy of the ops.
  const size_t keep = kMostOpsApart + 1;
  struct DeviceEdges {
    size_t total = 0;
    std::vector<OpSpan> early;  // max-heap by start
    std::vector<OpSpan> late;   // min-heap by end
    int64_t first_start = std::numeric_limits<int64_t>::max();
    int64_t last_end = std::numeric_limits<int64_t>::min();
  };
  std::map<int32_t, DeviceEdges> devices;
  auto later_start = [](const OpSpan& a, const OpSpan& b) { return a.start < b.start; };
  auto earlier_end = [](const OpSpan& a, const OpSpan& b) { return a.end > b.end; };
  for (const ActivityBlock& block : trace.blocks) {
    int32_t device = 0;
    DeviceEdges* edges = nullptr;
    for (size_t i = 0; i < block.size(); ++i) {
      const uint32_t stream = block.stream[i];
      const int32_t id = stream < trace.streams.size() ? trace.streams[stream].device_id : 0;
      if (edges == nullptr || id != device) {
        device = id;
        edges = &devices[id];
      }
      DeviceEdges& d = *edges;
      const OpSpan op{block.start_ns[i], block.end_ns[i]};
      ++d.total;
      d.first_start = std::min(d.first_start, op.start);
      d.last_end = std::max(d.last_end, op.end);
      if (d.early.size() < keep) {
        d.early.push_back(op);
        std::push_heap(d.early.begin(), d.early.end(), later_start);
      } else if (op.start < d.early.front().start) {
        std::pop_heap(d.early.begin(), d.early.end(), later_start);
        d.early.back() = op;
        std::push_heap(d.early.begin(), d.early.end(), later_start);
      }
      if (d.late.size() < keep) {
        d.late.push_back(op);
        std::push_heap(d.late.begin(), d.late.end(), earlier_end);
      } else if (op.end > d.late.front().end) {
        std::pop_heap(d.late.begin(), d.late.end(), earlier_end);
        d.late.back() = op;
        std::push_heap(d.late.begin(), d.late.end(), earlier_end);
      }
    }
  }
  for (auto& [device, d] : devices) {
    if (d.total < 3) continue;
    std::sort_heap(d.early.begin(), d.early.end(), later_start);  // by start, ascending
    std::sort_heap(d.late.begin(), d.late.end(), earlier_end);    // by end, descending
    const Apart apart = FindApart(d.early, d.late, d.total);
    // Said as a fact: a few warm-up ops, a long pause, then the profiled steps is a real trace.
    auto say = [&, device = device](const ApartSide& side, std::string_view where) {
      const size_t count = side.ops;
      const int64_t gap = side.gap;
      if (count == 0) return;
      trace.diagnostics.Note(fmt::format(
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
