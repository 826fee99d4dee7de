#include "gpuroof/analyses/findings/device_activity.h"

#include <algorithm>
#include <map>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/ordered_scan.h"

namespace gpuroof {

int64_t SegmentsLengthNs(const Segments& segments) {
  int64_t total = 0;
  for (const auto& [start, end] : segments)
    total += end - start;
  return total;
}

namespace {

// Calls `part(start, end)` for every part of `a` not covered by `b` (both sorted and disjoint),
// in time order.
template <typename Part>
void ForEachUncovered(const Segments& a, const Segments& b, Part part) {
  size_t j = 0;
  for (const auto& [start, end] : a) {
    int64_t cursor = start;
    while (j < b.size() && b[j].second <= cursor)
      ++j;
    size_t k = j;
    while (k < b.size() && b[k].first < end) {
      if (b[k].first > cursor) part(cursor, b[k].first);
      cursor = std::max(cursor, b[k].second);
      if (cursor >= end) break;
      ++k;
    }
    if (cursor < end) part(cursor, end);
  }
}

}  // namespace

int64_t UncoveredLengthNs(const Segments& a, const Segments& b) {
  int64_t uncovered = 0;
  ForEachUncovered(a, b, [&uncovered](int64_t start, int64_t end) { uncovered += end - start; });
  return uncovered;
}

Segments UncoveredSegments(const Segments& a, const Segments& b) {
  Segments out;
  ForEachUncovered(a, b, [&out](int64_t start, int64_t end) { out.emplace_back(start, end); });
  return out;
}

bool DeviceActivity::IdleAt(int64_t t_ns, int64_t* start_ns, int64_t* end_ns) const {
  // The first segment that starts after t: the op that ends the idle interval.
  auto next = std::upper_bound(
      any.begin(), any.end(), t_ns,
      [](int64_t t, const std::pair<int64_t, int64_t>& segment) { return t < segment.first; });
  if (next == any.end() || next == any.begin()) return false;
  auto before = std::prev(next);
  if (before->second > t_ns) return false;  // busy at t
  *start_ns = before->second;
  *end_ns = next->first;
  return true;
}

namespace {

bool IsCopyEngine(Engine engine) {
  switch (engine) {
    case Engine::kH2D:
    case Engine::kD2H:
    case Engine::kD2D:
    case Engine::kP2P:
    case Engine::kH2H:
      return true;
    default:
      return false;
  }
}

// Appends [start, end) to sorted segments fed in nondecreasing start order, merging overlaps.
void Extend(Segments& segments, int64_t start, int64_t end) {
  if (end <= start) return;
  if (!segments.empty() && start <= segments.back().second) {
    segments.back().second = std::max(segments.back().second, end);
  } else {
    segments.emplace_back(start, end);
  }
}

}  // namespace

std::vector<DeviceActivity> BuildDeviceActivity(const Trace& trace, const WindowSpec& spec,
                                                const std::vector<DeviceLoad>* engine_load,
                                                int64_t gap_min_ns) {
  std::vector<DeviceLoad> computed;
  std::map<int32_t, DeviceActivity> devices;
  for (const DeviceLoad& load : GivenOrComputedEngineLoad(trace, spec, engine_load, computed)) {
    DeviceActivity& device = devices[load.device_id];
    device.device_id = load.device_id;
    device.window = load.window;
  }
  for (const StreamInfo& stream : trace.streams) {
    auto it = devices.find(stream.device_id);
    if (it != devices.end() && it->second.process_id == 0)
      it->second.process_id = stream.process_id;
  }
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    auto it = devices.find(trace.streams[block.stream[i]].device_id);
    if (it == devices.end()) return;
    DeviceActivity& device = it->second;
    // The GPU is busy whoever's work runs: in a work window (an NVTX range's work) other ops
    // still fill the timeline, so idle time, gaps and hiding compute count every op in the
    // window's span; what a rule charges (communication, copies) is the range's work only.
    if (!OpCountsInWindow(block.start_ns[i], block.end_ns[i], device.window)) return;
    const bool work = OpCountsInWindow(trace, block, i, device.window);
    const int64_t start = std::max(block.start_ns[i], device.window.start_ns);
    const int64_t end = std::min(block.end_ns[i], device.window.end_ns);
    if (end <= start) return;
    if (!device.gaps.empty() && start == device.gaps.back().end_ns) {
      device.gaps.back().also_next.emplace_back(&block, i);
    }
    if (!device.any.empty() && start > device.any.back().second &&
        start - device.any.back().second > gap_min_ns) {
      device.gaps.push_back(IdleGap{device.any.back().second, start, &block, i, {}});
    }
    Extend(device.any, start, end);
    const Engine engine = block.engine[i];
    if (IsComputeEngine(engine)) Extend(device.compute, start, end);
    if (work && engine == Engine::kComm) Extend(device.comm, start, end);
    if (work && IsCopyEngine(engine)) Extend(device.copies, start, end);
  });
  std::vector<DeviceActivity> out;
  for (auto& [id, device] : devices) {
    if (!device.any.empty()) out.push_back(std::move(device));
  }
  return out;
}

}  // namespace gpuroof
