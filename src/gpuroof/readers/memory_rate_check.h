// A plausibility check on the copies and memsets a trace records: none can move bytes faster
// than the device's memory bandwidth, so one that seems to has times that do not cover its work.
#pragma once

#include "gpuroof/model/trace.h"

namespace gpuroof {

// Notes (trace.diagnostics), per device whose peak memory bandwidth the trace gives
// (DeviceInfo::memory_bandwidth_bytes_per_s), the copies and memsets touching device memory
// whose bytes / duration exceed it: their GB/s are not transfer rates (docs/metrics.md,
// "Copies"). Zero-duration ops are not checked (they have no rate).
void NoteOpsFasterThanMemory(Trace& trace);

}  // namespace gpuroof
