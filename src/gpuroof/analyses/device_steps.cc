#include "gpuroof/analyses/device_steps.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/range_selection.h"

namespace gpuroof {

std::vector<const NvtxRange*> DeviceProcessSteps(const Trace& trace, int32_t device_id,
                                                 const std::vector<const NvtxRange*>& steps,
                                                 std::string* note) {
  note->clear();
  std::map<uint64_t, int64_t> ops_of_process;  // of the device's processes
  for (const StreamInfo& stream : trace.streams) {
    if (stream.device_id == device_id) ops_of_process.try_emplace(stream.process_id, 0);
  }
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const StreamInfo& stream = trace.streams[block.stream[i]];
      if (stream.device_id == device_id) ++ops_of_process[stream.process_id];
    }
  }
  std::map<uint64_t, size_t> steps_of_process;
  std::vector<const NvtxRange*> own;
  for (const NvtxRange* range : steps) {
    const bool drives =
        range->on_gpu ? range->device_id == device_id : ops_of_process.count(range->process_id) > 0;
    if (!drives) continue;
    own.push_back(range);
    if (!range->on_gpu) ++steps_of_process[range->process_id];
  }
  if (own.empty()) {
    // A guess, said: the steps may be another rank's, on its own clock offset.
    if (!steps.empty()) {
      *note = fmt::format(
          "none of them is of a process that launched onto device {} (the trace "
          "may not say which did): all are used",
          device_id);
    }
    return steps;
  }
  std::string other_devices_part;
  if (own.size() < steps.size()) {
    other_devices_part =
        fmt::format("{} of them left out: another process's, not the one driving device {}",
                    steps.size() - own.size(), device_id);
  }
  std::string shared_device_part;
  if (steps_of_process.size() > 1) {
    uint64_t driver = steps_of_process.begin()->first;
    for (const auto& [process, count] : steps_of_process) {
      if (ops_of_process[process] > ops_of_process[driver]) driver = process;
    }
    int64_t device_ops = 0;
    for (const auto& [process, count] : ops_of_process)
      device_ops += count;
    size_t dropped = 0;
    size_t tied = 0;
    for (const auto& [process, count] : steps_of_process) {
      if (process == driver) continue;
      dropped += count;
      if (ops_of_process[process] == ops_of_process[driver]) ++tied;
    }
    std::erase_if(
        own, [&](const NvtxRange* range) { return !range->on_gpu && range->process_id != driver; });
    shared_device_part = fmt::format(
        "{} of them left out: {} processes launched onto device {} and have steps; those of "
        "process {} are kept, which launched {} of its {} ops{}",
        dropped, steps_of_process.size(), device_id, driver, ops_of_process[driver], device_ops,
        tied > 0 ? " (as many as another: the lowest key taken)" : "");
  }
  if (!other_devices_part.empty() && !shared_device_part.empty()) {
    *note = other_devices_part + "; " + shared_device_part;
  } else {
    *note = other_devices_part + shared_device_part;
  }
  return own;
}

std::optional<int64_t> RangeNumber(std::string_view name) {
  if (NumberedFamily(name).empty()) return std::nullopt;
  const std::string_view digits = name.substr(name.rfind('#') + 1);
  int64_t number = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return number;
}

}  // namespace gpuroof
