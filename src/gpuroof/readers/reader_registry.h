#pragma once

#include <filesystem>
#include <string>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {

class ProcessRunner;

struct ReadOptions : ReadScope {
  int threads = 0;  // 0 = automatic
  // nsys exports: read the kernel table only (no copies, memsets, graph launches), for analyses
  // that look at kernels alone. The diagnostics say so. Other formats read everything.
  bool kernels_only = false;
  // nsys exports, with kFull: memory kinds and peer devices; demangled kernel names (see
  // NsysReadOptions). Other formats read everything.
  bool memory_kinds = true;
  bool demangled_names = true;
  ProcessRunner* runner = nullptr;  // for `.nsys-rep` exports; nullptr = spawn processes
};

// Reads any supported trace file, choosing the reader from the file's content (an `.nsys-rep`
// is exported to SQLite first). Throws InputError naming the file when it cannot be read.
Trace ReadTrace(const std::filesystem::path& path, const ReadOptions& options = {});

// Throws InputError naming `path` when it is missing, a directory, not a regular file or cannot
// be opened: the checks ReadTrace makes first, for a command that checks all its inputs before
// reading any.
void CheckTraceFile(const std::filesystem::path& path);

// The formats ReadTrace() accepts, for help texts.
std::string SupportedFormats();

// The file name extension of the trace format `path` holds, told by its content as ReadTrace
// tells it: ".sqlite" (an nsys export), ".json" or ".json.gz" (Kineto JSON); "" for anything
// else. Campaigns name the traces their commands write with it, so a file says what it is.
std::string TraceFileExtension(const std::filesystem::path& path);

}  // namespace gpuroof
