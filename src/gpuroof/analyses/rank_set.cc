#include "gpuroof/analyses/rank_set.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "gpuroof/analyses/message_list.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/enum_names.h"

namespace gpuroof {

namespace {

// The median of doubles (copied, reordered).
double MedianOf(std::vector<double> values) {
  return SelectMedian(values).value_or(0);
}

// "0, 2, 5" (at most 8 of the `total` ids, then "and N more"); `total` may exceed ids.size()
// where only the first ids are held (missing ranks are counted, never listed in full).
std::string JoinIds(const std::vector<int64_t>& ids, uint64_t total) {
  std::vector<std::string> items;
  for (size_t i = 0; i < ids.size() && i < 8; ++i)
    items.push_back(std::to_string(ids[i]));
  return ListFirst(items, 8, std::max<uint64_t>(total, items.size()));
}
std::string JoinIds(const std::vector<int64_t>& ids) {
  return JoinIds(ids, ids.size());
}

// Ranks whose analysed devices are of different GPU models: their figures are compared all the
// same (the point of the rank set), so it is said, with the count per model, the ranks of every
// model but the commonest, and the ranks whose trace names no model. "" when at most one model is
// named.
std::string GpuModelsWarning(const std::vector<RankSummary>& ranks,
                             const std::vector<int64_t>& ids) {
  std::map<std::string, std::vector<size_t>> by_model;  // rank indices
  std::vector<size_t> unnamed;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].device_name.empty()) {
      unnamed.push_back(i);
    } else {
      by_model[ranks[i].device_name].push_back(i);
    }
  }
  if (by_model.size() < 2) return "";
  std::vector<std::pair<std::string, std::vector<size_t>>> models(by_model.begin(), by_model.end());
  // Most ranks first, then by name (the map's order, kept by the stable sort).
  std::stable_sort(models.begin(), models.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  // By id (then input order); a duplicated id with its trace's name (RankListLabel).
  const auto rank_list = [&](std::vector<size_t> of) {
    std::stable_sort(of.begin(), of.end(), [&](size_t a, size_t b) { return ids[a] < ids[b]; });
    return RankListLabel(ranks, ids, of);
  };
  std::string text = fmt::format("ranks run on {} GPU models:", models.size());
  for (size_t m = 0; m < models.size(); ++m) {
    const auto& [model, of] = models[m];
    text += fmt::format("{} {} on {}", m == 0 ? "" : ",", of.size(), model);
    if (m > 0) text += fmt::format(" ({})", rank_list(of));
  }
  if (!unnamed.empty()) {
    text += fmt::format(", {} on a GPU the trace does not name ({})", unnamed.size(),
                        rank_list(unnamed));
  }
  return text + "; figures compared across models";
}

}  // namespace

std::string RankLabel(const std::vector<RankSummary>& ranks, const std::vector<int64_t>& ids,
                      size_t r) {
  const size_t holders = static_cast<size_t>(std::count(ids.begin(), ids.end(), ids.at(r)));
  if (holders < 2) return fmt::format("rank {}", ids[r]);
  return fmt::format("rank {} ({})", ids[r],
                     std::filesystem::path(ranks.at(r).source).filename().string());
}

std::string RankListLabel(const std::vector<RankSummary>& ranks, const std::vector<int64_t>& ids,
                          const std::vector<size_t>& indices) {
  constexpr size_t kShown = 8;  // as JoinIds: the rest counted
  std::map<int64_t, size_t> holders;
  for (int64_t id : ids)
    ++holders[id];
  std::vector<int64_t> listed;
  bool duplicated = false;
  for (size_t r : indices) {
    listed.push_back(ids.at(r));
    duplicated = duplicated || holders[ids[r]] > 1;
  }
  if (!duplicated) return fmt::format("rank{} {}", listed.size() == 1 ? "" : "s", JoinIds(listed));
  std::vector<std::string> labels;
  for (size_t k = 0; k < indices.size() && k < kShown; ++k)
    labels.push_back(RankLabel(ranks, ids, indices[k]));
  return ListFirst(labels, kShown, indices.size());
}

