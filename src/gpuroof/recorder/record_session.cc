#include "gpuroof/recorder/record_session.h"

#include <system_error>

#include <fmt/format.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/recorder/recorder_launch.h"

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
  int64_t finish_ns = 0;
  for (const RecordedTrace& trace : CollectRecordedTraces(scratch.path(), child.pid)) {
    if (trace.file.empty()) {
      warnings.push_back(
          fmt::format("the recorder in process {} wrote no trace: {}", trace.pid,
                      trace.status.error.empty() ? "no status" : trace.status.error));
      continue;
    }
    const fs::path target =
        kept.empty() ? request.output : SiblingTracePath(request.output, trace.pid);
    std::error_code error;
    fs::rename(trace.file, target, error);
    if (error) {
      throw InputError(target.string(), "cannot move the trace into place: " + error.message());
    }
    if (kept.empty()) finish_ns = trace.status.finish_ns;
    kept.push_back(fmt::format("{} records written to {} ({} dropped)", trace.status.records,
                               target.string(), trace.status.dropped));
    if (trace.status.dropped > 0) {
      warnings.push_back(fmt::format(
          "warning: {} records were DROPPED in process {}; the trace undercounts GPU work",
          trace.status.dropped, trace.pid));
    }
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
