#include <fmt/format.h>

#include "gpuroof/format/text_table.h"
#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {

std::string RenderCompareText(const CompareReport& report) {
  const CompareResult& r = report.result;
  const GateSettings& s = r.settings;
  std::string out;
  out += report.history_source.empty() ? "baseline: " + SideLine(report.baseline) + "\n"
                                       : fmt::format("baseline: history {} ({} runs)\n",
                                                     report.history_source, report.history_entries);
  out += "current : " + SideLine(report.current) + "\n";
  out += ModeLine(r) + "\n";
  if (const std::string devices = DevicesLine(r); !devices.empty()) out += devices + "\n";
  out += "\n";
  const bool ci99 = s.alpha == 0.01;
  std::vector<std::string> header = {
      "metric",  "baseline",
      "current", ci99 ? "delta (99% CI)" : fmt::format("delta ({:g}% CI)", 100 * (1 - s.alpha)),
      "p",       "n"};
  // Kernel level without iterations: each kernel's own warm-up, dropped launches per side.
  const bool trims = HasKernelTrims(r);
  if (trims) header.push_back("warm-up");
  header.push_back("verdict");
  TextTable table(header);
  for (const MetricComparison& m : r.metrics) {
    std::vector<std::string> row = {ShortenedLabel(MetricLabel(m)),
                                    SideValueWithSpread(m, m.baseline),
                                    SideValueWithSpread(m, m.current),
                                    DeltaCell(m),
                                    PValueCell(m),
                                    CountCell(m)};
    if (trims) row.push_back(TrimCell(m));
    row.push_back(VerdictCell(m));
    table.AddRow(row);
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
  out += "summary: " + SummaryLine(r) + "\n";
  out += "result: " + ResultLine(r) + "\n";
  return out;
}

}  // namespace gpuroof
