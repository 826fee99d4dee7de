#include "cli_commands.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <CLI/CLI.hpp>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/model/errors.h"

#include "api_command.h"
#include "compare_command.h"
#include "findings_command.h"
#include "launches_command.h"
#include "ranks_command.h"
#include "report_command.h"

namespace gpuroof::python {

namespace {

// Held by every run that captures stdout: `stdout` is one variable of the process.
std::mutex stdout_mutex;

// While it lives, C stdio's `stdout` (where the CLI's commands print) is a memory stream
// (open_memstream: no file descriptor, no file), and the capture mutex is held. glibc documents
// stdin, stdout and stderr as ordinary variables a program may assign. Restores `stdout` and
// frees the stream on every path, exceptions included.
class StdoutToMemory {
 public:
  StdoutToMemory() : lock_(stdout_mutex) {
    memory_ = open_memstream(&buffer_, &size_);
    if (memory_ == nullptr) throw std::runtime_error("cannot capture the command's output");
    saved_ = stdout;
    stdout = memory_;
  }
  StdoutToMemory(const StdoutToMemory&) = delete;
  StdoutToMemory& operator=(const StdoutToMemory&) = delete;
  ~StdoutToMemory() {
    Restore();
    std::fclose(memory_);
    std::free(buffer_);
  }

  // What was printed; `stdout` is the process's own again.
  std::string Finish() {
    Restore();
    if (std::fflush(memory_) != 0) throw std::runtime_error("cannot capture the command's output");
    return std::string(buffer_ == nullptr ? "" : buffer_, size_);
  }

 private:
  void Restore() {
    if (saved_ == nullptr) return;
    stdout = saved_;
    saved_ = nullptr;
  }

  std::lock_guard<std::mutex> lock_;
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* memory_ = nullptr;
  std::FILE* saved_ = nullptr;
};

}  // namespace

CommandRun RunCliCommand(const std::vector<std::string>& args, bool capture_stdout) {
  CLI::App app{"gpuroof"};
  app.require_subcommand(1);
  int exit_code = 0;
  AddCompareCommand(app, exit_code);
  AddReportCommand(app, exit_code);
  AddApiCommand(app, exit_code);
  AddLaunchesCommand(app, exit_code);
  AddFindingsCommand(app, exit_code);
  AddRanksCommand(app, exit_code);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
  CommandRun run;
  JsonDoublesMarked marked;  // this thread's JSON files mark their doubles (floats in Python)
  std::optional<StdoutToMemory> capture;
  if (capture_stdout) capture.emplace();
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw InputError("", e.what());
  }
  if (capture) run.stdout_text = capture->Finish();
  run.exit_code = exit_code;
  return run;
}

}  // namespace gpuroof::python
