// Reader of PyTorch profiler (Kineto) traces: Chrome Trace Event Format JSON, plain or gzipped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/gzip_input.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {

// api_calls: the cuda_runtime/cuda_driver calls that launched GPU work (Trace::api_calls);
// all_api_calls: every such call.
struct KinetoReadOptions : ReadScope {
  // Bytes read (and parsed by simdjson) per step. Memory is about 6x this plus the trace; 1 MiB
  // was as fast as 4 MiB and 6 MB smaller (docs/performance.md, Kineto).
  size_t chunk_bytes = size_t{1} << 20;
  // The largest single event or top-level value accepted; a longer one is an error (a corrupt
  // file, e.g. an unterminated string) rather than a reason to buffer gigabytes.
  size_t max_value_bytes = size_t{64} << 20;
  // How far a .json.gz may inflate (gzip_input.h).
  InflateLimits inflate;
};

// True when `head` (the first bytes of a file, after gzip inflation if any) looks like JSON: a
// '{' or '[' after optional whitespace and a UTF-8 byte-order mark.
bool LooksLikeJson(std::string_view head);

// Whether the file (inflated first when it is gzip) starts like JSON: the registry's test, by
// content rather than by name. Leading whitespace is skipped up to kMaxLeadingSpaceBytes. Throws
// InputError when the file cannot be opened or inflated, and when it holds only whitespace.
bool IsKinetoJsonFile(const std::filesystem::path& path);
inline constexpr uint64_t kMaxLeadingSpaceBytes = uint64_t{64} << 20;

// Reads a Kineto trace (`*.pt.trace.json`, `.json.gz`; object form with traceEvents, or a bare
// event array) into a Trace: GPU kernels, copies and memsets as activities, user annotations
// (ProfilerStep#N, record_function) as NVTX ranges, the CUDA calls that launched each op, the
// devices, and diagnostics counting every event that could not be used. The file is streamed:
// memory does not grow with the CPU-side events. Throws InputError naming the file and the byte
// offset when it is not JSON, truncated, not a trace, or an event exceeds max_value_bytes.
Trace ReadKinetoJson(const std::filesystem::path& path, const KinetoReadOptions& options = {});

// The same on JSON text in memory (tests); `source` names it in messages.
Trace ReadKinetoJsonText(std::string_view json, const std::string& source,
                         const KinetoReadOptions& options = {});

}  // namespace gpuroof
