#include "gpuroof/analyses/device_slots.h"

namespace gpuroof {

DeviceSlots SlotDevicesOfStreams(const Trace& trace) {
  DeviceSlots slots;
  slots.slot_of_stream.resize(trace.streams.size());
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    auto [it, inserted] =
        slots.slot_of_device.try_emplace(trace.streams[s].device_id, slots.slot_of_device.size());
    slots.slot_of_stream[s] = it->second;
  }
  return slots;
}

}  // namespace gpuroof
