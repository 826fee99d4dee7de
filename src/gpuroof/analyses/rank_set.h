// Ranks of one distributed job compared with each other (docs/metrics.md, "Ranks"): which rank
// is an outlier on which metric (stragglers), and how far apart the ranks reach each collective
// (skew). Pure functions of the per-rank summaries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/collective_tally.h"
#include "gpuroof/analyses/rank_summary.h"

namespace gpuroof {

// The per-rank metrics the outlier rule looks at; all in ns per step.
enum class RankMetric {
  kStepMedian,
  kComputeBusy,
  kCommBusy,
  kExposedComm,
  kCopyBusy,
  kIdleHostBound,
  kIdleWaiting,
};

inline constexpr RankMetric kAllRankMetrics[] = {
    RankMetric::kStepMedian,  RankMetric::kComputeBusy, RankMetric::kCommBusy,
    RankMetric::kExposedComm, RankMetric::kCopyBusy,    RankMetric::kIdleHostBound,
    RankMetric::kIdleWaiting};

std::string_view RankMetricName(RankMetric metric);     // "step", "compute_busy", ...
std::string_view RankMetricReading(RankMetric metric);  // "compute-bound", "host-bound", ...
double RankMetricValue(const RankSummary& rank, RankMetric metric);

// The robust outlier rule (docs/metrics.md, "Stragglers"): a rank's value x is an outlier above
// the median M of the ranks when its modified z-score 0.6745 (x - M) / MAD exceeds `z` (MAD: the
// median of |x_i - M|; with MAD = 0 any x > M qualifies), x exceeds M by at least
// `min_excess_pct` % of M, and by at least `min_excess_of_step_pct` % of the ranks' median step
// time (a metric that is 0 or tiny on most ranks, a few us of copies, is not a reason to call a
// rank slow). Needs `min_ranks` ranks.
struct OutlierRule {
  double z = 3.5;
  double min_excess_pct = 5.0;
  double min_excess_of_step_pct = 1.0;
  size_t min_ranks = 3;
};

struct RankOutlier {
  size_t rank_index = 0;  // into the ranks given
  RankMetric metric = RankMetric::kStepMedian;
  double value_ns = 0;
  double median_ns = 0;
  double mad_ns = 0;
  std::optional<double> excess_pct;  // 100 (x - M) / M; unset when M = 0
  std::optional<double> robust_z;    // unset when MAD = 0
};

// Outliers of every metric, by rank index then metric order.
std::vector<RankOutlier> FindRankOutliers(const std::vector<RankSummary>& ranks,
                                          const OutlierRule& rule);
// The same among the ranks with compared[i] set only (medians, MADs and `min_ranks` over those);
// rank indices still point into `ranks`.
std::vector<RankOutlier> FindRankOutliers(const std::vector<RankSummary>& ranks,
                                          const OutlierRule& rule,
                                          const std::vector<bool>& compared);

// A rank slow at its own work: an outlier on step time, compute busy, copy busy or host-bound
// idle. `cause` is the outlier among those (step excluded) with the largest excess in ns; unset
// when only the step time stands out. (Exposed communication and waiting are what the others do
// while they wait for a straggler: they are listed as outliers, not as causes.)
struct Straggler {
  size_t rank_index = 0;
  std::vector<RankOutlier> outliers;  // this rank's, in metric order
  std::optional<RankMetric> cause;
};
std::vector<Straggler> FindStragglers(const std::vector<RankSummary>& ranks,
                                      const std::vector<RankOutlier>& outliers);

// One collective instance matched across ranks by (step, order within the step, kernel name).
// Matches the collectives of `ranks` (CollectiveTally, rank index = position in `ranks`);
// instances on fewer than all ranks are counted only.
SkewSummary ComputeCollectiveSkew(const std::vector<RankSummary>& ranks);

// "rank 3", or "rank 0 (saxpy_rank1.sqlite)" where ids[r] is held by more than one rank: the
// trace's file name tells them apart.
std::string RankLabel(const std::vector<RankSummary>& ranks, const std::vector<int64_t>& ids,
                      size_t r);
// "rank 3", "ranks 2, 3" (8 ids, then "and N more"), or the RankLabel of each where one of them
// is held twice.
std::string RankListLabel(const std::vector<RankSummary>& ranks, const std::vector<int64_t>& ids,
                          const std::vector<size_t>& indices);

// Who is who: the rank ids and what is wrong with them.
struct RankAssignment {
  std::vector<int64_t> ids;           // per input, in input order
  std::vector<bool> from_file_order;  // the trace named no rank: its position was used
  std::optional<int64_t> world_size;  // the largest the traces name, else the rank count
  std::vector<std::string> warnings;  // duplicate or missing ranks, world sizes that disagree
  std::vector<std::string> notes;     // facts worth saying: mixed formats, ranks from file order
};

// Rank ids from the traces, else from input order (position in the list); warns of a rank
// named twice, of ranks missing below the world size, of traces that disagree on the world size
// (two jobs mixed), and of mixed formats (said, not an error).
// `position[i]` is ranks[i]'s place in the list of traces given, and `traces_given` that list's
// length: traces that could not be read keep their places, and count in the world size.
RankAssignment AssignRanks(const std::vector<RankSummary>& ranks,
                           const std::vector<uint32_t>& position, size_t traces_given);

}  // namespace gpuroof

