// The rules a run passes before `compare --history-append` adds it to a history file
// (docs/metrics.md, "compare"): its line must be comparable with the lines there, and the history
// must not hold the run already. The file-system questions (reading the file, hashing the trace,
// whether a path names the trace) are the caller's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "gpuroof/analyses/regression/history.h"

namespace gpuroof {

// Throws InputError naming `trace` when `entry` was measured with another GPU model, number of
// active GPUs, --iteration-range or --kernel-key than the history's last line that records each:
// every later `--history` compare would exit 2 or leave lines out. A line with `line` 0 is a run
// given in the same call (the message says so).
void CheckAppendable(const std::vector<HistoryEntry>& history, const HistoryEntry& entry,
                     const std::string& history_path, const std::string& trace);

// Whether a history line names the trace being appended (any spelling of its path): asked only
// of lines without a trace_sha256.
using LineNamesTrace = std::function<bool(const HistoryEntry& line)>;

// Throws InputError naming `trace` when the history already holds this run: a line of the same
// trace SHA-256, or a line without one that names the trace and holds the same run summaries
// under the same rules. Returns a warning ("" when none) for lines of other bytes that hold this
// run's summaries, to the last digit of an iteration or a kernel, under a trace of the same
// RunStem: most likely another file of the same run, but not proven.
std::string CheckNotAppended(const std::vector<HistoryEntry>& history, const HistoryEntry& entry,
                             const std::string& history_path, const std::string& trace,
                             const LineNamesTrace& names_trace);

// A trace's file name without its trace suffixes: "x" for x.json.gz, x.json, x.nsys-rep and
// x.sqlite (another file of one run keeps the name: gunzip, nsys export).
std::string RunStem(const std::string& path);

}  // namespace gpuroof
