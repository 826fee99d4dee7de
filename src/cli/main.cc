// gpuroof: which GPU engine binds your pipeline. This file only wires the subcommands and is the
// one place where errors become messages and exit codes.
#include <exception>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/model/errors.h"

#include "analyze_command.h"
#include "exit_codes.h"

namespace {

int Run(int argc, char** argv) {
  CLI::App app{
      "gpuroof: which GPU engine binds your pipeline, by how much, and whether a change "
      "made it worse"};
  app.set_version_flag("--version", std::string("gpuroof ") + GPUROOF_VERSION);
  app.require_subcommand(1);
  int exit_code = gpuroof::kExitOk;
  // Every subcommand, in one place.
  gpuroof::AddAnalyzeCommand(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    fmt::print(stderr, "gpuroof: error: {}\n", e.what());
    fmt::print(stderr, "Run 'gpuroof --help' or 'gpuroof <command> --help' for usage.\n");
    return gpuroof::kExitBadInput;
  }
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const gpuroof::InputError& e) {
    fmt::print(stderr, "gpuroof: error: {}\n", e.what());
    return gpuroof::kExitBadInput;
  } catch (const gpuroof::CheckFailed& e) {
    fmt::print(stderr, "gpuroof: error: {}\n", e.what());
    return gpuroof::kExitCheckFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "gpuroof: internal error: {}\n", e.what());
    return gpuroof::kExitInternalError;
  }
}
