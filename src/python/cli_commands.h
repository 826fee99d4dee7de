#pragma once

#include <string>
#include <vector>

namespace gpuroof::python {

// What running a CLI command in-process gave: its exit code (src/cli/exit_codes.h) and, when
// asked for, what it printed on stdout.
struct CommandRun {
  int exit_code = 0;
  std::string stdout_text;
};

// Runs `gpuroof compare`, `report`, `api`, `launches`, `findings` or `ranks` in this process with
// `args` (the command name first), through the CLI's own command code, so gpuroof.compare(),
// report(), api(), launches(), findings() and ranks() can never disagree with the CLI. Callers
// have the command write its result to files of their own (-o, --json, --markdown), which
// touches nothing shared, so any number of runs go on at once in different threads. Only what a
// command prints nowhere but on stdout (compare's verdict table and its --epochs, --calibrate and
// job-level modes) is captured, with `capture_stdout`: C stdio's `stdout` then points at a
// memory stream while the command runs, and such runs take turns (one process-wide mutex). The
// process's file descriptors are never touched: Python's own sys.stdout, other threads' output
// and subprocesses are unaffected. stderr (notes, warnings) passes through. JSON files it writes
// mark their doubles (JsonDoublesMarked): the same values, typed for Python. Throws InputError for
// bad arguments or input, CheckFailed under --strict, as the CLI's main() would report them;
// runs without the GIL.
CommandRun RunCliCommand(const std::vector<std::string>& args, bool capture_stdout);

}  // namespace gpuroof::python
