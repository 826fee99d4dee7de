#pragma once

#include <optional>

#include <pybind11/pybind11.h>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof::python {

// The trace's activities as NumPy columns, for Trace.ops() (docs/python.md): start_ns, end_ns
// (int64), device (int32), stream (uint32, as StreamInfo::stream_id: Kineto ids reach 2^32 - 1),
// engine (uint8 codes into "engine_categories"), bytes (uint64), name (int32 codes into
// "name_categories") and, with `correlation`, correlation (uint32; 0 where the trace has none).
// Rows are in the trace's block order (each block sorted by start). With one block and no engine
// filter the time, bytes, engine and correlation columns are views of the trace's own memory,
// kept alive by `owner` (the Python object holding the trace); the other columns are built here,
// with the GIL released.
pybind11::dict OpsColumns(const Trace& trace, std::optional<Engine> engine, bool correlation,
                          pybind11::handle owner);

}  // namespace gpuroof::python
