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

// Notes, per device (each has its own window), the GPU ops that lie far outside the rest of
// that device's ops: a group of at most 16 ops, fewer
// than the rest, that all end (or, at the other end, start) before the rest starts (ends), with
// a gap to the rest over 1000 times the span of the rest. One such op (a corrupt timestamp, a
// merge of two captures) stretches the window to the gap and every duty cycle to nothing.
// They are kept (they may be real work after a long pause: the note says what lies where, no
// verdict) and the note gives their count, the gap and the rest's span; --window limits the window.
// Both readers call it last.
void NoteFarOutlyingOps(Trace& trace);

}  // namespace gpuroof
