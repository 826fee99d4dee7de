// gpuroof: which GPU engine binds your pipeline. This file only wires the subcommands and is the
// one place where errors become messages and exit codes.
#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/model/errors.h"

#include "analyze_command.h"
#include "api_command.h"
#include "bench_command.h"
#include "compare_command.h"
#include "copies_command.h"
#include "did_you_mean.h"
#include "exit_codes.h"
#include "file_arguments.h"
#include "findings_command.h"
#include "gaps_command.h"
#include "kernels_command.h"
#include "launches_command.h"
#include "ranges_command.h"
#include "rank_set_loading.h"
#include "ranks_command.h"
#include "record_command.h"
#include "report_command.h"
#include "sweep_command.h"
#ifdef GPUROOF_MPI
#include "ranks_mpi.h"
#endif

namespace {

// " (did you mean --window?)" for the first unknown "--option" close to one the command has.
std::string SuggestOption(CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  for (CLI::App* command : app.get_subcommands()) {
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& name : option->get_lnames())
        known.push_back("--" + name);
    }
  }
  for (int i = 2; i < argc; ++i) {
    std::string typed = argv[i];
    if (!typed.starts_with("--")) continue;
    typed = typed.substr(0, typed.find('='));
    // compare has no --format (another command's): its files are named by format.
    if (typed == "--format" && std::string_view(argv[1]) == "compare")
      return " (compare writes JSON with --json FILE and Markdown with --markdown FILE)";
    if (std::find(known.begin(), known.end(), typed) != known.end()) continue;
    std::string closest = gpuroof::ClosestSpelling(typed, known);
    if (!closest.empty()) return fmt::format(" (did you mean {}?)", closest);
  }
  return "";
}

// An error is one line, whatever a file name or a message holds: line breaks are shown as \n.
std::string OneLine(std::string_view message) {
  std::string line;
  for (char c : message) {
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else {
      line += c;
    }
  }
  return line;
}

// "gpuroof COMMAND" of the command being parsed, or "gpuroof".
std::string UsageCommand(CLI::App& app) {
  for (const CLI::App* command : app.get_subcommands())
    return "gpuroof " + command->get_name();
  return "gpuroof";
}

// Whether this process says usage and input errors (and --help, --version): all but the later
// processes of an mpirun, whose errors the first process says too.
bool SaysErrors() {
#ifdef GPUROOF_MPI
  return !gpuroof::IsLaterLaunchedProcess();
#else
  return true;
#endif
}

// A usage or input error's exit code. A later process of an mpirun ends with 0: the first one
// says the error and sets the job's code, and a later one ending non-zero first would have
// mpirun abort the job, possibly before the first one had said why.
int BadInputExit() {
  return SaysErrors() ? gpuroof::kExitBadInput : gpuroof::kExitOk;
}

int Run(int argc, char** argv, gpuroof::RankSetSpread* spread) {
  CLI::App app{
      "gpuroof: which GPU engine binds your pipeline, by how much, and whether a change "
      "made it worse"};
  app.name("gpuroof");  // the usage line names the tool, not the path it was run from
  app.set_version_flag("--version", std::string("gpuroof ") + GPUROOF_VERSION);
  app.require_subcommand(1);
  int exit_code = gpuroof::kExitOk;
  // Every subcommand, in one place.
  gpuroof::AddAnalyzeCommand(app, exit_code);
  gpuroof::AddApiCommand(app, exit_code);
  gpuroof::AddBenchCommand(app, exit_code);
  gpuroof::AddCompareCommand(app, exit_code);
  gpuroof::AddCopiesCommand(app, exit_code);
  gpuroof::AddFindingsCommand(app, exit_code);
  gpuroof::AddGapsCommand(app, exit_code);
  gpuroof::AddKernelsCommand(app, exit_code);
  gpuroof::AddLaunchesCommand(app, exit_code);
  gpuroof::AddRangesCommand(app, exit_code);
  gpuroof::AddRanksCommand(app, exit_code, spread);
  gpuroof::AddRecordCommand(app, exit_code);
  gpuroof::AddReportCommand(app, exit_code);
  gpuroof::AddSweepCommand(app, exit_code);
  // CLI11 would call an unknown command a missing one; name it instead.
  std::vector<CLI::App*> commands = app.get_subcommands({});
  bool known = std::any_of(commands.begin(), commands.end(), [&](const CLI::App* command) {
    return argc > 1 && command->get_name() == argv[1];
  });
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::string names;
    for (const CLI::App* command : commands) {
      if (!names.empty()) names += ", ";
      names += command->get_name();
    }
    if (SaysErrors()) {
      fmt::print(stderr, "gpuroof: error: unknown command '{}' (commands: {})\n", argv[1], names);
    }
    return BadInputExit();
  }
  // After every option is parsed and before the command runs: an output that cannot be written
  // or is an input, an input given twice.
  gpuroof::InstallFileArgumentChecks(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help, --version: said once per job, not once per process of an mpirun.
    if (e.get_exit_code() == 0) return SaysErrors() ? app.exit(e) : gpuroof::kExitOk;
    if (SaysErrors()) {
      // One line, as every error (docs/cli.md, "Exit codes"), with where the usage is.
      fmt::print(stderr, "gpuroof: error: {}{} (usage: {} --help)\n", OneLine(e.what()),
                 SuggestOption(app, argc, argv), UsageCommand(app));
    }
    return BadInputExit();
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  // Under mpirun, `ranks` spreads its traces over the processes (GPUROOF_MPI builds only). It
  // outlives the error messages below: MPI is finalised after them.
  std::unique_ptr<gpuroof::RankSetSpread> spread;
#ifdef GPUROOF_MPI
  spread = gpuroof::MpiRankSetSpreadFromEnvironment();
#endif
  try {
    return Run(argc, argv, spread.get());
  } catch (const gpuroof::InputError& e) {
    if (SaysErrors()) fmt::print(stderr, "gpuroof: error: {}\n", OneLine(e.what()));
    return BadInputExit();
  } catch (const gpuroof::CheckFailed& e) {
    fmt::print(stderr, "gpuroof: error: {}\n", OneLine(e.what()));
    return gpuroof::kExitCheckFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuroof: internal error: {}\n", OneLine(e.what()));
    return gpuroof::kExitInternalError;
  }
}
