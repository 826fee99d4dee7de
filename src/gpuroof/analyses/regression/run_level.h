// Run-level statistics for several profiles per side and for history mode (docs/metrics.md,
// "compare"). Inputs are run summaries in log space
// (ln of a run's median), so every interval is of a ratio.
#pragma once

#include <optional>
#include <span>

namespace gpuroof {

struct PooledTResult {
  double mean_difference = 0;  // d = mean(current) - mean(baseline): the log ratio of geomeans
  double pooled_sd = 0;        // s_p
  double standard_error = 0;   // SE
  double df = 0;
  double t = 0;        // d / SE; 0 when SE is 0
  double p_value = 1;  // two-sided, from Student's t; 1 when SE is 0 and d is 0
  double ci_low = 0;   // d -/+ t_{1-alpha/2,df} SE
  double ci_high = 0;
  double t_quantile = 0;  // t_{1-alpha/2,df}
};

// Pooled two-sample t on run summaries. With one run on a side, that side contributes no
// variance and df = k - 1 of the other side. Unset when both sides have a single run, or a side
// is empty.
std::optional<PooledTResult> PooledT(std::span<const double> baseline,
                                     std::span<const double> current, double alpha);

// Minimum detectable effect at power 1 - beta: exp((t_{1-alpha/2,df} + t_{1-beta,df}) SE) - 1.
double RunLevelMde(double standard_error, double df, double alpha, double beta = 0.2);

struct PredictionLimit {
  double mean = 0;   // mean of the history's log summaries
  double sd = 0;     // their sample SD
  double limit = 0;  // mean + t_{1-alpha,h-1} sd sqrt(1 + 1/h), one-sided
  double t_quantile = 0;
};

// One-sided upper prediction limit from h >= 2 historical log summaries; unset below 2.
std::optional<PredictionLimit> HistoryPredictionLimit(std::span<const double> history,
                                                      double alpha);

// Mean and sample variance (n - 1; 0 for one value).
double Mean(std::span<const double> values);
double SampleVariance(std::span<const double> values);

}  // namespace gpuroof
