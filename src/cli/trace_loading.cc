#include "trace_loading.h"

#include <fmt/format.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof {

Trace LoadTrace(const std::string& path, const ReadOptions& read_options,
                const OutputOptions& output) {
  Trace trace = ReadTrace(path, read_options);
  CheckDiagnostics(path, trace.diagnostics, output);
  return trace;
}

void CheckDiagnostics(const std::string& path, const Diagnostics& diagnostics,
                      const OutputOptions& output) {
  if (diagnostics.records_skipped() > 0 && !output.quiet) {
    fmt::print(MessageStream(), "gpuroof: warning: {}: {}\n", path, diagnostics.Summary());
  }
  // What a reader kept but had to read in a way worth knowing (whole-graph launches, batched
  // copies, zero-length ops): JSON and HTML carry these too, text and CSV only here.
  if (!output.quiet) {
    for (const std::string& note : diagnostics.notes())
      fmt::print(MessageStream(), "gpuroof: note: {}: {}\n", path, note);
  }
  if (output.strict && diagnostics.has_data_loss()) {
    throw CheckFailed(fmt::format("{}: --strict: {} record(s) could not be used ({})", path,
                                  diagnostics.records_skipped(), diagnostics.Summary()));
  }
}

}  // namespace gpuroof
