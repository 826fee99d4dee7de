#include "gpuroof/recorder/record_session.h"

#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

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
  std::vector<std::string> siblings;
  int64_t finish_ns = 0;
  pid_t output_pid = 0;
  for (const RecordedTrace& trace : CollectRecordedTraces(scratch.path(), child.pid)) {
    if (trace.lost) {
      ++result.traces_lost;
      warnings.push_back(fmt::format("warning: process {} {}", trace.pid, kLostTraceText));
      continue;
    }
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
    if (kept.empty()) {
      finish_ns = trace.status.finish_ns;
      output_pid = trace.pid;
    } else {
      siblings.push_back(fmt::format("process {} to {}", trace.pid, target.string()));
    }
    kept.push_back(fmt::format("{} records written to {} ({} dropped)", trace.status.records,
                               target.string(), trace.status.dropped));
    const RecorderStatus& status = trace.status;
    if (status.records == 0) {
      warnings.push_back(fmt::format(
          "warning: the trace of process {} ({}) has 0 records: it ran no GPU work that was "
          "recorded",
          trace.pid, target.string()));
    }
    if (status.dropped > 0) {
      warnings.push_back(fmt::format(
          "warning: {} records were DROPPED in process {}; the trace undercounts GPU work",
          status.dropped, trace.pid));
    }
    if (status.failed_buffer_requests > 0) {
      warnings.push_back(fmt::format(
          "warning: the recorder in process {} had no free buffer for CUPTI {} times (the "
          "records lost that way are among the dropped ones)",
          trace.pid, status.failed_buffer_requests));
    }
    if (status.zero_timestamps > 0) {
      warnings.push_back(fmt::format(
          "warning: {} records in process {} had no timestamps (still on the GPU at exit, or the "
          "device buffer was too small) and were left out; the trace undercounts GPU work",
          status.zero_timestamps, trace.pid));
    }
    for (const std::string& kind : status.unrecorded) {
      warnings.push_back(fmt::format(
          "warning: process {} recorded no {} records; the rest was recorded", trace.pid, kind));
    }
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
