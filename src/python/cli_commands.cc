#include "cli_commands.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <unistd.h>

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

// Sends the process's stdout (fd 1, where the CLI's commands write) to a temporary file while it
// lives, and gives back what was written.
class StdoutCapture {
 public:
  StdoutCapture() {
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_fd_ = dup(STDOUT_FILENO);
    if (file_ == nullptr || saved_fd_ < 0 || dup2(fileno(file_), STDOUT_FILENO) < 0) {
      throw std::runtime_error("cannot capture stdout");
    }
  }
  StdoutCapture(const StdoutCapture&) = delete;
  StdoutCapture& operator=(const StdoutCapture&) = delete;
  ~StdoutCapture() { Restore(); }

  std::string Finish() {
    Restore();
    std::string text;
    std::rewind(file_);
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0)
      text.append(buffer, n);
    return text;
  }

 private:
  void Restore() {
    if (saved_fd_ < 0) return;
    std::fflush(stdout);
    dup2(saved_fd_, STDOUT_FILENO);
    close(saved_fd_);
    saved_fd_ = -1;
  }

  std::FILE* file_ = nullptr;
  int saved_fd_ = -1;
};

}  // namespace

CommandRun RunCliCommand(const std::vector<std::string>& args) {
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
  JsonDoublesMarked marked;  // the --json file's doubles stay floats in Python
  StdoutCapture capture;
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    capture.Finish();
    throw InputError("", e.what());
  }
  run.stdout_text = capture.Finish();
  run.exit_code = exit_code;
  return run;
}

}  // namespace gpuroof::python
