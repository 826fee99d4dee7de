#include "record_command.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/process/process_runner.h"
#include "gpuroof/recorder/record_session.h"
#include "gpuroof/recorder/recorder_launch.h"

#include "command_help.h"
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

int RunRecord(const RecordOptions& options) {
  if (options.command.empty()) {
    throw InputError("record",
                     "no command given; usage: gpuroof record [-o trace.sqlite] "
                     "[--nvtx] -- COMMAND ARGS...");
  }
  recorder::RecordSessionRequest request;
  request.output = options.output;
  request.command = options.command;
  request.nvtx = options.nvtx;
  CheckOutput(request.output);
  request.library = recorder::RequireRecorder("record");
  const std::filesystem::path folder =
      request.output.has_parent_path() ? request.output.parent_path() : fs::path(".");
  recorder::RemoveStaleRecordScratch(
      folder, [](const std::string& line) { fmt::print(stderr, "gpuroof record: {}\n", line); });
  // SIGTERM and SIGHUP sent to gpuroof alone are forwarded to the command (which stays in our
  // process group, so Ctrl-C reaches it); the run then stops with nothing kept (see
  // TerminationScope).
  TerminationScope termination;
  PosixProcessRunner runner;
  recorder::RecordSessionResult result;
  try {
    result = recorder::RunRecordSession(request, runner);
  } catch (const Interrupted& stop) {
    fmt::print(stderr,
               "gpuroof: error: record: {}: the command was stopped; nothing was recorded, {} "
               "was not written\n",
               stop.what(), request.output.string());
    return 128 + stop.signal_number();
  }
  for (const std::string& line : result.messages)
    fmt::print(stderr, "gpuroof record: {}\n", line);
  if (result.traces_kept == 0 && result.traces_lost > 0) {
    fmt::print(stderr,
               "gpuroof: error: record: no trace recorded: {} process(es) started recording but "
               "never finished (killed or _exit); {} was not written\n",
               result.traces_lost, request.output.string());
    return result.command_exit_code != 0 ? result.command_exit_code : kExitBadInput;
  }
  if (result.traces_kept == 0) {
    fmt::print(stderr,
               "gpuroof: error: record: no trace recorded (did {} use CUDA?); {} was not "
               "written\n",
               options.command[0], request.output.string());
    return result.command_exit_code != 0 ? result.command_exit_code : kExitBadInput;
  }
  return result.command_exit_code;
}

}  // namespace

void AddRecordCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* command = AddCommand(app, "record");
  command->add_option("-o,--output", options->output, "Trace file to write (nsys-schema SQLite)")
      ->capture_default_str();
  command->add_flag("--nvtx", options->nvtx, "Also record NVTX ranges and marks");
  command->add_option("command", options->command, "The program and its arguments, after --");
  command->callback([options, &exit_code]() { exit_code = RunRecord(*options); });
}

}  // namespace gpuroof
