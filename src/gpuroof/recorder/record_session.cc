#include "gpuroof/recorder/record_session.h"

#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/recorder/recorder_launch.h"
#include "gpuroof/recorder/recorder_warnings.h"

namespace gpuroof::recorder {

namespace fs = std::filesystem;

namespace {

ProcessResult RunCommand(const RecordSessionRequest& request, const RecordScratch& scratch,
                         ProcessRunner& runner) {
  ProcessRequest process;
  process.argv = request.command;
  process.env = RecorderEnvironment(request.library, scratch.OutputPattern(), request.nvtx);
  process.stdout_to = ChildOutput::kInherit;
  process.stderr_to = ChildOutput::kInherit;
  process.inherit_stdin = true;
  process.child_takes_interrupts = true;
  ProcessResult result = runner.Run(process);
  // Stopped by SIGTERM or SIGHUP (a TerminationScope): nothing is kept, the scratch folder goes.
  ThrowIfTerminated();
  if (result.pid == 0) {
    // result.err is "cannot start PROGRAM: REASON": the reason is what is left to say.
    const size_t colon = result.err.rfind(": ");
    throw InputError(
        request.command[0],
        "cannot run: " + (colon == std::string::npos ? result.err : result.err.substr(colon + 2)));
  }
  return result;
}

}  // namespace

RecordSessionResult RunRecordSession(const RecordSessionRequest& request, ProcessRunner& runner) {
  RecordScratch scratch(request.output);
  const ProcessResult child = RunCommand(request, scratch, runner);
  RecordSessionResult result;
  result.command_exit_code = child.exit_code;
  std::vector<std::string> kept;
  std::vector<std::string> warnings;
  std::vector<std::string> siblings;
  int64_t finish_ns = 0;
  pid_t output_pid = 0;
  for (const RecordedTrace& trace : CollectRecordedTraces(scratch.path(), child.pid)) {
    if (trace.lost) ++result.traces_lost;
    if (trace.file.empty()) {
      // A process killed while recording is a warning; what a recorder said is its own line.
      warnings.push_back((trace.lost ? "warning: " : "") + MissingTraceText(trace));
      continue;
    }
    const fs::path target =
        kept.empty() ? request.output : SiblingTracePath(request.output, trace.pid);
    std::error_code error;
    fs::rename(trace.file, target, error);
    if (error) {
      throw InputError(target.string(), "cannot move the trace into place: " + error.message());
    }
    if (kept.empty()) {
      finish_ns = trace.status.finish_ns;
      output_pid = trace.pid;
    } else {
      siblings.push_back(fmt::format("process {} to {}", trace.pid, target.string()));
    }
    kept.push_back(fmt::format("{} records written to {} ({} dropped)", trace.status.records,
                               target.string(), trace.status.dropped));
    for (const std::string& warning : RecordedTraceWarnings(trace, target))
      warnings.push_back("warning: " + warning);
  }
  if (!siblings.empty()) {
    warnings.push_back(fmt::format(
        "{} is the trace of process {}, the one with the most records; the other processes' "
        "traces went beside it: {}",
        request.output.string(), output_pid, fmt::join(siblings, ", ")));
  }
  std::string exit_line =
      fmt::format("{} exited with code {} after {:.3f} s wall time", request.command[0],
                  child.exit_code, static_cast<double>(child.wall_ns) * 1e-9);
  if (finish_ns > 0) {
    exit_line += fmt::format(" ({:.3f} s of it writing the trace at exit)",
                             static_cast<double>(finish_ns) * 1e-9);
  }
  result.messages = warnings;
  result.messages.push_back(exit_line);
  result.messages.insert(result.messages.end(), kept.begin(), kept.end());
  result.traces_kept = static_cast<int>(kept.size());
  return result;
}

}  // namespace gpuroof::recorder
