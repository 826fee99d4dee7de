// What `gpuroof record` and the sweep profiler "record" say about what each CUDA process's
// recorder left, so the two say the same things.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gpuroof/recorder/recorder_launch.h"

namespace gpuroof::recorder {

// Why process `trace.pid` left no trace (`trace.file` is empty), one sentence: it was killed
// while recording ("process N started recording but never finished ...: its trace is lost"), or
// what its recorder said ("the recorder in process N wrote no trace: ...").
std::string MissingTraceText(const RecordedTrace& trace);

// What makes a written trace (now at `target`) less than the whole truth, one sentence each,
// without a "warning: " prefix: 0 records, records DROPPED, no free buffer for CUPTI, records
// without timestamps, optional kinds not recorded. Empty when the trace is whole.
std::vector<std::string> RecordedTraceWarnings(const RecordedTrace& trace,
                                               const std::filesystem::path& target);

}  // namespace gpuroof::recorder
