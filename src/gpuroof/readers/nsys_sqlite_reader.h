#pragma once

#include <filesystem>

#include "gpuroof/model/trace.h"

namespace gpuroof {

struct NsysReadOptions {
  // Reader threads; 0 = one per hardware thread (at most 8). Each opens its own connection.
  int threads = 0;
  // A table larger than this is split into rowid ranges read in parallel (one block each).
  int64_t rows_per_chunk = 2'000'000;
};

// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`, nsys 2020.3 - 2026.x)
// into a Trace: kernels, memcpys, memsets and graph launches as activities, NVTX ranges, the
// devices, and diagnostics counting every row that could not be used and why.
// Throws InputError when the file is missing, not SQLite, not an nsys export (nvprof exports are
// named as such), truncated or corrupt, or lacks a column the analyses need.
Trace ReadNsysSqlite(const std::filesystem::path& path, const NsysReadOptions& options = {});

}  // namespace gpuroof
