#include "gpuroof/analyses/findings/device_activity.h"

#include <algorithm>
#include <map>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/ordered_scan.h"

namespace gpuroof {

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

// Busy time only: a zero-length op adds no segment.
void Extend(Segments& segments, int64_t start, int64_t end) {
  if (end > start) AppendMerged(segments, start, end);
}

}  // namespace

std::vector<DeviceActivity> BuildDeviceActivity(const Trace& trace, const WindowSpec& spec,
                                                const std::vector<DeviceLoad>* engine_load,
                                                int64_t gap_min_ns,
                                                std::vector<std::pair<int32_t, Window>>* windows) {
  std::vector<DeviceLoad> computed;
  std::map<int32_t, DeviceActivity> devices;
  for (const DeviceLoad& load : GivenOrComputedEngineLoad(trace, spec, engine_load, computed)) {
    DeviceActivity& device = devices[load.device_id];
    device.device_id = load.device_id;
    device.window = load.window;
    device.devices_left_out_note = load.devices_left_out_note;
    if (windows != nullptr) windows->emplace_back(load.device_id, load.window);
  }
  // Ops of each stream, window or not: how many ops each process launched onto the device, for
  // the choice of its process (DeviceCallsProcess), whatever order the streams were read in.
  std::vector<int64_t> ops_of_stream(trace.streams.size(), 0);
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    ++ops_of_stream[block.stream[i]];
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
    if (work && engine == Engine::kComm) {
      Extend(device.comm, start, end);
      device.comm_ops.push_back(OpSpan{start, end, &block, i});
    }
    if (work && IsCopyEngine(engine)) {
      Extend(device.copies, start, end);
      device.copy_ops.push_back(OpSpan{start, end, &block, i});
    }
  });
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    const StreamInfo& stream = trace.streams[s];
    auto it = devices.find(stream.device_id);
    if (it != devices.end())  // a stream without ops counts its process, as DeviceProcessSteps
      it->second.ops_of_process[stream.process_id] += ops_of_stream[s];
  }
  std::vector<DeviceActivity> out;
  for (auto& [id, device] : devices) {
    if (!device.any.empty()) out.push_back(std::move(device));
  }
  return out;
}

}  // namespace gpuroof
