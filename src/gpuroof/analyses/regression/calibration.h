// A/A calibration (docs/metrics.md, "compare"): profiles of
// the same code show the run-to-run noise sigma_s, whether the floors keep false alarms near 1 %,
// and whether a change of the target size can be detected.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuroof/analyses/regression/gate.h"
#include "gpuroof/analyses/regression/profile_samples.h"

namespace gpuroof {

struct NoiseRow {
  std::string id;
  MetricLevel level = MetricLevel::kIteration;
  std::string name;
  size_t runs = 0;               // profiles that have the metric
  double sigma = 0;              // SD of ln(run median) across the profiles
  double floor = 0;              // the configured single-run floor of the level
  bool floor_ok = false;         // floor >= 3.3 sigma: about 1 % false alarms
  std::optional<double> mde;     // single-run MDE of the first two profiles compared (A/A)
  size_t profiles_per_side = 0;  // k = 2 ((z_{1-alpha/2} + z_{0.9}) sigma / ln(1 + target))^2
  // Single-run (one profile a side): samples per profile (steps, or launches for kernels) so
  // that floor + the Moses half-width reaches the target: n = max(n_min, ceil(2 pi / 3 (z_{1-
  // alpha/2} sigma_w / (target - floor))^2)), sigma_w = the within-profile SD of the log samples
  // (IQR / 1.349, averaged over the profiles). Unset when the floor leaves no room (>= target).
  double within_sigma = 0;
  std::optional<size_t> samples_per_side;
  size_t samples_available = 0;  // the fewest steady samples any profile has
};

struct Calibration {
  size_t profiles = 0;
  std::string device;
  std::vector<NoiseRow> rows;  // iteration, GPU busy, then kernels with >= 1 % of kernel time
  size_t aa_false_alarms = 0;  // gated REGRESSED when the first two profiles are compared
  // Every row passes the floor check, and the iteration-level rows (iteration time, GPU busy;
  // at least one) have MDE <= target.
  bool detects_target = false;
};

// Throws InputError as CompareProfiles() does when the profiles are not comparable.
Calibration CalibrateNoise(std::span<const ProfileSummary> profiles, const GateSettings& settings);

}  // namespace gpuroof
