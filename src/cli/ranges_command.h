#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpuroof/analyses/range_summary.h"

#include "output_options.h"

namespace CLI {
class App;
}

namespace gpuroof {

struct RangesOptions : BreakdownOptions {
  std::string name;       // empty: one row per range name; else one row per instance of this range
  std::string attribute;  // --attribute: thread | process | "" (each range's default)
};

// Reads the traces, attributes GPU work to their NVTX ranges and emits the ranges report. Also
// what `analyze --per-range NAME` runs. Returns the exit code; throws InputError on bad input.
int RunRanges(const RangesOptions& options);

// The notes `ranges` prints for one trace, as (where, note): how work was attributed, and per
// range the launches from other threads it left out. Empty notes are left out. Shared with the
// Python module (src/python).
std::vector<std::pair<std::string, std::string>> RangesNotes(const RangeSummary& summary);

// Registers `gpuroof ranges`: per NVTX range name, CPU durations and the GPU work its instances
// launched, per engine, with the roofline per instance.
void AddRangesCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
