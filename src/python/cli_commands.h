#pragma once

#include <string>
#include <vector>

namespace gpuroof::python {

// What running a CLI command in-process gave: its exit code (src/cli/exit_codes.h) and, when
// asked for, what it printed on stdout.
struct CommandRun {
  int exit_code = 0;
  std::string stdout_text;
  std::string messages;  // what it would have printed on stderr (notes, warnings), one a line
};

// Runs `gpuroof compare`, `report`, `api`, `launches`, `findings` or `ranks` in this process with
// `args` (the command name first), through the CLI's own command code and its file checks
// (InstallFileArgumentChecks), so gpuroof.compare(), report(), api(), launches(), findings() and
// ranks() can never disagree with the CLI. Callers have the command write its result to files of
// their own (-o, --json, --markdown), which touches nothing shared, so any number of runs go on at
// once in different threads. With `capture_stdout`, what the command would print on stdout
// (compare's verdict table) is written to a private temporary file (-o) and returned: the
// process's stdout and file descriptors are never touched. What it would print on stderr
// (notes, warnings) is returned in `messages` instead (MessageCapture), and reaches stderr only
// when the command throws. JSON files it writes mark their doubles (JsonDoublesMarked): the same
// values, typed for Python. Throws InputError for bad arguments or input, CheckFailed under
// --strict, as the CLI's main() would report them; runs without the GIL.
CommandRun RunCliCommand(const std::vector<std::string>& args, bool capture_stdout);

}  // namespace gpuroof::python
