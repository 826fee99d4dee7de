#include "cli_commands.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <stdlib.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/non_copyable.h"

#include "api_command.h"
#include "compare_command.h"
#include "file_arguments.h"
#include "findings_command.h"
#include "launches_command.h"
#include "output_options.h"
#include "ranks_command.h"
#include "report_command.h"

namespace gpuroof::python {

namespace {

// A private folder for one run's text output, removed with what is in it.
class PrivateFolder : NonCopyable {
 public:
  PrivateFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpuroof-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot create a temporary folder for the command's output");
    path_ = pattern;
  }
  ~PrivateFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string ReadIfThere(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return in ? text.str() : std::string();
}

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
  // The same checks as the CLI's: an output over an input trace, a trace given twice.
  InstallFileArgumentChecks(app);
  // What the command would print on stdout goes to a private file (-o): nothing the process
  // shares (its stdout, its file descriptors) is touched, so runs in several threads are apart.
  std::optional<PrivateFolder> folder;
  std::vector<std::string> full = args;
  if (capture_stdout && !full.empty()) {
    folder.emplace();
    full.insert(full.begin() + 1, {"-o", (folder->path() / "stdout.txt").string()});
  }
  std::vector<std::string> reversed(full.rbegin(), full.rend());  // CLI11 parses from the back
  CommandRun run;
  JsonDoublesMarked marked;  // this thread's JSON files mark their doubles (floats in Python)
  // The command's notes and warnings, kept for the caller (each becomes one Python warning)
  // rather than printed; on an error they reach stderr as the CLI's would.
  MessageCapture messages;
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw InputError("", e.what());
  }
  run.messages = messages.Take();
  if (folder) run.stdout_text = ReadIfThere(folder->path() / "stdout.txt");
  run.exit_code = exit_code;
  return run;
}

}  // namespace gpuroof::python
