#include <fmt/format.h>

#include "gpuroof/format/table_markdown.h"
#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {

namespace {

// Text outside the metrics table (headline, summary, warnings) is escaped as the table's cells
// are: a kernel's "<float>" would otherwise vanish as an HTML tag.
std::string Cell(const std::string& text) {
  return EscapeMarkdown(text);
}

std::string_view Icon(const MetricComparison& m) {
  if (m.verdict == Verdict::kRegressed) return m.gated ? "❌" : "⚠️";
  if (m.verdict == Verdict::kImproved) return "✅";
  if (m.verdict == Verdict::kInconclusive || m.verdict == Verdict::kLowN ||
      m.verdict == Verdict::kChanged || m.verdict == Verdict::kNew ||
      m.verdict == Verdict::kRemoved) {
    return "⚠️";
  }
  return "";
}

// The metrics table of the comment: an icon, the metric and its figures as compare_cells writes
// them; the Markdown writer escapes the cells. History mode: the bracket is the band the history
// predicts for an unchanged run, not a confidence interval; its level is 1 - 2 alpha (one-sided
// at 1 - alpha each way), as the text and HTML headings say.
Table MetricsTable(const std::vector<const MetricComparison*>& metrics, bool history,
                   double alpha) {
  using U = ColumnUnit;
  const double level = history ? 1 - 2 * alpha : 1 - alpha;
  Table table({
      MakeColumn("icon", "", U::kText, ColumnRole::kLabel),
      MakeColumn("metric", "metric", U::kText, ColumnRole::kKey),
      MakeColumn("baseline", "baseline", U::kFigure),
      MakeColumn("current", "current", U::kFigure),
      MakeColumn("delta", fmt::format("Δ ({:g}% {})", 100 * level, history ? "band" : "CI"),
                 U::kFigure),
      MakeColumn("p", "p", U::kFigure),
      MakeColumn("verdict", "verdict", U::kText, ColumnRole::kLabel),
  });
  for (const MetricComparison* m : metrics) {
    table.AddRow({std::string(Icon(*m)), MetricLabel(*m), SideValue(*m, m->baseline),
                  SideValue(*m, m->current), DeltaCell(*m), PValueCell(*m), VerdictCell(*m)});
  }
  return table;
}

}  // namespace

std::string RenderCompareMarkdown(const CompareReport& report) {
  const CompareResult& r = report.result;
  // Green only for a pass that rests on gated, checked metrics; the reasons say what is missing.
  std::string headline;
  if (r.verdict == "regression") {
    headline = fmt::format("### ❌ GPU performance gate: {} regression{}", r.summary.failed,
                           r.summary.failed == 1 ? "" : "s");
  } else if (r.verdict == "pass") {
    headline = "### ✅ GPU performance gate: pass";
  } else if (r.verdict == "exploratory") {
    headline = std::string("### 🔍 GPU diff across hardware (exploratory, not a gate)") +
               (r.exit_code == 1 ? ": --fail-on matched" : "");
  } else {
    headline =
        (r.exit_code == 1 ? "### ❌ GPU performance gate: " : "### ⚠️ GPU performance gate: ") +
        Cell(ResultLine(r));
  }
  headline += "\n\n" + Cell(SummaryLine(r));
  std::string out = headline + "\n";
  const std::string device = !report.baseline.empty()  ? report.baseline.front().device_model
                             : !report.current.empty() ? report.current.front().device_model
                                                       : std::string();
  const bool history = r.mode == CompareMode::kHistory;
  const std::string baseline_text = history ? Cell("history: " + HistoryRunsText(r))
                                            : fmt::format("{} baseline", report.baseline.size());
  out += fmt::format(
      "{} → {} current profile(s) · {} · {} · α={:g} · floor {:g}% · min "
      "effect {:g}%\n\n",
      baseline_text, report.current.size(), Cell(device), CompareModeName(r.mode), r.settings.alpha,
      r.mode == CompareMode::kSingleRun ? 100 * r.settings.floor_time : 0.0,
      100 * r.settings.min_effect);
  // Offenders: gated metrics that are not clean, then any other flagged one, at most ten.
  std::vector<const MetricComparison*> offenders;
  for (int pass = 0; pass < 2; ++pass) {
    for (const MetricComparison& m : r.metrics) {
      if (offenders.size() >= 10 || Icon(m).empty() || m.verdict == Verdict::kImproved) continue;
      if ((pass == 0) == m.gated) offenders.push_back(&m);
    }
  }
  if (!offenders.empty())
    out += RenderTableMarkdown(MetricsTable(offenders, history, r.settings.alpha)) + "\n";
  std::string tail = "\n</details>\n\n";
  tail += "`~` = no significant change";
  for (const MetricComparison& m : r.metrics) {
    if (m.gated && m.mde && m.level == MetricLevel::kIteration) {
      tail += fmt::format(" · detectable change at this noise level ≈ {:.1f}%", 100 * *m.mde);
      break;
    }
  }
  for (const std::string& w : r.warnings)
    tail += "\n\n⚠️ " + Cell(w);
  tail += "\n";
  out += fmt::format("<details><summary>All {} metrics</summary>\n\n", r.metrics.size());
  std::vector<const MetricComparison*> all;
  for (const MetricComparison& m : r.metrics)
    all.push_back(&m);
  // One line per row: the rows that fit, leaving room for the tail and the truncation note.
  const std::string table = RenderTableMarkdown(MetricsTable(all, history, r.settings.alpha));
  const size_t budget = kMarkdownLimitBytes - tail.size() - 200;
  size_t lines = 0;  // header, rule, then the rows
  size_t end = 0;
  while (end < table.size()) {
    const size_t next = table.find('\n', end) + 1;
    if (lines >= 2 && out.size() + next > budget) {
      out += table.substr(0, end);
      out += fmt::format("\n… {} more metric(s) left out to stay under 60 KB (see --json)\n",
                         r.metrics.size() - (lines - 2));
      return out + tail;
    }
    end = next;
    ++lines;
  }
  out += table;
  return out + tail;
}

}  // namespace gpuroof
