#include "gpuroof/analyses/regression/run_level.h"

#include <algorithm>
#include <cmath>

#include "gpuroof/analyses/regression/distributions.h"

namespace gpuroof {

double Mean(std::span<const double> values) {
  double sum = 0;
  for (double v : values)
    sum += v;
  return values.empty() ? 0.0 : sum / static_cast<double>(values.size());
}

double SampleVariance(std::span<const double> values) {
  if (values.size() < 2) return 0.0;
  const double mean = Mean(values);
  double squares = 0;
  for (double v : values)
    squares += (v - mean) * (v - mean);
  return squares / static_cast<double>(values.size() - 1);
}

std::optional<PooledTResult> PooledT(std::span<const double> baseline,
                                     std::span<const double> current, double alpha) {
  const size_t kb = baseline.size();
  const size_t kc = current.size();
  if (kb == 0 || kc == 0 || (kb < 2 && kc < 2)) return std::nullopt;
  PooledTResult r;
  r.mean_difference = Mean(current) - Mean(baseline);
  // (k - 1) v is 0 for a single run, so the formula already uses only the other side's variance;
  // df drops that side's missing degree of freedom.
  const double ss = static_cast<double>(kb - 1) * SampleVariance(baseline) +
                    static_cast<double>(kc - 1) * SampleVariance(current);
  r.df = static_cast<double>(kb + kc - 2);
  if (kb == 1 || kc == 1) r.df = static_cast<double>((kb == 1 ? kc : kb) - 1);
  r.pooled_sd = std::sqrt(ss / r.df);
  r.standard_error =
      r.pooled_sd * std::sqrt(1.0 / static_cast<double>(kb) + 1.0 / static_cast<double>(kc));
  r.t_quantile = StudentTQuantile(1.0 - alpha / 2.0, r.df);
  r.ci_low = r.mean_difference - r.t_quantile * r.standard_error;
  r.ci_high = r.mean_difference + r.t_quantile * r.standard_error;
  if (r.standard_error > 0) {
    r.t = r.mean_difference / r.standard_error;
    r.p_value = std::min(1.0, 2.0 * StudentTUpperTail(std::fabs(r.t), r.df));
  } else {
    r.p_value = r.mean_difference == 0 ? 1.0 : 0.0;
  }
  return r;
}

double RunLevelMde(double standard_error, double df, double alpha, double beta) {
  return std::expm1((StudentTQuantile(1.0 - alpha / 2.0, df) + StudentTQuantile(1.0 - beta, df)) *
                    standard_error);
}

std::optional<PredictionLimit> HistoryPredictionLimit(std::span<const double> history,
                                                      double alpha) {
  const size_t h = history.size();
  if (h < 2) return std::nullopt;
  PredictionLimit r;
  r.mean = Mean(history);
  r.sd = std::sqrt(SampleVariance(history));
  r.t_quantile = StudentTQuantile(1.0 - alpha, static_cast<double>(h - 1));
  r.limit = r.mean + r.t_quantile * r.sd * std::sqrt(1.0 + 1.0 / static_cast<double>(h));
  return r;
}

}  // namespace gpuroof
