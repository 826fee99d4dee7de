#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/reader_registry.h"

#include "output_options.h"

namespace gpuroof {

// Reads a trace for a command: prints the diagnostics summary on stderr when records were
// skipped (unless --quiet) and throws CheckFailed under --strict when any was lost.
Trace LoadTrace(const std::string& path, const ReadOptions& read_options,
                const OutputOptions& output);

// LoadTrace's second half, for a trace read elsewhere (in parallel with others): the summary on
// stderr, CheckFailed under --strict.
void CheckDiagnostics(const std::string& path, const Diagnostics& diagnostics,
                      const OutputOptions& output);

// Refuses, before any trace is read, a path that is missing, a directory, not a regular file or
// cannot be opened: a typo in the last of several traces must not cost reading the others first.
// Throws InputError naming the first such path, with ReadTrace's words for the problem.
void CheckTraceFiles(const std::vector<std::string>& paths);

// Says on stderr (unless --quiet) that `trace` has GPU ops but not one kernel, with the op count
// and the kernel launch calls it does have: a capture without kernel tracing, or an export that
// lost its kernel table, reads like a copy-only trace. `consequence` says what that means for the
// command's figures. Nothing when the trace has a kernel or no GPU op.
void NoteWhenNoKernels(const Trace& trace, const std::string& path, const OutputOptions& output,
                       std::string_view consequence);

// Reads the traces one after another and calls `analyse(trace, path)` on each as it is read. The
// traces are returned, kept alive, since the reports analyses make point into them.
template <typename Analyse>
std::vector<std::unique_ptr<Trace>> LoadEachTrace(const std::vector<std::string>& paths,
                                                  const ReadOptions& read_options,
                                                  const OutputOptions& output, Analyse analyse) {
  CheckTraceFiles(paths);
  std::vector<std::unique_ptr<Trace>> traces;
  for (const std::string& path : paths) {
    traces.push_back(std::make_unique<Trace>(LoadTrace(path, read_options, output)));
    analyse(*traces.back(), path);
  }
  return traces;
}

// The window note of each device (anything with device_id and window.note) on stderr, as
// "PATH: device N: NOTE", unless --quiet.
template <typename Devices>
void PrintWindowNotes(const OutputOptions& output, const std::string& path,
                      const Devices& devices) {
  for (const auto& device : devices)
    PrintNote(output, path, fmt::format("device {}", device.device_id), device.window.note);
}

}  // namespace gpuroof
