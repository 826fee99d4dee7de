#include "gpuroof/analyses/engine_overlap.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <utility>

#include "gpuroof/analyses/ordered_scan.h"

namespace gpuroof {

namespace {

// Sweep state of one device. Ops arrive in start order, so when an op starting at t arrives,
// nothing can change any engine's busy state before t any more: the stretch [cursor, t) is
// final and is credited to every pair of engines busy in it. Each engine has one open busy
// segment [start, end) (the union of its ops so far that reach past the previous cut).
struct DeviceSweep {
  std::array<int64_t, kEngineCount> open_start{};
  std::array<int64_t, kEngineCount> open_end{};
  std::array<bool, kEngineCount> has_open{};
  int64_t cursor = std::numeric_limits<int64_t>::min();
  std::vector<std::vector<int64_t>> both_ns =
      std::vector<std::vector<int64_t>>(kEngineCount, std::vector<int64_t>(kEngineCount, 0));
  int64_t comm_hidden_ns = 0;

  // Credits [cursor, t) to the pairs of engines busy in it, then moves the cursor to t.
  void AdvanceTo(int64_t t) {
    if (t <= cursor) return;
    std::array<std::pair<int64_t, int64_t>, kEngineCount> busy{};
    std::array<size_t, kEngineCount> engines{};
    size_t count = 0;
    for (size_t e = 0; e < static_cast<size_t>(kEngineCount); ++e) {
      if (!has_open[e]) continue;
      int64_t from = std::max(open_start[e], cursor);
      int64_t to = std::min(open_end[e], t);
      if (to <= from) continue;
      busy[count] = {from, to};
      engines[count++] = e;
    }
    for (size_t i = 0; i < count; ++i) {
      for (size_t j = i + 1; j < count; ++j) {
        int64_t both =
            std::min(busy[i].second, busy[j].second) - std::max(busy[i].first, busy[j].first);
        if (both > 0) {
          both_ns[engines[i]][engines[j]] += both;
          both_ns[engines[j]][engines[i]] += both;
        }
      }
    }
    CreditHiddenComm(t);
    cursor = t;
  }

  // Communication hidden behind compute in [cursor, t): comm ∩ (kernel ∪ graph), by inclusion
  // and exclusion over the one busy stretch each engine has there.
  void CreditHiddenComm(int64_t t) {
    const auto stretch = [&](Engine engine) -> std::pair<int64_t, int64_t> {
      const auto e = static_cast<size_t>(EngineIndex(engine));
      if (!has_open[e]) return {0, 0};
      return {std::max(open_start[e], cursor), std::min(open_end[e], t)};
    };
    const auto length = [](std::pair<int64_t, int64_t> a, std::pair<int64_t, int64_t> b) {
      return std::max<int64_t>(0, std::min(a.second, b.second) - std::max(a.first, b.first));
    };
    const auto comm = stretch(Engine::kComm);
    if (comm.second <= comm.first) return;
    const auto kernel = stretch(Engine::kKernel);
    const auto graph = stretch(Engine::kGraph);
    const std::pair<int64_t, int64_t> kernel_and_graph = {std::max(kernel.first, graph.first),
                                                          std::min(kernel.second, graph.second)};
    comm_hidden_ns += length(comm, kernel) + length(comm, graph) - length(comm, kernel_and_graph);
  }

  void Add(size_t engine, int64_t start, int64_t end) {
    AdvanceTo(start);
    if (!has_open[engine] || start > open_end[engine]) {
      open_start[engine] = start;
      open_end[engine] = end;
      has_open[engine] = true;
    } else {
      open_end[engine] = std::max(open_end[engine], end);
    }
  }
};

}  // namespace

std::vector<EngineOverlap> ComputeEngineOverlap(const Trace& trace,
                                                const std::vector<DeviceLoad>& loads) {
  std::map<int32_t, size_t> index_of_device;
  for (size_t d = 0; d < loads.size(); ++d)
    index_of_device[loads[d].device_id] = d;
  constexpr size_t kNoDevice = static_cast<size_t>(-1);
  std::vector<size_t> stream_device(trace.streams.size(), kNoDevice);
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    auto it = index_of_device.find(trace.streams[s].device_id);
    if (it != index_of_device.end()) stream_device[s] = it->second;
  }
  std::vector<DeviceSweep> sweeps(loads.size());
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    size_t d = stream_device[block.stream[i]];
    if (d == kNoDevice) return;
    const Window& window = loads[d].window;
    int64_t start = std::max(block.start_ns[i], window.start_ns);
    int64_t end = std::min(block.end_ns[i], window.end_ns);
    if (end <= start) return;                                // outside the window, or no time
    if (!OpCountsInWindow(trace, block, i, window)) return;  // not a work window's work
    sweeps[d].Add(static_cast<size_t>(EngineIndex(block.engine[i])), start, end);
  });

  std::vector<EngineOverlap> overlaps;
  for (size_t d = 0; d < loads.size(); ++d) {
    sweeps[d].AdvanceTo(std::numeric_limits<int64_t>::max());
    EngineOverlap overlap;
    overlap.device_id = loads[d].device_id;
    for (Engine engine : kAllEngines) {
      if (loads[d].engine(engine).ops > 0) overlap.engines.push_back(engine);
    }
    size_t n = overlap.engines.size();
    overlap.intersection_ns.assign(n, std::vector<int64_t>(n, 0));
    for (size_t a = 0; a < n; ++a) {
      auto ea = static_cast<size_t>(EngineIndex(overlap.engines[a]));
      for (size_t b = 0; b < n; ++b) {
        auto eb = static_cast<size_t>(EngineIndex(overlap.engines[b]));
        overlap.intersection_ns[a][b] =
            a == b ? loads[d].engines[ea].busy_ns : sweeps[d].both_ns[ea][eb];
      }
    }
    overlap.idle_ns = loads[d].window.length_ns() - loads[d].any_busy_ns;
    overlap.comm_hidden_ns = sweeps[d].comm_hidden_ns;
    overlaps.push_back(std::move(overlap));
  }
  return overlaps;
}

}  // namespace gpuroof
