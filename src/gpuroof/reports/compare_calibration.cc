#include <fmt/format.h>

#include "gpuroof/format/text_table.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {

std::string RenderCalibrationText(const Calibration& calibration, const GateSettings& settings) {
  std::string out = fmt::format("calibration: {} profiles of the same code  {}\n\n",
                                calibration.profiles, calibration.device);
  TextTable table({"metric", "runs", "noise sigma_s", "floor", "floor >= 3.3 sigma", "A/A MDE",
                   fmt::format("profiles/side for {:g}%", 100 * settings.target),
                   "samples/profile (have)"});
  std::string needs;
  for (const NoiseRow& row : calibration.rows) {
    std::string label = row.level == MetricLevel::kIteration ? "iteration time [" + row.name + "]"
                        : row.level == MetricLevel::kGpuBusy ? "GPU compute busy / iter"
                                                             : "kernel " + row.name;
    table.AddRow(
        {label, std::to_string(row.runs), fmt::format("{:.2f}%", 100 * row.sigma),
         fmt::format("{:g}%", 100 * row.floor), row.floor_ok ? "yes" : "NO",
         row.mde ? fmt::format("{:.1f}%", 100 * *row.mde) : "-",
         std::to_string(row.profiles_per_side),
         fmt::format("{} ({})", row.samples_per_side ? std::to_string(*row.samples_per_side) : "-",
                     row.samples_available)});
    // One profile a side is enough when each holds the samples the single-run interval needs.
    if (row.level != MetricLevel::kKernel && row.samples_per_side &&
        row.samples_available < *row.samples_per_side) {
      needs += fmt::format(
          "needs: {}: {} steady steps per profile for a {:g}% change with one profile a side "
          "(this capture has {}), or {} profiles a side\n",
          label, *row.samples_per_side, 100 * settings.target, row.samples_available,
          row.profiles_per_side);
    }
  }
  out += table.Render();
  out += needs;
  out += fmt::format("A/A gate of the first two profiles: {} false alarm(s)\n",
                     calibration.aa_false_alarms);
  out += calibration.detects_target
             ? fmt::format(
                   "result: the configured floors can detect a {:g}% change at ~1% false "
                   "alarms with one profile per side\n",
                   100 * settings.target)
             : fmt::format(
                   "result: this setup cannot reliably detect a {:g}% change with one "
                   "profile per side: lock clocks, raise the floors, or use the "
                   "profiles/side above\n",
                   100 * settings.target);
  return out;
}

}  // namespace gpuroof
