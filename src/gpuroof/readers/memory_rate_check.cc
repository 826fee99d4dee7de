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

// A group of ops apart from the rest: how many, the gap, and the span of the rest.
struct Apart {
  size_t count = 0;
  int64_t gap = 0;
  int64_t rest_span = 0;
};

constexpr size_t kMostOpsApart = 16;
constexpr int64_t kApartFactor = 1000;

// The largest group among the first j <= kMostOpsApart ops of `edge` (the ops with the earliest
// starts, in order) that ends before op j starts, fewer than the rest, with a gap to the rest over
// kApartFactor times the rest's span (the rest ends at `last_end`). Mirrored for the trailing
// side by negating the times.
Apart FindApart(const std::vector<OpSpan>& edge, size_t total, int64_t last_end) {
  Apart found;
  int64_t group_end = std::numeric_limits<int64_t>::min();
  for (size_t j = 1; j < edge.size() && j <= kMostOpsApart && 2 * j < total; ++j) {
    group_end = std::max(group_end, edge[j - 1].end);
    const int64_t next = edge[j].start;
    if (group_end >= next) continue;
    const int64_t gap = next - group_end;
    const int64_t rest_span = last_end - next;
    if (rest_span > 0 && gap / kApartFactor > rest_span && gap > found.gap) {
      found = {j, gap, rest_span};
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
    // The trailing side, mirrored: an op (s, e) becomes (-e, -s).
    for (OpSpan& op : d.late)
      op = {-op.end, -op.start};
    const Apart before = FindApart(d.early, d.total, d.last_end);
    const Apart after = FindApart(d.late, d.total, -d.first_start);
    // Said as a fact: a few warm-up ops, a long pause, then the profiled steps is a real trace.
    auto say = [&, device = device, total = d.total](const Apart& apart, std::string_view where) {
      if (apart.count == 0) return;
      trace.diagnostics.Note(fmt::format(
          "device {}: {} GPU op{} {} {} {} the other {} ops on it (a gap {}x their span of {}); "
          "the device's window spans them (--window limits it)",
          device, apart.count, apart.count == 1 ? "" : "s", apart.count == 1 ? "lies" : "lie",
          Seconds(apart.gap), where, total - apart.count, apart.gap / apart.rest_span,
          Seconds(apart.rest_span)));
    };
    say(before, "before");
    say(after, "after");
  }
}

}  // namespace gpuroof
