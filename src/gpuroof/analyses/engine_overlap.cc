#include "gpuroof/analyses/engine_overlap.h"

#include <algorithm>
#include <map>
#include <utility>

#include "gpuroof/analyses/ordered_scan.h"

namespace gpuroof {

namespace {

using Segments = std::vector<std::pair<int64_t, int64_t>>;  // sorted, disjoint [start, end)

// Length of the intersection of two sorted lists of disjoint segments: a linear merge.
int64_t IntersectionNs(const Segments& a, const Segments& b) {
  int64_t total = 0;
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t start = std::max(a[i].first, b[j].first);
    int64_t end = std::min(a[i].second, b[j].second);
    if (end > start) total += end - start;
    if (a[i].second < b[j].second) {
      ++i;
    } else {
      ++j;
    }
  }
  return total;
}

int64_t LengthNs(const Segments& segments) {
  int64_t total = 0;
  for (const auto& [start, end] : segments)
    total += end - start;
  return total;
}

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
  // Busy segments per device and engine, merged on the fly from clipped ops in start order.
  std::vector<std::vector<Segments>> segments(loads.size(), std::vector<Segments>(kEngineCount));
  std::vector<Segments> any(loads.size());
  auto extend = [](Segments& list, int64_t start, int64_t end) {
    if (end <= start) return;
    if (list.empty() || start > list.back().second) {
      list.emplace_back(start, end);
    } else {
      list.back().second = std::max(list.back().second, end);
    }
  };
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    size_t d = stream_device[block.stream[i]];
    if (d == kNoDevice) return;
    const Window& window = loads[d].window;
    int64_t start = std::max(block.start_ns[i], window.start_ns);
    int64_t end = std::min(block.end_ns[i], window.end_ns);
    extend(segments[d][static_cast<size_t>(EngineIndex(block.engine[i]))], start, end);
    extend(any[d], start, end);
  });

  std::vector<EngineOverlap> overlaps;
  for (size_t d = 0; d < loads.size(); ++d) {
    EngineOverlap overlap;
    overlap.device_id = loads[d].device_id;
    for (Engine engine : kAllEngines) {
      if (loads[d].engine(engine).ops > 0) overlap.engines.push_back(engine);
    }
    size_t n = overlap.engines.size();
    overlap.intersection_ns.assign(n, std::vector<int64_t>(n, 0));
    for (size_t a = 0; a < n; ++a) {
      const Segments& sa = segments[d][static_cast<size_t>(EngineIndex(overlap.engines[a]))];
      overlap.intersection_ns[a][a] = LengthNs(sa);
      for (size_t b = a + 1; b < n; ++b) {
        const Segments& sb = segments[d][static_cast<size_t>(EngineIndex(overlap.engines[b]))];
        overlap.intersection_ns[a][b] = overlap.intersection_ns[b][a] = IntersectionNs(sa, sb);
      }
    }
    overlap.idle_ns = loads[d].window.length_ns() - LengthNs(any[d]);
    overlaps.push_back(std::move(overlap));
  }
  return overlaps;
}

}  // namespace gpuroof