namespace {

// "#550-#554" (or "#550" for one step).
std::string NumberSpan(const std::vector<int64_t>& numbers) {
  if (numbers.size() == 1) return fmt::format("#{}", numbers.front());
  return fmt::format("#{}-#{}", numbers.front(), numbers.back());
}

// Steps are matched by position (the n-th step of each rank). Where the ranks' steps carry
// instance numbers (ProfilerStep#N), the positions should hold the same numbers; when they do not
// (a rank whose capture starts a step later), the comparison pairs different steps: said, with
// the positions that disagree and the ranks numbered otherwise than most. At each position the
// commonest number (the smaller on a tie) is the reference. Only `compared` ranks with numbered
// steps take part. "" when they line up.
std::string StepNumbersWarning(const std::vector<RankSummary>& ranks,
                               const std::vector<int64_t>& ids, const std::vector<bool>& compared) {
  std::vector<size_t> numbered;
  size_t positions = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (!compared[r] || ranks[r].step_numbers.empty()) continue;
    numbered.push_back(r);
    positions = std::max(positions, ranks[r].step_numbers.size());
  }
  if (numbered.size() < 2) return "";
  std::vector<int64_t> reference(positions, 0);
  size_t differing_positions = 0;
  for (size_t p = 0; p < positions; ++p) {
    std::map<int64_t, size_t> counts;
    for (size_t r : numbered) {
      if (p < ranks[r].step_numbers.size()) ++counts[ranks[r].step_numbers[p]];
    }
    auto commonest =
        std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
          return a.second < b.second;  // the first (smallest number) of equal counts stays
        });
    reference[p] = commonest->first;
    if (counts.size() > 1) ++differing_positions;
  }
  if (differing_positions == 0) return "";
  std::vector<std::pair<int64_t, size_t>> off;  // (rank id, rank index), by id
  for (size_t r : numbered) {
    const std::vector<int64_t>& numbers = ranks[r].step_numbers;
    if (!std::equal(numbers.begin(), numbers.end(), reference.begin())) off.emplace_back(ids[r], r);
  }
  std::sort(off.begin(), off.end());
  std::string list;
  for (size_t k = 0; k < off.size() && k < 8; ++k) {
    list += fmt::format("{}{} ({})", k == 0 ? "" : ", ", RankLabel(ranks, ids, off[k].second),
                        NumberSpan(ranks[off[k].second].step_numbers));
  }
  if (off.size() > 8) list += fmt::format(" and {} more", off.size() - 8);
  const bool one = off.size() == 1;
  return fmt::format(
      "steps are matched by position, but the ranks' step numbers differ at {} of {} position{}: "
      "{} of {} ranks {} numbered otherwise than most ({}): {}; {} steps and collectives are "
      "compared with steps of other numbers",
      differing_positions, positions, positions == 1 ? "" : "s", off.size(), numbered.size(),
      one ? "is" : "are", NumberSpan(reference), list, one ? "its" : "their");
}

// Collective names whose count in a step differs between ranks (SkewSummary::differing_steps):
// their instances there are not compared, said with the counts and, for the first 4 (step, name)s,
// the ranks that differ from the commonest count (4 each, then counted). "" when all agree.
std::string DifferingStepsWarning(const RankSetAnalysis& analysis) {
  const SkewSummary& skew = analysis.skew;
  if (skew.differing_steps.empty()) return "";
  const size_t pairs = skew.differing_steps.size();
  std::set<size_t> step_set;
  for (const DifferingStep& step : skew.differing_steps)
    step_set.insert(step.step);
  const size_t steps = step_set.size();
  const size_t instances = skew.unaligned_instances + skew.partial_instances;
  // Ranks compared with no step ranges at all: their one step is the whole trace.
  const bool whole_traces = analysis.whole_trace_left_out.empty() &&
                            std::all_of(analysis.ranks.begin(), analysis.ranks.end(),
                                        [](const RankSummary& rank) { return rank.whole_trace; });
  std::string text = fmt::format(
      "collective counts differ between ranks for {} collective name{} {}: a rank that issues "
      "more or fewer collectives of a name than the others has lost or gained records, so the "
      "{} instance{} of {} {} not compared (in no spread and no last-rank count):",
      pairs, pairs == 1 ? "" : "s",
      whole_traces ? std::string("in the whole trace (no step ranges)")
                   : fmt::format("in {} step{}", steps, steps == 1 ? "" : "s"),
      instances, instances == 1 ? "" : "s", pairs == 1 ? "that name" : "those names",
      instances == 1 ? "is" : "are");
  constexpr size_t kPairsShown = 4;
  constexpr size_t kRanksShown = 4;
  for (size_t k = 0; k < pairs && k < kPairsShown; ++k) {
    const DifferingStep& step = skew.differing_steps[k];
    text += whole_traces
                ? fmt::format("{} {}:", k == 0 ? "" : ";", step.name)
                : fmt::format("{} step {}, {}:", k == 0 ? "" : ";", step.step + 1, step.name);
    for (size_t d = 0; d < step.differing.size() && d < kRanksShown; ++d) {
      const auto& [r, count] = step.differing[d];
      text += fmt::format("{} {} has {}", d == 0 ? "" : ",",
                          RankLabel(analysis.ranks, analysis.ids, r), count);
    }
    if (step.differing.size() > kRanksShown) {
      text += fmt::format(" and {} more ranks", step.differing.size() - kRanksShown);
    }
    text += fmt::format(", the others {}", step.common_count);
  }
  if (pairs > kPairsShown) text += fmt::format("; and {} more", pairs - kPairsShown);
  return text;
}

