#include "gpuroof/analyses/regression/calibration.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuroof/analyses/regression/bootstrap.h"
#include "gpuroof/analyses/regression/distributions.h"
#include "gpuroof/analyses/regression/run_level.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The SD of the log samples, estimated robustly as IQR / 1.349 (a normal's IQR is 1.349 SD), so
// a few outliers in a short capture do not set the sample size.
double RobustLogSd(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values)
    logs.push_back(std::log(std::max(v, 1.0)));
  std::sort(logs.begin(), logs.end());
  return (SortedQuantile(logs, 0.75) - SortedQuantile(logs, 0.25)) / 1.349;
}

}  // namespace

Calibration CalibrateNoise(std::span<const ProfileSummary> profiles, const GateSettings& settings) {
  if (profiles.size() < 2) {
    throw InputError("--calibrate", "needs at least two profiles of the same code");
  }
  Calibration c;
  c.profiles = profiles.size();
  if (!profiles.empty()) c.device = profiles.front().device_model;
  // The A/A gate of the first two profiles: comparability checks, MDEs and false alarms.
  const CompareResult aa =
      CompareProfiles(profiles.subspan(0, 1), profiles.subspan(1, 1), settings);
  std::map<std::string, const MetricComparison*> aa_metrics;
  for (const MetricComparison& m : aa.metrics) {
    aa_metrics[m.id] = &m;
    if (m.gated && m.verdict == Verdict::kRegressed) ++c.aa_false_alarms;
  }
  double kernel_time = 0;
  for (const ProfileSummary& p : profiles)
    kernel_time += p.kernel_time_ns;
  const double z = NormalQuantile(1.0 - settings.alpha / 2.0) + NormalQuantile(0.9);
  const double target = std::log1p(settings.target);
  const double z_interval = NormalQuantile(1.0 - settings.alpha / 2.0);
  std::map<std::string, std::vector<double>> within;  // robust SD of the logs, per profile
  std::map<std::string, size_t> fewest;               // fewest samples in any profile
  std::map<std::string, std::vector<double>> summaries;
  std::map<std::string, const SampleSet*> sets;
  std::map<std::string, double> totals;
  for (const ProfileSummary& p : profiles) {
    for (const auto& [id, set] : p.metrics) {
      if (set.values.empty()) continue;
      std::vector<double> values = set.values;
      summaries[id].push_back(std::log(std::max(MedianInPlace(values), 1.0)));
      within[id].push_back(RobustLogSd(set.values));
      auto [at, fresh] = fewest.try_emplace(id, set.values.size());
      if (!fresh) at->second = std::min(at->second, set.values.size());
      sets[id] = &set;
      totals[id] += set.total;
    }
  }
  for (const auto& [id, logs] : summaries) {
    const SampleSet& set = *sets[id];
    const bool kernel = set.level == MetricLevel::kKernel;
    if (set.level != MetricLevel::kIteration && set.level != MetricLevel::kGpuBusy && !kernel) {
      continue;
    }
    if (kernel && (kernel_time <= 0 || totals[id] / kernel_time < settings.kernel_min_share)) {
      continue;
    }
    NoiseRow row;
    row.id = id;
    row.level = set.level;
    row.name = set.name;
    row.runs = logs.size();
    row.sigma = std::sqrt(SampleVariance(logs));
    row.floor = kernel ? settings.floor_kernel : settings.floor_time;
    row.floor_ok = std::log1p(row.floor) >= 3.3 * row.sigma;
    auto aa_metric = aa_metrics.find(id);
    if (aa_metric != aa_metrics.end()) row.mde = aa_metric->second->mde;
    const double k = 2.0 * std::pow(z * row.sigma / target, 2);
    row.profiles_per_side = std::max<size_t>(2, static_cast<size_t>(std::ceil(k)));
    row.samples_available = fewest[id];
    double sigma_w = 0;
    for (double sd : within[id])
      sigma_w += sd / static_cast<double>(within[id].size());
    row.within_sigma = sigma_w;
    // Hodges-Lehmann on logs of normal data: Var = (pi / 3) sigma^2 (1/m + 1/n).
    if (row.floor < settings.target) {
      const double room = settings.target - row.floor;
      const double n = 2.0 * kPi / 3.0 * std::pow(z_interval * sigma_w / room, 2);
      row.samples_per_side = std::max(settings.n_min, static_cast<size_t>(std::ceil(n)));
    }
    c.rows.push_back(row);
  }
  std::stable_sort(c.rows.begin(), c.rows.end(), [](const NoiseRow& l, const NoiseRow& r) {
    return static_cast<int>(l.level) < static_cast<int>(r.level);
  });
  // Every row must keep false alarms near 1 %; the target is the iteration-level one (kernel
  // floors are 5 % by design, so a kernel alone never detects exactly 5 %).
  c.detects_target = !c.rows.empty();
  bool top_level = false;
  for (const NoiseRow& row : c.rows) {
    c.detects_target = c.detects_target && row.floor_ok;
    if (row.level == MetricLevel::kKernel) continue;
    top_level = true;
    c.detects_target = c.detects_target && row.mde && *row.mde <= settings.target;
  }
  c.detects_target = c.detects_target && top_level;
  return c;
}

}  // namespace gpuroof
