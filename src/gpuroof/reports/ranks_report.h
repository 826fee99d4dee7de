// `gpuroof ranks`: the ranks of a distributed job side by side, the stragglers and the
// collective skew (docs/cli.md, "gpuroof ranks"; figures defined in docs/metrics.md, "Ranks").
#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/format/report_document.h"

namespace gpuroof {

// A trace of the set that could not be analysed: reported, the others still are.
struct FailedTrace {
  std::string path;
  std::string message;  // the one-line error
};

struct RanksReport {
  RankSetAnalysis analysis;
  std::vector<FailedTrace> failed;
  std::string iteration_range;  // as given; empty: ProfilerStep#* where the traces have it
  size_t collective_rows = 10;  // instances listed in text and Markdown (largest spread first)
  std::string tool_version;
};

// Rank ids for a line of text: "0, 2, 5" (at most 8, then "and N more").
std::string JoinRankIds(const std::vector<int64_t>& ids);

// One row per rank, busy and idle figures as means per step: the table `ranks` prints, the HTML
// report shows.
Table RankTable(const RankSetAnalysis& analysis);
// What the rank table rests on, one line each: the steps (per rank when they differ), how ranks
// were identified ("note: ..."), work on other devices and outside the steps not counted. The
// ranks text and the HTML report both show them.
std::vector<std::string> RankSetPreamble(const RankSetAnalysis& analysis);
// Three sections: the ranks, the stragglers, the collectives with the largest skew; CSV has the
// ranks only (one row per rank, per-step figures in ns at full precision).
ReportDocument RanksDocument(const RanksReport& report);
// Schema "gpuroof.ranks/1" (docs/formats.md): ranks, outliers, stragglers, every matched
// collective instance, warnings, notes and the traces that failed.
std::string RenderRanksJson(const RanksReport& report);

// The straggler column: the cause's reading ("compute-bound"), "yes" without a single cause, ""
// for a rank that is no straggler.
std::string StragglerLabel(const RankSetAnalysis& analysis, size_t rank_index);

// "rank 5: step +18.0 % vs median, compute_busy +17.0 %: compute-bound straggler"
std::string StragglerLine(const RankSetAnalysis& analysis, const Straggler& straggler);

}  // namespace gpuroof
