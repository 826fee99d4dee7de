#include <fmt/format.h>

#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"
#include "gpuroof/reports/text_table.h"

namespace gpuroof {

std::string RenderCompareText(const CompareReport& report) {
  const CompareResult& r = report.result;
  const GateSettings& s = r.settings;
  std::string out;
  out += report.history_source.empty() ? "baseline: " + SideLine(report.baseline) + "\n"
                                       : fmt::format("baseline: history {} ({} runs)\n",
                                                     report.history_source, report.history_entries);
  out += "current : " + SideLine(report.current) + "\n";
  out += ModeLine(r) + "\n\n";
  const bool ci99 = s.alpha == 0.01;
  TextTable table({"metric", "baseline", "current",
                   ci99 ? "delta (99% CI)" : fmt::format("delta ({:g}% CI)", 100 * (1 - s.alpha)),
                   "p", "n", "verdict"});
  for (const MetricComparison& m : r.metrics) {
    table.AddRow({ShortenedLabel(MetricLabel(m)), SideValueWithSpread(m, m.baseline),
                  SideValueWithSpread(m, m.current), DeltaCell(m), PValueCell(m), CountCell(m),
                  VerdictCell(m)});
  }
  out += table.Render();
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
        out += fmt::format("warning: {}: {}\n", p.path, w);
  for (const std::string& w : r.warnings)
    out += "warning: " + w + "\n";
  if (r.exit_code == 1) {
    out += fmt::format("result: REGRESSION ({} gated metric{}) -> exit 1\n", r.summary.regressed,
                       r.summary.regressed == 1 ? "" : "s");
  } else {
    out += fmt::format("result: PASS{} ({} gated, {} inconclusive) -> exit 0\n",
                       r.verdict == "pass-with-warnings" ? " with warnings" : "", r.summary.gated,
                       r.summary.inconclusive);
  }
  return out;
}

}  // namespace gpuroof
