#pragma once

#include <string>

namespace CLI {
class App;
}

namespace gpuroof {

// Refuses, before anything is read, an output file (-o, --json, --markdown, --html,
// --history-append) that could not be written (its folder is missing), that is one of the
// files the command reads (positional traces, --baseline, --current, a trace inside an input
// directory, --history, report's --env) under any spelling: another relative path, `..`, a
// symbolic or hard link; or that another output option names too. Writing it would destroy the
// input or the other output. `--history-append` may name the `--history` file: appending the
// run to the history it was gated against is its use. Throws InputError naming the output.
void CheckOutputFiles(const CLI::App& command);

// A trace given twice (under any spelling) to a command that reads traces. `compare` and `ranks`
// refuse it (InputError naming the second): it would count as two runs or two ranks. `compare`
// also refuses a byte-identical copy of a trace within a side (and among the --calibrate
// profiles), and a run on both sides next to runs that are not. The other
// commands show it twice, and say so on stderr unless --quiet.
void CheckRepeatedInputs(const CLI::App& command);

// Whether two paths name one file (any spelling, a link) or files of the same bytes (a copy):
// read only when the sizes agree, then up to the first difference. False when either cannot be
// read.
bool SameFileOrBytes(const std::string& a, const std::string& b);

// Has `app` run both checks on its parsed command after parsing, before the command runs: for the
// CLI's main() and for the Python module's in-process runs alike.
void InstallFileArgumentChecks(CLI::App& app);

}  // namespace gpuroof
