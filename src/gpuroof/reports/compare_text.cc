#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "gpuroof/format/table_text.h"
#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {

namespace {

// The metric labels of the text table (ShortKernelLabel, NumberAlikeLabels). The JSON and the
// Markdown keep the whole key.
std::vector<std::string> TextLabels(const CompareResult& r) {
  std::vector<std::string> shown;
  std::vector<std::string> full;
  for (const MetricComparison& m : r.metrics) {
    full.push_back(MetricLabel(m));
    shown.push_back(m.level == MetricLevel::kKernel
                        ? ShortKernelLabel(m.name, full.back(), m.gated ? "" : " (report)")
                        : full.back());
  }
  NumberAlikeLabels(shown, full);
  return shown;
}

// One row per metric, the figures as compare_cells writes them (docs/regression-gate.md).
Table MetricsTable(const CompareResult& r) {
  using U = ColumnUnit;
  // History mode: the bracket is the band the history predicts for an unchanged run, one-sided
  // at 1 - alpha each way, so it holds 1 - 2 alpha of unchanged runs (98 % at alpha 0.01).
  const bool history = r.mode == CompareMode::kHistory;
  const std::string_view bracket = history ? "band" : "CI";
  const double level = history ? 1 - 2 * r.settings.alpha : 1 - r.settings.alpha;
  std::vector<TableColumn> columns = {
      MakeColumn("metric", "metric", U::kName, ColumnRole::kKey),
      MakeColumn("baseline", "baseline", U::kFigure),
      MakeColumn("current", "current", U::kFigure),
      MakeColumn("delta", fmt::format("delta ({:g}% {})", 100 * level, bracket), U::kFigure),
      MakeColumn("p", "p", U::kFigure),
      MakeColumn("n", "n", U::kFigure),
  };
  // Kernel level without iterations: each kernel's own warm-up, dropped launches per side.
  const bool trims = HasKernelTrims(r);
  if (trims) columns.push_back(MakeColumn("warm_up", "warm-up", U::kFigure));
  columns.push_back(MakeColumn("verdict", "verdict", U::kFigure, ColumnRole::kLabel));
  Table table(std::move(columns));
  const std::vector<std::string> labels = TextLabels(r);
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    const MetricComparison& m = r.metrics[i];
    std::vector<TableCell> row = {labels[i],
                                  SideValueWithSpread(m, m.baseline),
                                  SideValueWithSpread(m, m.current),
                                  DeltaCell(m),
                                  PValueCell(m),
                                  CountCell(m)};
    if (trims) row.emplace_back(TrimCell(m));
    row.emplace_back(VerdictCell(m));
    table.AddRow(std::move(row));
  }
  return table;
}

// The delta column's heading names one level; say where rows differ from it (docs/metrics.md).
std::string IntervalNotes(const CompareResult& r) {
  std::string out;
  size_t family = 0;
  std::optional<double> family_level;
  for (const MetricComparison& m : r.metrics) {
    // History rows: bands at the heading's level (kernels Holm-adjusted on p only).
    if (m.level != MetricLevel::kKernel || !m.gated || r.mode == CompareMode::kHistory) continue;
    ++family;
    if (m.ci_level > 0 && std::fabs(m.ci_level - (1 - r.settings.alpha)) > 1e-12)
      family_level = m.ci_level;
  }
  if (family_level) {
    out += fmt::format(
        "gated kernels: intervals at {:g}% (Bonferroni over {} gated kernels), p Holm-adjusted\n",
        100 * *family_level, family);
  }
  if (r.mode == CompareMode::kHistory) {
    out += fmt::format(
        "history rows: [low, high] is the band of ratios the history predicts for an unchanged "
        "run ({:g}%: {:g}% one-sided each way), not an interval around the estimate\n",
        100 * (1 - 2 * r.settings.alpha), 100 * (1 - r.settings.alpha));
  }
  return out;
}

// Each line of `text` wrapped at the text tables' width (WrapLine).
std::string WrapEachLine(const std::string& text) {
  std::string out;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += WrapLine(text.substr(start, end - start), TextTableOptions{}.max_width) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string RenderCompareText(const CompareReport& report) {
  const CompareResult& r = report.result;
  std::string out;
  out += report.history_source.empty() ? "baseline: " + SideLine(report.baseline) + "\n"
                                       : fmt::format("baseline: history {} ({})\n",
                                                     report.history_source, HistoryRunsText(r));
  out += "current : " + SideLine(report.current) + "\n";
  out += ModeLine(r) + "\n";
  if (const std::string devices = DevicesLine(r); !devices.empty()) out += devices + "\n";
  out += "\n";
  std::string table = RenderTableText(MetricsTable(r), CompareTableOptions("--json or --markdown"));
  // Context lines wrap at the table's width (docs/formats.md, "Tables"); the table fits it.
  out = WrapEachLine(out) + table;
  const size_t context = out.size();
  out += IntervalNotes(r);
  if (r.geomean_weighted) {
    out +=
        fmt::format("geomean (gated kernels, weighted): {}  plain: {}\n",
                    RatioPercent(*r.geomean_weighted), RatioPercent(r.geomean_plain.value_or(1)));
  }
  std::string mde;
  for (const MetricComparison& m : r.metrics) {
    if (!m.gated || !m.mde) continue;
    if (m.level != MetricLevel::kIteration && m.level != MetricLevel::kGpuBusy) continue;
    mde +=
        fmt::format("{}{} {:.1f}%", mde.empty() ? "" : ", ",
                    m.level == MetricLevel::kIteration ? "iteration" : "GPU busy", 100.0 * *m.mde);
  }
  if (!mde.empty()) out += "minimum detectable effect: " + mde + "\n";
  if (r.noise_sd) out += fmt::format("run-to-run noise (sigma_s): {:.2f}%\n", 100 * *r.noise_sd);
  for (const auto* side : {&report.baseline, &report.current})
    for (const ProfileSummary& p : *side)
      for (const std::string& w : p.warnings)
        out += w.rfind("note: ", 0) == 0 ? fmt::format("note: {}: {}\n", p.path, w.substr(6))
                                         : fmt::format("warning: {}: {}\n", p.path, w);
  for (const std::string& w : r.warnings)
    out += "warning: " + w + "\n";
  out += "summary: " + SummaryLine(r) + "\n";
  out += "result: " + ResultLine(r) + "\n";
  return out.substr(0, context) + WrapEachLine(out.substr(context));
}

}  // namespace gpuroof
