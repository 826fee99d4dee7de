#include "gpuroof/analyses/rank_set.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/statistics.h"
#include "gpuroof/model/enum_names.h"

namespace gpuroof {

namespace {

// The median of doubles (copied, reordered).
double MedianOf(std::vector<double> values) {
  return SelectMedian(values).value_or(0);
}

// "0, 2, 5" (at most 8, then "and N more").
std::string JoinIds(const std::vector<int64_t>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size() && i < 8; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(ids[i]);
  if (ids.size() > 8) text += fmt::format(" and {} more", ids.size() - 8);
  return text;
}

bool IsCause(RankMetric metric) {
  return metric == RankMetric::kComputeBusy || metric == RankMetric::kCopyBusy ||
         metric == RankMetric::kIdleHostBound;
}

// Each metric's name (a column of the tables) and what an outlier on it says about the rank.
struct RankMetricNames {
  RankMetric metric;
  std::string_view name;
  std::string_view reading;
};
constexpr std::array<RankMetricNames, 7> kRankMetricNames = {{
    {RankMetric::kStepMedian, "step", "slow steps"},
    {RankMetric::kComputeBusy, "compute_busy", "compute-bound"},
    {RankMetric::kCommBusy, "comm_busy", "more communication"},
    {RankMetric::kExposedComm, "exposed_comm", "waits in communication"},
    {RankMetric::kCopyBusy, "copy_busy", "copy-bound"},
    {RankMetric::kIdleHostBound, "idle_host_bound", "host-bound"},
    {RankMetric::kIdleWaiting, "idle_waiting", "waits on synchronisation"},
}};
static_assert(kRankMetricNames.size() == std::size(kAllRankMetrics), "every metric has its names");

}  // namespace

std::string_view RankMetricName(RankMetric metric) {
  const RankMetricNames* names = FindRow(kRankMetricNames, &RankMetricNames::metric, metric);
  return names ? names->name : "?";
}

std::string_view RankMetricReading(RankMetric metric) {
  const RankMetricNames* names = FindRow(kRankMetricNames, &RankMetricNames::metric, metric);
  return names ? names->reading : "?";
}

double RankMetricValue(const RankSummary& rank, RankMetric metric) {
  switch (metric) {
    case RankMetric::kStepMedian:
      return rank.step_median_ns;
    case RankMetric::kComputeBusy:
      return rank.MeanPerStep(&StepFigures::compute_busy_ns);
    case RankMetric::kCommBusy:
      return rank.MeanPerStep(&StepFigures::comm_busy_ns);
    case RankMetric::kExposedComm:
      return rank.MeanExposedCommNs();
    case RankMetric::kCopyBusy:
      return rank.MeanPerStep(&StepFigures::copy_busy_ns);
    case RankMetric::kIdleHostBound:
      return rank.MeanIdle(&IdleBreakdown::host_bound_ns);
    case RankMetric::kIdleWaiting:
      return rank.MeanIdle(&IdleBreakdown::waiting_ns);
  }
  return 0;
}

std::vector<RankOutlier> FindRankOutliers(const std::vector<RankSummary>& ranks,
                                          const OutlierRule& rule) {
  std::vector<RankOutlier> outliers;
  if (ranks.size() < rule.min_ranks) return outliers;
  std::vector<double> step_medians;
  for (const RankSummary& rank : ranks)
    step_medians.push_back(RankMetricValue(rank, RankMetric::kStepMedian));
  const double min_excess_ns = rule.min_excess_of_step_pct / 100.0 * MedianOf(step_medians);
  for (RankMetric metric : kAllRankMetrics) {
    std::vector<double> values;
    for (const RankSummary& rank : ranks)
      values.push_back(RankMetricValue(rank, metric));
    double median = MedianOf(values);
    std::vector<double> deviations;
    for (double value : values)
      deviations.push_back(std::fabs(value - median));
    double mad = MedianOf(deviations);
    for (size_t r = 0; r < ranks.size(); ++r) {
      double excess = values[r] - median;
      if (excess <= 0 || excess < min_excess_ns) continue;
      std::optional<double> excess_pct;
      if (median > 0) {
        excess_pct = 100.0 * excess / median;
        if (*excess_pct < rule.min_excess_pct) continue;
      }
      std::optional<double> z;
      if (mad > 0) {
        z = 0.6745 * excess / mad;
        if (*z <= rule.z) continue;
      }
      outliers.push_back({r, metric, values[r], median, mad, excess_pct, z});
    }
  }
  std::stable_sort(outliers.begin(), outliers.end(),
                   [](const auto& a, const auto& b) { return a.rank_index < b.rank_index; });
  return outliers;
}

std::vector<Straggler> FindStragglers(const std::vector<RankSummary>& ranks,
                                      const std::vector<RankOutlier>& outliers) {
  std::vector<Straggler> stragglers;
  for (size_t r = 0; r < ranks.size(); ++r) {
    Straggler straggler;
    straggler.rank_index = r;
    bool slow = false;
    double cause_excess = 0;
    for (const RankOutlier& outlier : outliers) {
      if (outlier.rank_index != r) continue;
      straggler.outliers.push_back(outlier);
      if (outlier.metric == RankMetric::kStepMedian) slow = true;
      if (!IsCause(outlier.metric)) continue;
      slow = true;
      double excess = outlier.value_ns - outlier.median_ns;
      if (!straggler.cause || excess > cause_excess) {
        straggler.cause = outlier.metric;
        cause_excess = excess;
      }
    }
    if (slow) stragglers.push_back(std::move(straggler));
  }
  return stragglers;
}

SkewSummary ComputeCollectiveSkew(const std::vector<RankSummary>& ranks) {
  CollectiveTally tally;
  std::vector<size_t> position(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    tally.Add(static_cast<uint32_t>(r), ranks[r]);
    position[r] = r;
  }
  return tally.Match(position, ranks.size());
}

RankAssignment AssignRanks(const std::vector<RankSummary>& ranks,
                           const std::vector<uint32_t>& position, size_t traces_given) {
  if (position.size() != ranks.size()) {
    throw std::invalid_argument("AssignRanks: one position per rank");
  }
  RankAssignment assignment;
  std::map<int64_t, std::vector<size_t>> holders;
  std::map<int64_t, size_t> world_sizes;  // size -> traces naming it
  std::map<std::string, size_t> formats;
  size_t from_order = 0;
  for (size_t i = 0; i < ranks.size(); ++i) {
    bool named = ranks[i].rank.has_value();
    int64_t id = named ? *ranks[i].rank : static_cast<int64_t>(position[i]);
    assignment.ids.push_back(id);
    assignment.from_file_order.push_back(!named);
    if (!named) ++from_order;
    holders[id].push_back(i);
    if (ranks[i].world_size) ++world_sizes[*ranks[i].world_size];
    ++formats[ranks[i].format];
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].rank_left_out.empty()) continue;
    assignment.warnings.push_back(fmt::format("{}: {}; its rank is its position in the file list",
                                              ranks[i].source, ranks[i].rank_left_out));
  }
  for (const auto& [id, inputs] : holders) {
    if (inputs.size() < 2) continue;
    std::string sources;
    for (size_t i : inputs)
      sources += (sources.empty() ? "" : ", ") + ranks[i].source;
    assignment.warnings.push_back(
        fmt::format("rank {} appears in {} traces: {}", id, inputs.size(), sources));
  }
  if (world_sizes.size() > 1) {
    std::string sizes;
    for (const auto& [size, count] : world_sizes)
      sizes += fmt::format("{}{} in {} trace{}", sizes.empty() ? "" : ", ", size, count,
                           count == 1 ? "" : "s");
    assignment.warnings.push_back(fmt::format(
        "the traces name different world sizes ({}): ranks from two different jobs?", sizes));
  }
  if (!world_sizes.empty()) {
    assignment.world_size = world_sizes.rbegin()->first;
  } else if (!ranks.empty()) {
    assignment.world_size = static_cast<int64_t>(std::max(traces_given, ranks.size()));
  }
  if (assignment.world_size) {
    std::vector<int64_t> missing;
    std::vector<int64_t> beyond;
    for (int64_t id = 0; id < *assignment.world_size; ++id) {
      if (!holders.count(id)) missing.push_back(id);
    }
    for (const auto& [id, inputs] : holders) {
      bool named = std::any_of(inputs.begin(), inputs.end(),
                               [&](size_t i) { return ranks[i].rank.has_value(); });
      if (named && id >= *assignment.world_size) beyond.push_back(id);
    }
    if (!missing.empty()) {
      assignment.warnings.push_back(
          fmt::format("world size {}, but {} rank{} missing: {}", *assignment.world_size,
                      missing.size(), missing.size() == 1 ? " is" : "s are", JoinIds(missing)));
    }
    if (!beyond.empty()) {
      assignment.warnings.push_back(fmt::format("world size {}, but the traces name rank{} {}",
                                                *assignment.world_size,
                                                beyond.size() == 1 ? "" : "s", JoinIds(beyond)));
    }
  }
  if (from_order > 0) {
    assignment.notes.push_back(
        fmt::format("{} of {} traces name no rank: their rank is their position in the file list",
                    from_order, ranks.size()));
  }
  if (formats.size() > 1) {
    std::string mix;
    for (const auto& [format, count] : formats)
      mix += fmt::format("{}{} {}", mix.empty() ? "" : ", ", count, format);
    assignment.notes.push_back(fmt::format("mixed formats: {}", mix));
  }
  return assignment;
}

}  // namespace gpuroof

