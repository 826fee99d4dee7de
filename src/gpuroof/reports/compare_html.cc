// `gpuroof compare --html`: the verdict of the gate as one self-contained page in the report's
// style (docs/formats.md, "compare --html"): status, inputs, a ratio chart with every estimated
// metric's interval against its noise floor, the verdict table, warnings.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuroof/format/html_writer.h"
#include "gpuroof/format/table_text.h"
#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"
#include "gpuroof/reports/html_style.h"
#include "gpuroof/reports/html_svg.h"

namespace gpuroof {

namespace {

// The chart shows the gated metrics and the largest other changes; a page for a PR stays short.
constexpr size_t kChartRows = 40;
constexpr double kRowHeight = 18;
constexpr double kLabelWidth = 330;
constexpr double kPlotWidth = 420;
constexpr double kVerdictWidth = 190;
constexpr double kTop = 24;  // room for the axis ticks
constexpr double kBottom = 8;

std::string_view VerdictClass(const MetricComparison& m) {
  if (m.verdict == Verdict::kRegressed) return "v-regressed";
  if (m.verdict == Verdict::kImproved) return "v-improved";
  return "v-other";
}

// Green ("pass") only for a plain PASS: a pass with warnings, an exploratory diff or an
// inconclusive result is amber, a failure red.
void WriteStatus(HtmlWriter& html, const CompareResult& r) {
  const std::string_view status = r.exit_code == 1      ? "status fail"
                                  : r.verdict == "pass" ? "status pass"
                                                        : "status warn";
  html.Element("p", ResultLine(r), {{"class", std::string(status)}});
  html.Element("p", SummaryLine(r), {{"class", "meta"}});
  if (const std::string devices = DevicesLine(r); !devices.empty()) {
    html.Element("p", devices, {{"class", "meta"}});
  }
}

void WriteInputs(HtmlWriter& html, const CompareReport& report) {
  html.Element("h2", "Inputs");
  std::vector<std::vector<HtmlCell>> rows;
  auto add_side = [&](std::string_view side, const std::vector<ProfileSummary>& profiles) {
    for (const ProfileSummary& p : profiles) {
      std::string iterations = "per-launch samples (no iterations)";
      if (p.has_iterations) {
        iterations = fmt::format("{}/{} steady (warm-up {} dropped), {}", p.steady_iterations,
                                 p.iterations, p.warmup_dropped, p.attribution);
      }
      std::string warnings;
      for (const std::string& w : p.warnings)
        warnings += (warnings.empty() ? "" : "; ") + w;
      rows.push_back({{std::string(side), "", ""},
                      {p.path, "path", ""},
                      {p.device_model, "", ""},
                      {iterations, "", ""},
                      {warnings, warnings.empty() ? "" : "note", ""}});
    }
  };
  if (!report.history_source.empty()) {
    rows.push_back({{"baseline", "", ""},
                    {report.history_source, "path", ""},
                    {"", "", ""},
                    {"history: " + HistoryRunsText(report.result), "", ""},
                    {"", "", ""}});
  }
  add_side("baseline", report.baseline);
  add_side("current", report.current);
  WriteHtmlTable(html, {"side", "profile", "GPU", "iterations", "warnings"}, rows, "inputs");
  html.Element("p", ModeLine(report.result), {{"class", "meta"}});
}

// Metrics with an estimated ratio, gated first (in the result's order), then the others by the
// size of their change, at most kChartRows.
std::vector<const MetricComparison*> ChartedMetrics(const CompareResult& r) {
  std::vector<const MetricComparison*> gated;
  std::vector<const MetricComparison*> others;
  for (const MetricComparison& m : r.metrics) {
    if (!m.ratio || m.method == "exact") continue;
    (m.gated ? gated : others).push_back(&m);
  }
  std::stable_sort(others.begin(), others.end(), [](const auto* a, const auto* b) {
    return std::fabs(std::log(*a->ratio)) > std::fabs(std::log(*b->ratio));
  });
  gated.insert(gated.end(), others.begin(), others.end());
  if (gated.size() > kChartRows) gated.resize(kChartRows);
  return gated;
}

// Change in percent, as plotted: the ratio's distance from 1.
double ChangePercent(double ratio) {
  return 100.0 * (ratio - 1.0);
}

// The chart's half-range in percent: every point and interval end fits, and the floors of the
// gated metrics (a report-only copy floor of 35 % would squash everything else: its band is
// clipped at the edges instead), rounded up to a tidy step; at least 5 %, at most 100 % (beyond
// it a value is drawn at the edge and labelled).
double HalfRange(const std::vector<const MetricComparison*>& metrics) {
  double extent = 5.0;
  for (const MetricComparison* m : metrics) {
    extent = std::max(extent, std::fabs(ChangePercent(*m->ratio)));
    if (m->gated) extent = std::max(extent, 100.0 * m->floor);
    if (m->ci_low) extent = std::max(extent, std::fabs(ChangePercent(*m->ci_low)));
    if (m->ci_high) extent = std::max(extent, std::fabs(ChangePercent(*m->ci_high)));
  }
  for (double step : {5.0, 10.0, 20.0, 25.0, 50.0}) {
    if (extent <= step) return step;
  }
  return 100.0;
}

void WriteRatioChart(HtmlWriter& html, const CompareResult& r) {
  const std::vector<const MetricComparison*> metrics = ChartedMetrics(r);
  if (metrics.empty()) return;
  html.Element("h2", "Change per metric");
  size_t estimated = 0;
  for (const MetricComparison& m : r.metrics)
    if (m.ratio && m.method != "exact") ++estimated;
  const bool history = r.mode == CompareMode::kHistory;
  html.Element(
      "p",
      history ? fmt::format("Current against the history, in percent: the point is the estimate, "
                            "the line the band of changes the history predicts for an unchanged "
                            "run ({:g}%: {:g}% one-sided each way), not an interval around the "
                            "estimate. {} of {} estimated metrics shown, gated first.",
                            100.0 * (1.0 - 2.0 * r.settings.alpha),
                            100.0 * (1.0 - r.settings.alpha), metrics.size(), estimated)
              : fmt::format("Current against baseline, in percent: the point is the estimate, the "
                            "line its {:g}% interval (gated kernels: Bonferroni-widened), the grey "
                            "band the metric's noise floor. {} of {} estimated metrics shown, "
                            "gated first.",
                            100.0 * (1.0 - r.settings.alpha), metrics.size(), estimated),
      {{"class", "explain"}});
  const double half = HalfRange(metrics);
  const double height = kTop + kRowHeight * static_cast<double>(metrics.size()) + kBottom;
  const double width = kLabelWidth + kPlotWidth + kVerdictWidth;
  const double zero_x = kLabelWidth + kPlotWidth / 2;
  auto x_of = [&](double percent) {
    return zero_x + std::clamp(percent, -half, half) / half * (kPlotWidth / 2);
  };
  SvgBuilder svg(width, height, "ratios",
                 history ? "change per metric with the history's bands"
                         : "change per metric with confidence intervals");
  for (double tick : {-half, -half / 2, 0.0, half / 2, half}) {
    svg.Line(x_of(tick), kTop - 4, x_of(tick), height - kBottom, tick == 0 ? "zero" : "grid");
    svg.Text(x_of(tick), kTop - 8, fmt::format("{:+g}%", tick), "tick", "middle");
  }
  // Labels keep both ends (kernels that share a long prefix differ at the end), numbered when
  // they would still read alike; ~6 px per character at 11 px fits 46 in the label column.
  std::vector<std::string> labels;
  for (const MetricComparison* m : metrics)
    labels.push_back(MetricLabel(*m));
  const std::vector<std::string> shown_labels = ElideLabelsDistinct(labels, 46);
  for (size_t row = 0; row < metrics.size(); ++row) {
    const MetricComparison& m = *metrics[row];
    const double top = kTop + kRowHeight * static_cast<double>(row);
    const double mid = top + kRowHeight / 2;
    const std::string label = MetricLabel(m);
    svg.BeginGroup("metric");
    if (m.floor > 0) {
      svg.Rect(x_of(-100.0 * m.floor), top + 2, x_of(100.0 * m.floor) - x_of(-100.0 * m.floor),
               kRowHeight - 4, "floor", fmt::format("noise floor ±{:g}%", 100.0 * m.floor));
    }
    svg.Text(kLabelWidth - 8, mid + 4, shown_labels[row], m.gated ? "value" : "", "end");
    if (m.ci_low && m.ci_high) {
      svg.Line(x_of(ChangePercent(*m.ci_low)), mid, x_of(ChangePercent(*m.ci_high)), mid,
               fmt::format("ci {}", VerdictClass(m)));
    }
    const double change = ChangePercent(*m.ratio);
    const double x = x_of(change);
    svg.Rect(x - 3.5, mid - 3.5, 7, 7, std::string(VerdictClass(m)),
             fmt::format("{}: {}", label, DeltaCell(m)));
    if (std::fabs(change) > half) {
      svg.Text(change > 0 ? x - 6 : x + 6, mid - 5, RatioPercent(*m.ratio, 0), "clipped",
               change > 0 ? "end" : "start");
    }
    svg.Text(kLabelWidth + kPlotWidth + 8, mid + 4, VerdictCell(m),
             m.verdict == Verdict::kRegressed  ? "mark"
             : m.verdict == Verdict::kImproved ? "headroom"
                                               : "");
    svg.EndGroup();
  }
  html.Open("div", {{"class", "figure"}}).Raw(svg.Finish()).Close("div");
}

void WriteVerdictTable(HtmlWriter& html, const CompareReport& report) {
  const CompareResult& r = report.result;
  html.Element("h2", fmt::format("All {} metrics", r.metrics.size()));
  std::vector<std::vector<HtmlCell>> rows;
  for (const MetricComparison& m : r.metrics) {
    rows.push_back({{MetricLabel(m), "name", ""},
                    {m.gated ? "gated" : "report", "", ""},
                    {SideValueWithSpread(m, m.baseline), "num", ""},
                    {SideValueWithSpread(m, m.current), "num", ""},
                    {DeltaCell(m), "num", ""},
                    {PValueCell(m), "num", ""},
                    {CountCell(m), "num", ""},
                    {VerdictCell(m), std::string(VerdictClass(m)), ""}});
  }
  // History: the band holds 1 - 2 alpha of unchanged runs (1 - alpha one-sided each way).
  const bool history = r.mode == CompareMode::kHistory;
  const std::string delta = fmt::format(
      "delta ({:g}% {})", 100.0 * (1.0 - (history ? 2.0 : 1.0) * report.result.settings.alpha),
      history ? "band" : "CI");
  WriteHtmlTable(html, {"metric", "", "baseline", "current", delta, "p", "n", "verdict"}, rows,
                 "verdicts");
}

void WriteWarnings(HtmlWriter& html, const CompareResult& r) {
  std::vector<std::string> lines = r.warnings;
  if (r.geomean_weighted) {
    lines.insert(lines.begin(),
                 fmt::format("geomean of the gated kernels' time ratios: {} weighted by baseline "
                             "share, {} plain",
                             RatioPercent(*r.geomean_weighted),
                             RatioPercent(r.geomean_plain.value_or(1.0))));
  }
  if (r.noise_sd)
    lines.push_back(fmt::format("run-to-run noise (sigma_s): {:.2f}%", 100 * *r.noise_sd));
  if (lines.empty()) return;
  html.Element("h2", "Notes");
  html.Open("ul");
  for (const std::string& line : lines)
    html.Element("li", line);
  html.Close("ul");
}

}  // namespace

std::string RenderCompareHtml(const CompareReport& report) {
  HtmlWriter html;
  BeginHtmlPage(html, "gpuroof compare");
  html.Element("h1", "gpuroof compare");
  html.Element("p",
               fmt::format("gpuroof {} · warm-up {} · kernel key {}", report.tool_version,
                           report.warmup_text, report.kernel_key),
               {{"class", "meta"}});
  WriteStatus(html, report.result);
  WriteInputs(html, report);
  WriteRatioChart(html, report.result);
  WriteVerdictTable(html, report);
  WriteWarnings(html, report.result);
  html.Element("p",
               "Verdicts, floors and intervals are defined in gpuroof's docs/metrics.md "
               "(\"compare\").",
               {{"class", "meta"}});
  return EndHtmlPage(html);
}

}  // namespace gpuroof
