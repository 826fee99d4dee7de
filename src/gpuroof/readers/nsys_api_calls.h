// CUDA runtime and driver calls of an nsys export (CUPTI_ACTIVITY_KIND_RUNTIME), for attributing
// GPU work to the NVTX ranges open on the launching thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "gpuroof/model/diagnostics.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct NsysApiCalls {
  // Calls with a correlation id, sorted by (process_id, correlation). `name` holds the file's
  // StringIds id (nameId) until the caller interns it; kNoName when the row has none.
  std::vector<ApiCall> calls;
  Diagnostics diagnostics;
};

inline constexpr uint32_t kNoApiCallName = 0xFFFFFFFFu;

// Reads CUPTI_ACTIVITY_KIND_RUNTIME of `path` (which must have it). Rows without a correlation id
// are not GPU launches and are read only with `all_calls` (correlation 0 then); rows with null
// times are skipped and counted.
NsysApiCalls ReadNsysApiCalls(const std::filesystem::path& path, bool all_calls = false);

}  // namespace gpuroof
