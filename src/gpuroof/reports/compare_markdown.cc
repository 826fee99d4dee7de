#include <fmt/format.h>

#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {

namespace {

// Table cells: a '|' would end the cell and a newline the row.
std::string Cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
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

std::string Row(const MetricComparison& m) {
  return fmt::format("| {} | {} | {} | {} | {} | {} | {} |\n", Icon(m), Cell(MetricLabel(m)),
                     Cell(SideValue(m, m.baseline)), Cell(SideValue(m, m.current)),
                     Cell(DeltaCell(m)), PValueCell(m), Cell(VerdictCell(m)));
}

constexpr std::string_view kHeader =
    "| | metric | baseline | current | Δ (CI) | p | verdict |\n|---|---|---|---|---|---|---|\n";

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
  out += fmt::format(
      "{} baseline → {} current profile(s) · {} · {} · α={:g} · floor {:g}% · min "
      "effect {:g}%\n\n",
      report.baseline.size(), report.current.size(), Cell(device), CompareModeName(r.mode),
      r.settings.alpha, r.mode == CompareMode::kSingleRun ? 100 * r.settings.floor_time : 0.0,
      100 * r.settings.min_effect);
  // Offenders: gated metrics that are not clean, then any other flagged one, at most ten.
  std::string offenders;
  size_t shown = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (const MetricComparison& m : r.metrics) {
      if (shown >= 10 || Icon(m).empty() || m.verdict == Verdict::kImproved) continue;
      if ((pass == 0) != m.gated) continue;
      offenders += Row(m);
      ++shown;
    }
  }
  if (!offenders.empty()) out += std::string(kHeader) + offenders + "\n";
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
  out += kHeader;
  // Leave room for the tail and the truncation note.
  const size_t budget = kMarkdownLimitBytes - tail.size() - 200;
  size_t written = 0;
  for (const MetricComparison& m : r.metrics) {
    std::string row = Row(m);
    if (out.size() + row.size() > budget) {
      out += fmt::format("\n… {} more metric(s) left out to stay under 60 KB (see --json)\n",
                         r.metrics.size() - written);
      break;
    }
    out += row;
    ++written;
  }
  return out + tail;
}

}  // namespace gpuroof
