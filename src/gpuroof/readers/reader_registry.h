#pragma once

#include <filesystem>
#include <string>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {

class ProcessRunner;

// What every reader is told (ReadScope), the nsys reader's own choices (NsysReadOptions:
// threads, the kernel table alone, memory kinds, demangled names; other formats read
// everything), and how an `.nsys-rep` is exported.
struct ReadOptions : NsysReadOptions {
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
