#pragma once

#include <filesystem>
#include <string>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {

class ProcessLauncher;

struct ReadOptions {
  int threads = 0;  // 0 = automatic
  ReadDetail detail = ReadDetail::kFull;
  ProcessLauncher* launcher = nullptr;  // for `.nsys-rep` exports; nullptr = spawn processes
};

// Reads any supported trace file, choosing the reader from the file's content (an `.nsys-rep`
// is exported to SQLite first). Throws InputError naming the file when it cannot be read.
Trace ReadTrace(const std::filesystem::path& path, const ReadOptions& options = {});

// The formats ReadTrace() accepts, for help texts.
std::string SupportedFormats();

}  // namespace gpuroof
