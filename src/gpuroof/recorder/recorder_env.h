// What `gpuroof record` and the injected recorder tell each other: environment variables one
// way, a small status file the other. Plain C++, shared by both sides.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace gpuroof::recorder {

// Where to write; "%p" becomes the recording process's pid (every CUDA process of a command
// loads its own copy of the recorder). Default: gpuroof-record-%p.sqlite in the working folder.
inline constexpr char kOutputEnv[] = "GPUROOF_RECORD_OUTPUT";
// "1": also record NVTX ranges and marks (CUPTI marker records).
inline constexpr char kNvtxEnv[] = "GPUROOF_RECORD_NVTX";

struct RecorderConfig {
  std::string output;
  bool nvtx = false;
};

RecorderConfig ReadRecorderConfig(pid_t pid);
std::string ExpandOutputPattern(const std::string& pattern, pid_t pid);

// The status file written next to a trace when the recorder finishes (or fails): lines
// "records N", "dropped N", "failed_buffer_requests N", "zero_timestamps N",
// "unpaired_markers N", "finish_ns N" (the flush and write at exit), "unrecorded TEXT" (once per
// optional activity kind CUPTI would not enable, e.g. "MARKER: CUPTI_ERROR_NOT_COMPATIBLE"),
// "error TEXT".
std::filesystem::path StatusPath(const std::filesystem::path& trace);

struct RecorderStatus {
  int64_t records = 0;
  int64_t dropped = 0;                 // records CUPTI reported dropped
  int64_t failed_buffer_requests = 0;  // times we had no buffer to give CUPTI (not records)
  int64_t zero_timestamps = 0;
  int64_t unpaired_markers = 0;
  int64_t finish_ns = 0;
  std::vector<std::string> unrecorded;  // "KIND: reason" per optional kind left off
  std::string error;                    // empty: the trace was written
};

// Writes `status` (records and counts only when `status.error` is empty). Never throws: a
// status that cannot be written shows up as a missing status.
void WriteRecorderStatus(const std::filesystem::path& status_file, const RecorderStatus& status);

// Nothing when the file is missing (the process never initialised CUDA, or was killed).
std::optional<RecorderStatus> ReadRecorderStatus(const std::filesystem::path& status_file);

}  // namespace gpuroof::recorder
