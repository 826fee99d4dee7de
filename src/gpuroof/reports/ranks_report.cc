#include "gpuroof/reports/ranks_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "gpuroof/analyses/message_list.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"

namespace gpuroof {

namespace {

using U = ColumnUnit;

// Means and percentiles in ns are written to 0.001 ns in every format (docs/formats.md, "ranks"):
// past that, a double's last digits (1773024599.9999998 for 1773024600) are rounding noise.
double NsFigure(double ns) {
  return std::round(ns * 1000.0) / 1000.0;
}

// The per-rank columns, once for every format (docs/cli.md, "gpuroof ranks"). Busy and idle
// figures are means per step.
std::vector<TableColumn> RankColumns() {
  return {
      MakeColumn("rank", "rank", U::kCount, ColumnRole::kKey),
      MakeColumn("rank_from", "rank from", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("format", "format", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("device", "device", U::kCount, ColumnRole::kLabel).NotInText(),
      MakeColumn("device_name", "GPU model", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("other_device_ops", "other device ops", U::kCount).NotInText(),
      MakeColumn("steps", "steps", U::kCount),
      MakeColumn("steps_label", "steps are", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("ops_outside_steps", "ops outside steps", U::kCount).NotInText(),
      MakeColumn("busy_outside_steps_ns", "busy outside steps", U::kNs).NotInText(),
      MakeColumn("records_lost", "records lost", U::kCount).NotInText(),
      MakeColumn("step_median_ns", "step median", U::kNs),
      MakeColumn("step_p95_ns", "step p95", U::kNs),
      MakeColumn("compute_busy_ns", "compute", U::kNs),
      MakeColumn("comm_busy_ns", "comm", U::kNs),
      MakeColumn("comm_hidden_ns", "hidden", U::kNs),
      MakeColumn("comm_exposed_ns", "exposed", U::kNs),
      MakeColumn("copy_busy_ns", "copy", U::kNs),
      MakeColumn("idle_ns", "idle", U::kNs),
      MakeColumn("idle_host_bound_ns", "host-bound", U::kNs),
      MakeColumn("idle_waiting_ns", "waiting", U::kNs),
      MakeColumn("idle_other_ns", "other", U::kNs),
      MakeColumn("last_at_collectives", "last", U::kCount),
      MakeColumn("straggler", "straggler", U::kText, ColumnRole::kLabel),
      MakeColumn("trace", "trace", U::kText, ColumnRole::kLabel).NotInText(),
      // A name column: shortened when the table would pass 160 columns (docs/formats.md).
      MakeColumn("file", "trace", U::kName, ColumnRole::kLabel).HumanOnly(),
  };
}

Table OutlierTable(const RankSetAnalysis& analysis) {
  Table table({
      MakeColumn("rank", "rank", U::kCount, ColumnRole::kKey),
      MakeColumn("metric", "metric", U::kText, ColumnRole::kKey),
      MakeColumn("value_ns", "value", U::kNs),
      MakeColumn("median_ns", "median", U::kNs),
      MakeColumn("mad_ns", "MAD", U::kNs),
      MakeColumn("excess_pct", "excess", U::kPercent),
      MakeColumn("robust_z", "robust z", U::kRatio),
      MakeColumn("reading", "reading", U::kText, ColumnRole::kLabel),
  });
  for (const RankOutlier& outlier : analysis.outliers) {
    table.AddRow({analysis.ids[outlier.rank_index], std::string(RankMetricName(outlier.metric)),
                  NsFigure(outlier.value_ns), NsFigure(outlier.median_ns), NsFigure(outlier.mad_ns),
                  OptionalCell(outlier.excess_pct), OptionalCell(outlier.robust_z),
                  std::string(RankMetricReading(outlier.metric))});
  }
  return table;
}

Table CollectiveTable(const RankSetAnalysis& analysis, size_t limit) {
  Table table({
      MakeColumn("step", "step", U::kCount, ColumnRole::kKey),
      MakeColumn("order", "order", U::kCount, ColumnRole::kKey),
      MakeColumn("spread_ns", "spread", U::kNs),
      MakeColumn("earliest_arrival_ns", "earliest", U::kNs),
      MakeColumn("latest_arrival_ns", "latest", U::kNs),
      MakeColumn("last_rank", "last rank", U::kCount),
      MakeColumn("name", "collective", U::kName, ColumnRole::kKey),
  });
  const std::vector<CollectiveSkew>& instances = analysis.skew.instances;
  for (size_t i = 0; i < instances.size() && i < limit; ++i) {
    const CollectiveSkew& skew = instances[i];
    table.AddRow(
        {static_cast<int64_t>(skew.step + 1), static_cast<int64_t>(skew.order + 1),
         skew.spread_ns(), skew.earliest_arrival_ns, skew.latest_arrival_ns,
         skew.spread_ns() > 0 ? TableCell(analysis.ids[skew.last_rank_index]) : TableCell(),
         skew.name});
  }
  return table;
}

// Ops on devices other than each rank's analysed one: not counted, said.
std::string OtherDevicesNote(const RankSetAnalysis& analysis) {
  size_t ranks = 0;
  int64_t ops = 0;
  for (const RankSummary& rank : analysis.ranks) {
    if (rank.other_device_ops == 0) continue;
    ++ranks;
    ops += rank.other_device_ops;
  }
  if (ranks == 0) return "";
  return fmt::format(
      "{} trace{} ha{} ops on other devices than the busiest one analysed: {} ops not counted",
      ranks, ranks == 1 ? "" : "s", ranks == 1 ? "s" : "ve", ops);
}

// The ranks' steps, for the preamble: "steps: LABEL" when every rank has the same, else a line
// per label with its ranks (most ranks first; the commonest by count only; 4 labels at most, the
// rest counted). The label comes last: it may hold "; " itself.
std::vector<std::string> StepsLines(const RankSetAnalysis& analysis) {
  constexpr std::string_view kMeans = "; busy and idle figures are means per step";
  std::vector<std::pair<std::string, std::vector<size_t>>> groups;  // in first-rank order
  std::map<std::string_view, size_t> group_of;
  for (size_t r = 0; r < analysis.ranks.size(); ++r) {
    const std::string& label = analysis.ranks[r].steps_label;
    auto [it, inserted] = group_of.try_emplace(label, groups.size());
    if (inserted) groups.push_back({label, {}});
    groups[it->second].second.push_back(r);
  }
  if (groups.empty()) return {};
  if (groups.size() == 1) return {fmt::format("steps: {}{}", groups.front().first, kMeans)};
  std::stable_sort(groups.begin(), groups.end(),
                   [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  std::vector<std::string> lines = {
      fmt::format("steps: differ between ranks ({} labels){}", groups.size(), kMeans)};
  constexpr size_t kShown = 4;  // labels listed; every rank's is in CSV and JSON
  for (size_t g = 0; g < groups.size() && g < kShown; ++g) {
    const auto& [label, indices] = groups[g];
    // A duplicated id with its trace's name (RankListLabel).
    std::string which =
        g == 0 ? "" : fmt::format(" ({})", RankListLabel(analysis.ranks, analysis.ids, indices));
    lines.push_back(fmt::format("  on {} rank{}{}: {}", indices.size(),
                                indices.size() == 1 ? "" : "s", which, label));
  }
  if (groups.size() > kShown) {
    size_t ranks = 0;
    for (size_t g = kShown; g < groups.size(); ++g)
      ranks += groups[g].second.size();
    const size_t more = groups.size() - kShown;
    lines.push_back(
        fmt::format("  on {} more rank{}: {} more label{} (steps_label in CSV and JSON)", ranks,
                    ranks == 1 ? "" : "s", more, more == 1 ? "" : "s"));
  }
  return lines;
}

// GPU work outside every step: not counted, said per rank (the first 8 ranks that have any, then
// the rest summed up; every rank's counts are in CSV and JSON).
std::vector<std::string> OutsideStepsNotes(const RankSetAnalysis& analysis) {
  std::vector<std::string> notes;
  size_t more_ranks = 0;
  int64_t more_ops = 0;
  int64_t more_busy_ns = 0;
  for (size_t r = 0; r < analysis.ranks.size(); ++r) {
    const RankSummary& rank = analysis.ranks[r];
    if (rank.ops_outside_steps == 0 && rank.busy_outside_steps_ns == 0) continue;
    if (notes.size() < 8) {
      // No op wholly outside, yet busy time outside: ops that cross a step's edge.
      notes.push_back(
          rank.ops_outside_steps == 0
              ? fmt::format("{}: {} of busy time lies outside the steps, in ops that cross a "
                            "step's edge; not counted",
                            RankLabel(analysis.ranks, analysis.ids, r),
                            FormatDurationNs(rank.busy_outside_steps_ns))
              : fmt::format("{}: {} op(s) ({} busy) lie outside the steps, not counted",
                            RankLabel(analysis.ranks, analysis.ids, r), rank.ops_outside_steps,
                            FormatDurationNs(rank.busy_outside_steps_ns)));
      continue;
    }
    ++more_ranks;
    more_ops += rank.ops_outside_steps;
    more_busy_ns += rank.busy_outside_steps_ns;
  }
  if (more_ranks > 0) {
    notes.push_back(fmt::format(
        "{} more rank{}: {} op(s) ({} busy) lie outside the steps, not counted (per rank: "
        "ops_outside_steps, busy_outside_steps_ns in CSV and JSON)",
        more_ranks, more_ranks == 1 ? "" : "s", more_ops, FormatDurationNs(more_busy_ns)));
  }
  return notes;
}

// Ranks whose reader skipped records with data loss: their figures rest on a partly read trace
// (the reader's reasons are on stderr; per rank: records_lost in CSV and JSON). The first 8 such
// ranks, then the rest summed up.
std::vector<std::string> RecordsLostWarnings(const RankSetAnalysis& analysis) {
  std::vector<std::string> warnings;
  size_t more_ranks = 0;
  int64_t more_records = 0;
  for (size_t r = 0; r < analysis.ranks.size(); ++r) {
    const int64_t lost = analysis.ranks[r].records_lost;
    if (lost == 0) continue;
    if (warnings.size() < 8) {
      warnings.push_back(
          fmt::format("{}: the reader skipped {} record{} with data loss: its figures rest on "
                      "a partly read trace",
                      RankLabel(analysis.ranks, analysis.ids, r), lost, lost == 1 ? "" : "s"));
      continue;
    }
    ++more_ranks;
    more_records += lost;
  }
  if (more_ranks > 0) {
    warnings.push_back(fmt::format(
        "{} more rank{}: the reader skipped {} record{} with data loss (per rank: records_lost in "
        "CSV and JSON)",
        more_ranks, more_ranks == 1 ? "" : "s", more_records, more_records == 1 ? "" : "s"));
  }
  return warnings;
}

// The ranks left out of the step-based comparisons, for the stragglers' and skew's lines.
std::string LeftOutLine(const RankSetAnalysis& analysis) {
  const std::vector<size_t>& left_out = analysis.whole_trace_left_out;
  return fmt::format("{} rank{} with no step ranges left out (whole trace, no step): {}",
                     left_out.size(), left_out.size() == 1 ? "" : "s",
                     RankListLabel(analysis.ranks, analysis.ids, left_out));
}

std::string RuleLine(const OutlierRule& rule) {
  return fmt::format(
      "rule: an outlier is above the median of the ranks by more than {} robust z "
      "(0.6745 x excess / MAD), by at least {} % and by at least {} % of the median step; "
      "needs {} ranks",
      ShortestDouble(rule.z), ShortestDouble(rule.min_excess_pct),
      ShortestDouble(rule.min_excess_of_step_pct), rule.min_ranks);
}

// The rank that arrives last most often, for the collectives' summary line.
std::string SkewLine(const RankSetAnalysis& analysis) {
  if (analysis.compared_ranks() < 2) {
    return fmt::format("fewer than 2 ranks{}: no collective skew",
                       analysis.whole_trace_left_out.empty() ? "" : " with step ranges");
  }
  const SkewSummary& skew = analysis.skew;
  std::string line = fmt::format("{} collective instance{} on every rank{}", skew.instances.size(),
                                 skew.instances.size() == 1 ? "" : "s",
                                 analysis.whole_trace_left_out.empty() ? "" : " with step ranges");
  // Instances left out: of a name whose count in a step differs between ranks (any instance on
  // some ranks only is one of those).
  if (const size_t left_out = skew.unaligned_instances + skew.partial_instances; left_out > 0) {
    const size_t names = skew.differing_steps.size();
    const bool whole_traces = std::all_of(analysis.ranks.begin(), analysis.ranks.end(),
                                          [](const RankSummary& rank) { return rank.whole_trace; });
    line += fmt::format(
        " ({} more of {} collective name{} whose count {}differs between ranks, not "
        "compared)",
        left_out, names, names == 1 ? "" : "s", whole_traces ? "" : "in a step ");
  }
  size_t most = 0;
  for (size_t times : skew.times_last)
    most = std::max(most, times);
  if (most > 0) {
    // Every rank that arrives last that often: on a tie none is singled out.
    std::vector<size_t> last;
    for (size_t r = 0; r < skew.times_last.size(); ++r) {
      if (skew.times_last[r] == most) last.push_back(r);
    }
    line += last.size() == 1
                ? fmt::format("; {} arrives last at {} of them",
                              RankLabel(analysis.ranks, analysis.ids, last.front()), most)
                : fmt::format("; {} arrive last at {} of them each",
                              RankListLabel(analysis.ranks, analysis.ids, last), most);
  }
  return line;
}

// "ranks 2, 3", or "rank 0 (a.sqlite), rank 0 (b.sqlite)" where an id is held twice.

// Ranks compared that have no collective kernel at all while others have: named, with the most
// any rank has ("" when none or all have none).
std::string NoCollectivesLine(const RankSetAnalysis& analysis) {
  const std::vector<size_t>& counts = analysis.skew.collectives_per_rank;
  std::vector<bool> left_out(analysis.ranks.size(), false);
  for (size_t r : analysis.whole_trace_left_out)
    left_out[r] = true;
  std::vector<size_t> none;
  size_t most = 0;
  for (size_t r = 0; r < counts.size() && r < left_out.size(); ++r) {
    if (left_out[r]) continue;
    most = std::max(most, counts[r]);
    if (counts[r] == 0) none.push_back(r);
  }
  if (none.empty() || most == 0) return "";
  return fmt::format(
      "{} of {} ranks ha{} no collective kernel while the others have (up to {}): {}", none.size(),
      analysis.compared_ranks(), none.size() == 1 ? "s" : "ve", most,
      RankListLabel(analysis.ranks, analysis.ids, none));
}

}  // namespace

std::string JoinRankIds(const std::vector<int64_t>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size() && i < 8; ++i)
    text += (i == 0 ? "" : ", ") + std::to_string(ids[i]);
  if (ids.size() > 8) text += fmt::format(" and {} more", ids.size() - 8);
  return text;
}

Table RankTable(const RankSetAnalysis& analysis) {
  Table table(RankColumns());
  for (size_t r = 0; r < analysis.ranks.size(); ++r) {
    const RankSummary& rank = analysis.ranks[r];
    std::string from = analysis.from_file_order[r] ? "file order" : rank.rank_origin;
    double idle = NsFigure(rank.MeanIdle(&IdleBreakdown::host_bound_ns) +
                           rank.MeanIdle(&IdleBreakdown::waiting_ns) +
                           rank.MeanIdle(&IdleBreakdown::other_ns));
    std::string straggler = StragglerLabel(analysis, r);
    table.AddRow({analysis.ids[r],
                  from,
                  rank.format,
                  static_cast<int64_t>(rank.device_id),
                  rank.device_name,
                  rank.other_device_ops,
                  static_cast<int64_t>(rank.steps.size()),
                  rank.steps_label,
                  rank.ops_outside_steps,
                  rank.busy_outside_steps_ns,
                  rank.records_lost,
                  NsFigure(rank.step_median_ns),
                  NsFigure(rank.step_p95_ns),
                  NsFigure(rank.MeanPerStep(&StepFigures::compute_busy_ns)),
                  NsFigure(rank.MeanPerStep(&StepFigures::comm_busy_ns)),
                  NsFigure(rank.MeanPerStep(&StepFigures::overlap_ns)),
                  NsFigure(rank.MeanExposedCommNs()),
                  NsFigure(rank.MeanPerStep(&StepFigures::copy_busy_ns)),
                  idle,
                  NsFigure(rank.MeanIdle(&IdleBreakdown::host_bound_ns)),
                  NsFigure(rank.MeanIdle(&IdleBreakdown::waiting_ns)),
                  NsFigure(rank.MeanIdle(&IdleBreakdown::other_ns)),
                  static_cast<int64_t>(analysis.skew.times_last[r]),
                  straggler.empty() ? TableCell() : TableCell(straggler),
                  rank.source,
                  std::filesystem::path(rank.source).filename().string()});
  }
  return table;
}

std::vector<std::string> RankSetPreamble(const RankSetAnalysis& analysis) {
  std::vector<std::string> lines = StepsLines(analysis);
  for (const std::string& note : analysis.notes)
    lines.push_back("note: " + note);
  std::string elsewhere = OtherDevicesNote(analysis);
  if (!elsewhere.empty()) lines.push_back("note: " + elsewhere);
  for (const std::string& note : OutsideStepsNotes(analysis))
    lines.push_back("note: " + note);
  for (const std::string& warning : RecordsLostWarnings(analysis))
    lines.push_back("warning: " + warning);
  return lines;
}

ReportDocument RanksDocument(const RanksReport& report) {
  const RankSetAnalysis& analysis = report.analysis;
  ReportDocument document;
  document.columns = RankColumns();
  document.per_device = false;
  document.trace_count = 1;

  ReportSection ranks;
  ranks.heading = fmt::format("ranks: {} trace{}", analysis.ranks.size(),
                              analysis.ranks.size() == 1 ? "" : "s");
  if (analysis.world_size) ranks.heading += fmt::format(", world size {}", *analysis.world_size);
  ranks.preamble = RankSetPreamble(analysis);
  ranks.table = RankTable(analysis);
  for (const std::string& warning : analysis.warnings)
    ranks.footer.push_back("warning: " + warning);
  for (const FailedTrace& failed : report.failed)
    ranks.footer.push_back(fmt::format("not analysed: {}", failed.message));
  document.sections.push_back(std::move(ranks));

  ReportSection stragglers;
  stragglers.heading = "stragglers";
  stragglers.preamble.push_back(RuleLine(analysis.rule));
  if (!analysis.whole_trace_left_out.empty()) stragglers.preamble.push_back(LeftOutLine(analysis));
  for (const Straggler& straggler : analysis.stragglers)
    stragglers.preamble.push_back(StragglerLine(analysis, straggler));
  stragglers.table = OutlierTable(analysis);
  stragglers.when_empty =
      analysis.compared_ranks() < analysis.rule.min_ranks
          ? fmt::format("fewer than {} ranks{}: no outlier rule applied", analysis.rule.min_ranks,
                        analysis.whole_trace_left_out.empty() ? "" : " with step ranges")
          : "no rank is an outlier on any metric";
  stragglers.in_csv = false;
  document.sections.push_back(std::move(stragglers));

  ReportSection collectives;
  collectives.heading = "collective skew";
  collectives.preamble.push_back(SkewLine(analysis));
  if (!analysis.whole_trace_left_out.empty()) {
    collectives.preamble.push_back(LeftOutLine(analysis));
  }
  std::string no_collectives = NoCollectivesLine(analysis);
  if (!no_collectives.empty()) collectives.preamble.push_back(std::move(no_collectives));
  collectives.table = CollectiveTable(analysis, report.collective_rows);
  // With fewer than 2 ranks the skew line says why there is no table.
  // Nor when the skew line counts instances left out (of names whose counts differ).
  collectives.when_empty =
      analysis.compared_ranks() < 2 ||
              analysis.skew.unaligned_instances + analysis.skew.partial_instances > 0
          ? ""
          : "no collective kernel on every rank";
  if (analysis.skew.instances.size() > report.collective_rows) {
    collectives.footer.push_back(
        fmt::format("{} more instances with a smaller spread (all are in the JSON output)",
                    analysis.skew.instances.size() - report.collective_rows));
  }
  collectives.in_csv = false;
  document.sections.push_back(std::move(collectives));
  return document;
}

std::string StragglerLabel(const RankSetAnalysis& analysis, size_t rank_index) {
  for (const Straggler& straggler : analysis.stragglers) {
    if (straggler.rank_index != rank_index) continue;
    return straggler.cause ? std::string(RankMetricReading(*straggler.cause)) : "yes";
  }
  return "";
}

std::string StragglerLine(const RankSetAnalysis& analysis, const Straggler& straggler) {
  std::string line =
      fmt::format("{}:", RankLabel(analysis.ranks, analysis.ids, straggler.rank_index));
  for (size_t i = 0; i < straggler.outliers.size(); ++i) {
    const RankOutlier& outlier = straggler.outliers[i];
    const std::string excess =
        outlier.excess_pct ? fmt::format("+{} % vs median", FixedDouble(*outlier.excess_pct, 1))
                           : fmt::format("{} vs median 0",
                                         FormatDurationNs(static_cast<int64_t>(outlier.value_ns)));
    line += fmt::format("{} {} {}", i == 0 ? "" : ",", RankMetricName(outlier.metric), excess);
  }
  if (straggler.cause) {
    line += fmt::format(": {} straggler", RankMetricReading(*straggler.cause));
  } else {
    line += ": straggler, no single cause stands out";
  }
  return line;
}

std::string RenderRanksJson(const RanksReport& report) {
  const RankSetAnalysis& analysis = report.analysis;
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.ranks/1", report.tool_version);
  WriteTextOrNullJson(json, "iteration_range", report.iteration_range);
  json.Key("world_size").Int(analysis.world_size);
  json.Key("rule").BeginObject();
  json.Key("robust_z").Double(analysis.rule.z);
  json.Key("min_excess_pct").Double(analysis.rule.min_excess_pct);
  json.Key("min_excess_of_step_pct").Double(analysis.rule.min_excess_of_step_pct);
  json.Key("min_ranks").UInt(analysis.rule.min_ranks);
  json.EndObject();
  json.Key("ranks");
  WriteTableRowsJson(json, RankTable(analysis));
  json.Key("outliers");
  WriteTableRowsJson(json, OutlierTable(analysis));
  json.Key("stragglers").BeginArray();
  for (const Straggler& straggler : analysis.stragglers) {
    json.BeginObject();
    json.Key("rank").Int(analysis.ids[straggler.rank_index]);
    json.Key("cause");
    if (straggler.cause) {
      json.String(RankMetricName(*straggler.cause));
    } else {
      json.Null();
    }
    json.Key("summary").String(StragglerLine(analysis, straggler));
    json.EndObject();
  }
  json.EndArray();
  json.Key("collectives").BeginObject();
  json.Key("matched").UInt(analysis.skew.instances.size());
  json.Key("partial").UInt(analysis.skew.partial_instances);
  json.Key("unaligned").UInt(analysis.skew.unaligned_instances);
  json.Key("instances");
  WriteTableRowsJson(json, CollectiveTable(analysis, analysis.skew.instances.size()));
  json.EndObject();
  WriteStringArrayJson(json, "warnings", analysis.warnings);
  WriteStringArrayJson(json, "notes", analysis.notes);
  json.Key("failed").BeginArray();
  for (const FailedTrace& failed : report.failed) {
    json.BeginObject().Key("path").String(failed.path);
    json.Key("error").String(failed.message).EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace gpuroof