// Steps that end more than 1 % of their length past the rank's last record (RankSummary::
// last_record_ns): their length, and the means per step, hold time with no GPU op or launch call (a
// step range stretched to where the capture stopped). Said per rank (the first 8, then counted),
// with the step that reaches furthest; the figures stay as defined.
std::vector<std::string> StepsPastTheEndNotes(const std::vector<RankSummary>& ranks,
                                              const std::vector<int64_t>& ids) {
  constexpr double kShare = 0.01;
  constexpr size_t kNamed = 8;
  std::vector<std::string> notes;
  size_t more = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const RankSummary& rank = ranks[r];
    if (rank.whole_trace || rank.last_record_ns == 0) continue;
    size_t past = 0;
    size_t furthest = 0;
    int64_t furthest_ns = 0;
    for (size_t s = 0; s < rank.steps.size(); ++s) {
      const StepFigures& step = rank.steps[s];
      const int64_t beyond = step.end_ns - rank.last_record_ns;
      if (beyond <= 0 ||
          static_cast<double>(beyond) <= kShare * static_cast<double>(step.length_ns()))
        continue;
      ++past;
      if (beyond > furthest_ns) {
        furthest = s;
        furthest_ns = beyond;
      }
    }
    if (past == 0) continue;
    if (notes.size() >= kNamed) {
      ++more;
      continue;
    }
    notes.push_back(fmt::format(
        "{}: step {} ends {} after the trace's last record (GPU op or launch call){}: its length "
        "and the means per step include time with no GPU op or launch call",
        RankLabel(ranks, ids, r), furthest + 1, FormatDurationNs(furthest_ns),
        past == 1 ? "" : fmt::format(", {} steps end past it", past)));
  }
  if (more > 0) {
    notes.push_back(fmt::format("{} more rank{} with a step ending past the trace's last record",
                                more, more == 1 ? "" : "s"));
  }
  return notes;
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
  return FindRankOutliers(ranks, rule, std::vector<bool>(ranks.size(), true));
}

