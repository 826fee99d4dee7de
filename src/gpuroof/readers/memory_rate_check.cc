#include "gpuroof/readers/memory_rate_check.h"

#include <algorithm>
#include <array>
#include <map>
#include <string>

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

}  // namespace gpuroof