namespace gpuroof {

RankSetAnalysis AnalyseRankSet(std::vector<RankSummary> ranks, const OutlierRule& rule) {
  CollectiveTally collectives;
  std::vector<uint32_t> input_of_rank(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    input_of_rank[r] = static_cast<uint32_t>(r);
    collectives.Add(input_of_rank[r], ranks[r]);
  }
  const size_t traces_given = ranks.size();
  return AnalyseRankSet(std::move(ranks), rule, collectives, input_of_rank, traces_given);
}

RankSetAnalysis AnalyseRankSet(std::vector<RankSummary> ranks, const OutlierRule& rule,
                               const CollectiveTally& collectives,
                               const std::vector<uint32_t>& input_of_rank, size_t traces_given) {
  if (input_of_rank.size() != ranks.size()) {
    throw std::invalid_argument("AnalyseRankSet: one tally input per rank");
  }
  RankAssignment assignment = AssignRanks(ranks, input_of_rank, traces_given);
  std::vector<size_t> order(ranks.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::tie(assignment.ids[a], ranks[a].source) <
           std::tie(assignment.ids[b], ranks[b].source);
  });
  RankSetAnalysis analysis;
  for (size_t i : order) {
    analysis.ranks.push_back(std::move(ranks[i]));
    analysis.ids.push_back(assignment.ids[i]);
    analysis.from_file_order.push_back(assignment.from_file_order[i]);
  }
  analysis.world_size = assignment.world_size;
  analysis.warnings = std::move(assignment.warnings);
  analysis.notes = std::move(assignment.notes);
  analysis.rule = rule;
  analysis.outliers = FindRankOutliers(analysis.ranks, rule);
  analysis.stragglers = FindStragglers(analysis.ranks, analysis.outliers);
  // Where each tally input ended up among the sorted ranks.
  uint32_t inputs = 0;
  for (uint32_t input : input_of_rank)
    inputs = std::max(inputs, input + 1);
  std::vector<size_t> position_of_input(inputs, 0);
  for (size_t position = 0; position < order.size(); ++position)
    position_of_input[input_of_rank[order[position]]] = position;
  analysis.skew = collectives.Match(position_of_input, analysis.ranks.size());
  return analysis;
}

}  // namespace gpuroof

namespace gpuroof {

JobStepFigures ComputeJobStepFigures(const RankSetAnalysis& analysis) {
  if (analysis.ranks.empty()) throw std::invalid_argument("ComputeJobStepFigures: no rank");
  JobStepFigures figures;
  std::vector<double> medians;
  for (size_t r = 0; r < analysis.ranks.size(); ++r) {
    double median = analysis.ranks[r].step_median_ns;
    medians.push_back(median);
    if (r == 0 || median > figures.slowest_rank_step_ns) {
      figures.slowest_rank_step_ns = median;
      figures.slowest_rank = analysis.ids[r];
    }
  }
  figures.median_rank_step_ns = MedianOf(medians);
  return figures;
}

}  // namespace gpuroof
