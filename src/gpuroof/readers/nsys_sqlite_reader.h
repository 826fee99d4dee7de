#pragma once

#include <filesystem>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/read_scope.h"

namespace gpuroof {

// api_calls (ReadScope): CUPTI_ACTIVITY_KIND_RUNTIME into Trace::api_calls; all_api_calls: also
// the calls without a correlation id (they launched nothing); launch_ends_only: Trace::launch_ends
// instead, made from the same calls.
struct NsysReadOptions : ReadScope {
  // Reader threads; 0 = one per hardware thread (at most 8). Each opens its own connection.
  int threads = 0;
  // Tables are split into rowid ranges of this many rows, read in parallel (one block each);
  // 0 = automatic (about three chunks per thread, at least 65536 rows each). A table is never cut
  // into more than 64 chunks, whatever its rowid span.
  int64_t rows_per_chunk = 0;
  // Read CUPTI_ACTIVITY_KIND_KERNEL only: the copy, memset and graph tables are left unread.
  bool kernels_only = false;
  // With kFull: read the memory kinds and peer devices of copies and memsets, and the demangled
  // kernel names. A reader that needs neither (compare, keyed by short name and launch shape)
  // turns them off, so those columns are not visited.
  bool memory_kinds = true;
  bool demangled_names = true;
};

// Reads an Nsight Systems SQLite export (`nsys export --type sqlite`, nsys 2020.3 - 2026.x)
// into a Trace: kernels, memcpys, memsets and graph launches as activities, NVTX ranges, the
// devices, and diagnostics counting every row that could not be used and why.
// Throws InputError when the file is missing, not SQLite, not an nsys export (nvprof exports are
// named as such), truncated or corrupt, or lacks a column the analyses need.
Trace ReadNsysSqlite(const std::filesystem::path& path, const NsysReadOptions& options = {});

}  // namespace gpuroof