namespace gpuroof {

// Everything `gpuroof ranks` reports: the ranks sorted by id (then by source), their ids, and
// the comparisons, whose rank indices point into `ranks`.
struct RankSetAnalysis {
  std::vector<RankSummary> ranks;
  std::vector<int64_t> ids;
  std::vector<bool> from_file_order;
  std::optional<int64_t> world_size;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;
  // Ranks (indices into `ranks`) that have no step ranges while other ranks have: their whole
  // trace is no step, so they are left out of the outlier rule and the collective skew (warned).
  std::vector<size_t> whole_trace_left_out;
  size_t compared_ranks() const { return ranks.size() - whole_trace_left_out.size(); }
  OutlierRule rule;
  std::vector<RankOutlier> outliers;
  std::vector<Straggler> stragglers;
  SkewSummary skew;
};

// Assigns the ranks (in input order: file order matters where traces name no rank), sorts them
// by id, and compares them. The collectives are those of `ranks`.
RankSetAnalysis AnalyseRankSet(std::vector<RankSummary> ranks, const OutlierRule& rule);

// The same for ranks whose collectives were folded into `collectives` as they were read (and
// dropped from the summaries): ranks[i] is the tally's input input_of_rank[i], its place in the
// list of `traces_given` traces (those that could not be read included).
RankSetAnalysis AnalyseRankSet(std::vector<RankSummary> ranks, const OutlierRule& rule,
                               const CollectiveTally& collectives,
                               const std::vector<uint32_t>& input_of_rank, size_t traces_given);

}  // namespace gpuroof

namespace gpuroof {

// What a job-level gate compares (docs/metrics.md, "Job-level compare"): the step median of the
// slowest rank (the job runs at its pace) and the median over the ranks of their step medians.
struct JobStepFigures {
  double slowest_rank_step_ns = 0;
  int64_t slowest_rank = 0;  // its rank id (the lowest on a tie)
  double median_rank_step_ns = 0;
  // Ranks (ids) with no step ranges while other ranks have (RankSetAnalysis::
  // whole_trace_left_out): a whole trace is no step, so they are not in the figures (said).
  std::vector<int64_t> left_out;
};

// Over the ranks compared (those with step ranges when any rank has some). Throws
// std::invalid_argument for an empty set (callers never build one).
JobStepFigures ComputeJobStepFigures(const RankSetAnalysis& analysis);

}  // namespace gpuroof