std::vector<RankOutlier> FindRankOutliers(const std::vector<RankSummary>& ranks,
                                          const OutlierRule& rule,
                                          const std::vector<bool>& compared) {
  if (compared.size() != ranks.size()) {
    throw std::invalid_argument("FindRankOutliers: one flag per rank");
  }
  std::vector<size_t> indices;  // of the ranks compared
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (compared[r]) indices.push_back(r);
  }
  std::vector<RankOutlier> outliers;
  if (indices.size() < rule.min_ranks) return outliers;
  std::vector<double> step_medians;
  for (size_t r : indices)
    step_medians.push_back(RankMetricValue(ranks[r], RankMetric::kStepMedian));
  const double min_excess_ns = rule.min_excess_of_step_pct / 100.0 * MedianOf(step_medians);
  for (RankMetric metric : kAllRankMetrics) {
    std::vector<double> values;
    for (size_t r : indices)
      values.push_back(RankMetricValue(ranks[r], metric));
    double median = MedianOf(values);
    std::vector<double> deviations;
    for (double value : values)
      deviations.push_back(std::fabs(value - median));
    double mad = MedianOf(deviations);
    for (size_t k = 0; k < indices.size(); ++k) {
      const size_t r = indices[k];
      double excess = values[k] - median;
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
      outliers.push_back({r, metric, values[k], median, mad, excess_pct, z});
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
    // The world size is read from the traces (any int64): the missing ranks are counted, and
    // only the first few listed, so that a huge one costs no time or memory (at most
    // holders.size() + 8 ids are looked at).
    const int64_t world_size = *assignment.world_size;
    uint64_t held_below = 0;  // distinct ids in [0, world_size)
    for (auto it = holders.lower_bound(0); it != holders.end() && it->first < world_size; ++it)
      ++held_below;
    const uint64_t missing_count =
        world_size > 0 ? static_cast<uint64_t>(world_size) - held_below : 0;
    std::vector<int64_t> missing;  // the first 8
    for (int64_t id = 0; id < world_size && missing.size() < 8; ++id) {
      if (!holders.count(id)) missing.push_back(id);
    }
    std::vector<int64_t> beyond;
    for (const auto& [id, inputs] : holders) {
      bool named = std::any_of(inputs.begin(), inputs.end(),
                               [&](size_t i) { return ranks[i].rank.has_value(); });
      if (named && id >= *assignment.world_size) beyond.push_back(id);
    }
    if (missing_count > 0) {
      assignment.warnings.push_back(
          fmt::format("world size {}, but {} rank{} missing: {}", world_size, missing_count,
                      missing_count == 1 ? " is" : "s are", JoinIds(missing, missing_count)));
    }
    if (!beyond.empty()) {
      assignment.warnings.push_back(fmt::format("world size {}, but the traces name rank{} {}",
                                                *assignment.world_size,
                                                beyond.size() == 1 ? "" : "s", JoinIds(beyond)));
    }
  }
  std::string models = GpuModelsWarning(ranks, assignment.ids);
  if (!models.empty()) assignment.warnings.push_back(std::move(models));
  if (from_order > 0) {
    assignment.notes.push_back(
        fmt::format("{} of {} traces name no rank: their rank is their position in the file list",
                    from_order, ranks.size()));
  }
  std::vector<std::string> tied;
  for (const RankSummary& rank : ranks) {
    if (rank.tied_devices > 0) tied.push_back(rank.source);
  }
  if (!tied.empty()) {
    constexpr size_t kNamed = 4;  // traces named; the rest counted
    assignment.notes.push_back(fmt::format(
        "{} of {} traces have another device with as many ops as the busiest: the lowest device "
        "id is analysed ({})",
        tied.size(), ranks.size(), ListFirst(tied, kNamed)));
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
  // A rank with no step ranges among ranks with real steps: its whole trace is no step.
  std::vector<bool> compared(analysis.ranks.size(), true);
  const bool any_steps = std::any_of(analysis.ranks.begin(), analysis.ranks.end(),
                                     [](const RankSummary& rank) { return !rank.whole_trace; });
  for (size_t r = 0; r < analysis.ranks.size() && any_steps; ++r) {
    if (!analysis.ranks[r].whole_trace) continue;
    compared[r] = false;
    analysis.whole_trace_left_out.push_back(r);
  }
  if (!analysis.whole_trace_left_out.empty()) {
    const size_t n = analysis.whole_trace_left_out.size();
    const bool one = n == 1;
    analysis.warnings.push_back(fmt::format(
        "{} of {} ranks ha{} no step ranges while the others have: {} whole trace is not a step, "
        "so {} left out of the outlier rule and the collective skew: {}",
        n, analysis.ranks.size(), one ? "s" : "ve", one ? "its" : "each one's",
        one ? "it is" : "they are",
        RankListLabel(analysis.ranks, analysis.ids, analysis.whole_trace_left_out)));
  }
  for (std::string& note : StepsPastTheEndNotes(analysis.ranks, analysis.ids))
    analysis.notes.push_back(std::move(note));
  std::string numbers = StepNumbersWarning(analysis.ranks, analysis.ids, compared);
  if (!numbers.empty()) analysis.warnings.push_back(std::move(numbers));
  analysis.outliers = FindRankOutliers(analysis.ranks, rule, compared);
  analysis.stragglers = FindStragglers(analysis.ranks, analysis.outliers);
  // Where each tally input ended up among the sorted ranks.
  uint32_t inputs = 0;
  for (uint32_t input : input_of_rank)
    inputs = std::max(inputs, input + 1);
  std::vector<size_t> position_of_input(inputs, 0);
  for (size_t position = 0; position < order.size(); ++position)
    position_of_input[input_of_rank[order[position]]] = position;
  // Skew needs two ranks: one rank "compared" with itself would list every collective with no
  // spread as if that were a finding.
  if (analysis.compared_ranks() < 2) {
    analysis.skew.times_last.assign(analysis.ranks.size(), 0);
  } else {
    analysis.skew = analysis.whole_trace_left_out.empty()
                        ? collectives.Match(position_of_input, analysis.ranks.size())
                        : collectives.MatchStepRanges(position_of_input, compared);
  }
  std::string differing = DifferingStepsWarning(analysis);
  if (!differing.empty()) analysis.warnings.push_back(std::move(differing));
  return analysis;
}

}  // namespace gpuroof

namespace gpuroof {

JobStepFigures ComputeJobStepFigures(const RankSetAnalysis& analysis) {
  if (analysis.ranks.empty()) throw std::invalid_argument("ComputeJobStepFigures: no rank");
  JobStepFigures figures;
  std::vector<bool> left_out(analysis.ranks.size(), false);
  for (size_t r : analysis.whole_trace_left_out) {
    left_out[r] = true;
    figures.left_out.push_back(analysis.ids[r]);
  }
  std::vector<double> medians;
  for (size_t r = 0; r < analysis.ranks.size(); ++r) {
    if (left_out[r]) continue;
    double median = analysis.ranks[r].step_median_ns;
    medians.push_back(median);
    if (medians.size() == 1 || median > figures.slowest_rank_step_ns) {
      figures.slowest_rank_step_ns = median;
      figures.slowest_rank = analysis.ids[r];
    }
  }
  figures.median_rank_step_ns = MedianOf(medians);
  return figures;
}

}  // namespace gpuroof
