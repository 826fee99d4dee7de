// Reading a distributed job's traces as one rank set, for `gpuroof ranks` and for `gpuroof
// compare --baseline DIR --current DIR`.
#pragma once

#include <string>
#include <vector>

#include "gpuroof/reports/ranks_report.h"

#include "output_options.h"

namespace gpuroof {

struct RankSetLoad {
  std::vector<std::string> inputs;  // files and directories (rank_inputs.h)
  std::string iteration_range;      // empty: ProfilerStep#* where present
  int jobs = 0;                     // traces read at once; 0: one per core
};

struct LoadedRankSet {
  RankSetAnalysis analysis;
  std::vector<FailedTrace> failed;
  size_t traces_with_loss = 0;  // traces that lost records (--strict fails on them)
};

// Finds the traces, reads them `jobs` at a time (each reduced to its summary and dropped), and
// compares the ranks. Prints notes, diagnostics summaries, traces not analysed and the set's
// warnings on stderr (unless --quiet). Throws InputError when no trace is found or none can be
// analysed.
LoadedRankSet LoadRankSet(const RankSetLoad& load, const OutputOptions& output);

}  // namespace gpuroof
