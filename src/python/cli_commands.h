#pragma once

#include <string>
#include <vector>

namespace gpuroof::python {

// What running a CLI command in-process gave: its exit code (src/cli/exit_codes.h) and what it
// wrote on stdout.
struct CommandRun {
  int exit_code = 0;
  std::string stdout_text;
};

// Runs `gpuroof compare`, `report`, `api`, `launches`, `findings` or `ranks` in this process with
// `args` (the command name first), through the CLI's own command code, so gpuroof.compare(),
// report(), api(), launches(), findings() and ranks() can never disagree with the CLI. Its stdout
// is captured; stderr (notes, warnings) passes through. JSON files it writes mark their doubles
// (JsonDoublesMarked): the same values, typed for Python. Throws InputError for bad arguments or
// input, CheckFailed under --strict, as the CLI's main() would report them; runs without the GIL.
CommandRun RunCliCommand(const std::vector<std::string>& args);

}  // namespace gpuroof::python
