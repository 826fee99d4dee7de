// Reading a distributed job's traces as one rank set, for `gpuroof ranks` and for `gpuroof
// compare --baseline DIR --current DIR`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/collective_tally.h"
#include "gpuroof/analyses/rank_summary.h"
#include "gpuroof/reports/ranks_report.h"

#include "output_options.h"

namespace gpuroof {

struct RankSetLoad {
  std::vector<std::string> inputs;  // files and directories (rank_inputs.h)
  std::string iteration_range;      // empty: ProfilerStep#* where present
  int jobs = 0;                     // traces read at once; 0: one per core
  // compare's job mode: the side ("--current DIR"), which the error names when no trace can be
  // analysed. The caller refuses any trace that cannot be read, so they are not said one by one.
  std::string label;
};

// What one trace became: its summary, or why it has none. The trace itself is gone by then.
struct LoadedRank {
  std::optional<RankSummary> summary;
  std::string error;                      // the InputError's message when there is no summary
  std::string diagnostics_summary;        // when records were skipped
  std::vector<std::string> reader_notes;  // what the reader kept but read in a way worth saying
  bool data_loss = false;
  bool operator==(const LoadedRank&) const = default;
};

// What some of the traces became: one LoadedRank each, whose summary no longer holds its
// collectives: they are folded into `collectives`, whose inputs are the traces' path indices.
struct LoadedRanks {
  std::vector<LoadedRank> ranks;
  CollectiveTally collectives;
};

// Reads paths[indices[k]] into ranks[k] of the result, `load.jobs` at a time; each trace is
// reduced to its summary and dropped as soon as it is read. Prints nothing: a trace that cannot
// be read is a LoadedRank with an error.
LoadedRanks LoadRanks(const std::vector<std::string>& paths, const std::vector<size_t>& indices,
                      const RankSetLoad& load);

// Spreads the reduction of a rank set over several processes (ranks_mpi.h, under mpirun). Without
// one, this process reads every trace on its own thread pool.
class RankSetSpread {
 public:
  virtual ~RankSetSpread() = default;
  // Called before anything is read. False on a process that only helps: it has read its share
  // of the traces and handed the summaries on by the time this returns, and writes nothing.
  virtual bool Leads(const RankSetLoad& load) = 0;
  // On the leading process: every path's LoadedRank, in path order, and all their collectives
  // (as LoadRanks over all).
  virtual LoadedRanks LoadAll(const std::vector<std::string>& paths, const RankSetLoad& load) = 0;
};

struct LoadedRankSet {
  RankSetAnalysis analysis;
  std::vector<FailedTrace> failed;
  size_t traces_with_loss = 0;  // traces that lost records (--strict fails on them)
};

// Finds the traces, reads them `jobs` at a time (each reduced to its summary and dropped), and
// compares the ranks. Prints notes, diagnostics summaries, traces not analysed and the set's
// warnings on stderr (unless --quiet). With `spread`, the reading is spread over its processes
// (only the leading one calls this). Throws InputError when no trace is found or none can be
// analysed.
LoadedRankSet LoadRankSet(const RankSetLoad& load, const OutputOptions& output,
                          RankSetSpread* spread = nullptr);

}  // namespace gpuroof
