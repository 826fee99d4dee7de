#include <fmt/format.h>

#include "gpuroof/format/table_text.h"
#include "gpuroof/reports/compare_cells.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {

std::string RenderCalibrationText(const Calibration& calibration, const GateSettings& settings) {
  std::string out = fmt::format("calibration: {} profiles of the same code  {}\n\n",
                                calibration.profiles, calibration.device);
  using U = ColumnUnit;
  Table table({
      // Kernels by base name and launch shape, as in the gate's table (compare_text.cc).
      MakeColumn("metric", "metric", U::kName, ColumnRole::kKey),
      MakeColumn("runs", "runs", U::kCount),
      MakeColumn("noise_sigma", "noise sigma_s", U::kFigure),
      MakeColumn("floor", "floor", U::kFigure),
      MakeColumn("floor_ok", "floor >= 3.3 sigma", U::kFigure),
      MakeColumn("aa_mde", "A/A MDE", U::kFigure),
      MakeColumn("profiles_per_side", fmt::format("profiles/side for {:g}%", 100 * settings.target),
                 U::kCount),
      MakeColumn("samples_per_profile", "samples/profile (have)", U::kFigure),
  });
  std::string needs;
  std::vector<std::string> labels;
  std::vector<std::string> shown;
  for (const NoiseRow& row : calibration.rows) {
    labels.push_back(row.level == MetricLevel::kIteration ? "iteration time [" + row.name + "]"
                     : row.level == MetricLevel::kGpuBusy ? "GPU compute busy / iter"
                                                          : "kernel " + row.name);
    shown.push_back(row.level == MetricLevel::kKernel
                        ? ShortKernelLabel(row.name, labels.back(), "")
                        : labels.back());
  }
  NumberAlikeLabels(shown, labels);
  for (size_t i = 0; i < calibration.rows.size(); ++i) {
    const NoiseRow& row = calibration.rows[i];
    const std::string& label = labels[i];
    table.AddRow(
        {shown[i], static_cast<int64_t>(row.runs), fmt::format("{:.2f}%", 100 * row.sigma),
         fmt::format("{:g}%", 100 * row.floor), std::string(row.floor_ok ? "yes" : "NO"),
         row.mde ? fmt::format("{:.1f}%", 100 * *row.mde) : "-",
         static_cast<int64_t>(row.profiles_per_side),
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
  // Calibration has no file output of its own: the gate's JSON keys the kernels whole.
  out += RenderTableText(table, CompareTableOptions("compare's --json"));
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
