#include "record_command.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/process/process_runner.h"
#include "gpuroof/recorder/recorder_launch.h"

#include "exit_codes.h"

namespace gpuroof {
namespace {

namespace fs = std::filesystem;

struct RecordOptions {
  std::string output = "trace.sqlite";
  bool nvtx = false;
  std::vector<std::string> command;
};

// Refuses an output the run could not end in, before anything runs.
void CheckOutput(const fs::path& output) {
  const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
  if (!fs::is_directory(folder)) {
    throw InputError(output.string(), "the output folder " + folder.string() + " does not exist");
  }
  if (fs::is_directory(output)) throw InputError(output.string(), "is a folder");
  if (access(folder.c_str(), W_OK) != 0) {
    throw InputError(output.string(), "the output folder " + folder.string() + " is not writable");
  }
}

// Runs the command with exec (no shell), our stdio, and `extra` added to the environment.
// Ctrl-C goes to the command; we wait for it and still clean up, as system() does.
ProcessResult RunCommand(const std::vector<std::string>& command,
                         const std::vector<std::pair<std::string, std::string>>& extra) {
  ProcessRequest request;
  request.argv = command;
  request.env = extra;
  request.stdout_to = ChildOutput::kInherit;
  request.stderr_to = ChildOutput::kInherit;
  request.inherit_stdin = true;
  request.child_takes_interrupts = true;
  ProcessResult result = PosixProcessRunner().Run(request);
  if (result.pid == 0) {
    // result.err is "cannot start PROGRAM: REASON": the reason is what is left to say.
    const size_t colon = result.err.rfind(": ");
    throw InputError(
        command[0],
        "cannot run: " + (colon == std::string::npos ? result.err : result.err.substr(colon + 2)));
  }
  return result;
}

int RunRecord(const RecordOptions& options) {
  if (options.command.empty()) {
    throw InputError("record",
                     "no command given; usage: gpuroof record [-o trace.sqlite] "
                     "[--nvtx] -- COMMAND ARGS...");
  }
  const fs::path output = options.output;
  CheckOutput(output);
  const fs::path library = recorder::RequireRecorder("record");

  recorder::RecordScratch scratch(output);
  const ProcessResult child =
      RunCommand(options.command,
                 recorder::RecorderEnvironment(library, scratch.OutputPattern(), options.nvtx));
  const std::vector<recorder::RecordedTrace> traces =
      recorder::CollectRecordedTraces(scratch.path(), child.pid);

  int64_t finish_ns = 0;
  std::vector<std::string> kept;
  for (const recorder::RecordedTrace& trace : traces) {
    if (trace.file.empty()) {
      fmt::print(stderr, "gpuroof record: the recorder in process {} wrote no trace: {}\n",
                 trace.pid, trace.status.error.empty() ? "no status" : trace.status.error);
      continue;
    }
    const fs::path target = kept.empty() ? output : recorder::SiblingTracePath(output, trace.pid);
    std::error_code error;
    fs::rename(trace.file, target, error);
    if (error) {
      throw InputError(target.string(), "cannot move the trace into place: " + error.message());
    }
    if (kept.empty()) finish_ns = trace.status.finish_ns;
    kept.push_back(fmt::format("{} records written to {} ({} dropped)", trace.status.records,
                               target.string(), trace.status.dropped));
    if (trace.status.dropped > 0) {
      fmt::print(stderr,
                 "gpuroof record: warning: {} records were DROPPED in process {}; the trace "
                 "undercounts GPU work\n",
                 trace.status.dropped, trace.pid);
    }
  }
  fmt::print(stderr, "gpuroof record: {} exited with code {} after {:.3f} s wall time",
             options.command[0], child.exit_code, static_cast<double>(child.wall_ns) * 1e-9);
  if (finish_ns > 0) {
    fmt::print(stderr, " ({:.3f} s of it writing the trace at exit)",
               static_cast<double>(finish_ns) * 1e-9);
  }
  fmt::print(stderr, "\n");
  for (const std::string& line : kept)
    fmt::print(stderr, "gpuroof record: {}\n", line);
  if (kept.empty()) {
    fmt::print(stderr,
               "gpuroof: error: record: no trace recorded (did {} use CUDA?); {} was not "
               "written\n",
               options.command[0], output.string());
    return child.exit_code != 0 ? child.exit_code : kExitBadInput;
  }
  return child.exit_code;
}

}  // namespace

void AddRecordCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* command = app.add_subcommand(
      "record", "Run a CUDA program with gpuroof's low-overhead CUPTI recorder; write a trace");
  command->footer(
      "Examples:\n"
      "  gpuroof record -o run.sqlite -- ./pipeline --frames 2000\n"
      "  gpuroof record --nvtx -o train.sqlite -- python train.py\n"
      "  gpuroof analyze run.sqlite\n"
      "Records kernels, copies and memsets (and NVTX ranges with --nvtx) from the GPU side only,\n"
      "without API tracing. Needs an NVIDIA GPU and driver; cannot run under nsys or ncu.\n"
      "The exit code is the command's. See docs/cli.md.");
  command->add_option("-o,--output", options->output, "Trace file to write (nsys-schema SQLite)")
      ->capture_default_str();
  command->add_flag("--nvtx", options->nvtx, "Also record NVTX ranges and marks");
  command->add_option("command", options->command, "The program and its arguments, after --");
  command->callback([options, &exit_code]() { exit_code = RunRecord(*options); });
}

}  // namespace gpuroof
