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

void CheckTraceFiles(const std::vector<std::string>& paths) {
  for (const std::string& path : paths)
    CheckTraceFile(path);
}

void NoteWhenNoKernels(const Trace& trace, const std::string& path, const OutputOptions& output,
                       std::string_view consequence) {
  if (output.quiet) return;
  size_t ops = 0;
  for (const ActivityBlock& block : trace.blocks) {
    for (Engine engine : block.engine) {
      if (engine == Engine::kKernel || engine == Engine::kComm || engine == Engine::kGraph) return;
    }
    ops += block.size();
  }
  if (ops == 0) return;
  size_t launches = 0;
  for (const ApiCall& call : trace.api_calls) {
    const std::string_view name = call.name == 0 ? "" : trace.strings.Get(call.name);
    if (name.find("Launch") != std::string_view::npos &&
        name.find("Kernel") != std::string_view::npos) {
      ++launches;
    }
  }
  fmt::print(MessageStream(),
             "gpuroof: note: {}: no kernel in the trace ({} GPU op(s), all copies or "
             "memsets{}): {}\n",
             path, ops,
             launches == 0
                 ? ""
                 : fmt::format("; {} kernel launch call(s) without a kernel record", launches),
             consequence);
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
