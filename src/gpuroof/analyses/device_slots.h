#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// The devices a trace's streams run on, numbered 0..n-1 (slots), and each stream's slot, so a
// per-op scan finds its device's accumulator by one index instead of a map lookup per op.
struct DeviceSlots {
  std::map<int32_t, size_t> slot_of_device;  // device id -> slot, ascending ids
  std::vector<size_t> slot_of_stream;        // Trace::streams index -> slot
  size_t size() const { return slot_of_device.size(); }
};

DeviceSlots SlotDevicesOfStreams(const Trace& trace);

}  // namespace gpuroof
