#pragma once

#include <filesystem>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// How much of each op to read. Engine-load analyses (analyze) need only when, where and what
// engine; reading nothing else keeps the scan at the cost of the SQLite floor.
enum class ReadDetail {
  kFull,        // everything: process, context, correlation, kernel shape, memory kinds
  kEngineLoad,  // start, end, device, stream, engine, bytes, kernel short name; no correlation
                // column, and signatures hold only the engine and the kernel name
  kBreakdown,   // what `report`'s tables need: kEngineLoad plus memory kinds and peer devices
                // (copy classes), and, only when the file has NVTX ranges to attribute work to,
                // process, context, correlation and the API calls; no kernel shapes or demangled
                // names (Kineto traces are read as with kFull)
};

struct NsysReadOptions {
  ReadDetail detail = ReadDetail::kFull;
  // Reader threads; 0 = one per hardware thread (at most 8). Each opens its own connection.
  int threads = 0;
  // Tables are split into rowid ranges of this many rows, read in parallel (one block each);
  // 0 = automatic (about three chunks per thread, at least 65536 rows each). A table is never cut
  // into more than 64 chunks, whatever its rowid span.
  int64_t rows_per_chunk = 0;
  // With kFull: read CUPTI_ACTIVITY_KIND_RUNTIME into Trace::api_calls.
  bool api_calls = true;
  // With api_calls: also the calls without a correlation id (they launched nothing).
  bool all_api_calls = false;
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
