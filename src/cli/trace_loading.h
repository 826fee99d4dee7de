#pragma once

#include <string>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/reader_registry.h"

#include "output_options.h"

namespace gpuroof {

// Reads a trace for a command: prints the diagnostics summary on stderr when records were
// skipped (unless --quiet) and throws CheckFailed under --strict when any was lost.
Trace LoadTrace(const std::string& path, const ReadOptions& read_options,
                const OutputOptions& output);

}  // namespace gpuroof
