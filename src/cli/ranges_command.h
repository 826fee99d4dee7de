#pragma once

#include <string>
#include <vector>

#include "output_options.h"

namespace CLI {
class App;
}

namespace gpuroof {

struct RangesOptions {
  std::vector<std::string> traces;
  std::string name;  // empty: one row per range name; else one row per instance of this range
  int threads = 0;
  std::string attribute;  // --attribute: thread | process | "" (each range's default)
  OutputOptions output;
};

// Reads the traces, attributes GPU work to their NVTX ranges and emits the ranges report. Also
// what `analyze --per-range NAME` runs. Returns the exit code; throws InputError on bad input.
int RunRanges(const RangesOptions& options);

// Registers `gpuroof ranges`: per NVTX range name, CPU durations and the GPU work its instances
// launched, per engine, with the roofline per instance.
void AddRangesCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
