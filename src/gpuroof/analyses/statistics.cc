#include "gpuroof/analyses/statistics.h"

#include <algorithm>
#include <cmath>

namespace gpuroof {

std::optional<double> Quantile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return std::nullopt;
  double rank = q * static_cast<double>(sorted.size() - 1);
  auto below = static_cast<size_t>(std::floor(rank));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = rank - static_cast<double>(below);
  return static_cast<double>(sorted[below]) +
         fraction * static_cast<double>(sorted[above] - sorted[below]);
}

std::optional<double> Median(const std::vector<int64_t>& sorted) {
  if (sorted.empty()) return std::nullopt;
  size_t n = sorted.size();
  if (n % 2 == 1) return static_cast<double>(sorted[n / 2]);
  // The mean of the two middle values, without overflowing their sum.
  return static_cast<double>(sorted[n / 2 - 1]) +
         static_cast<double>(sorted[n / 2] - sorted[n / 2 - 1]) / 2.0;
}

DurationStats SummarizeDurations(std::vector<int64_t>& durations_ns) {
  DurationStats stats;
  if (durations_ns.empty()) return stats;
  std::sort(durations_ns.begin(), durations_ns.end());
  stats.count = static_cast<int64_t>(durations_ns.size());
  for (int64_t d : durations_ns)
    stats.total_ns += d;
  stats.mean_ns = static_cast<double>(stats.total_ns) / static_cast<double>(stats.count);
  stats.median_ns = *Median(durations_ns);
  stats.min_ns = durations_ns.front();
  stats.max_ns = durations_ns.back();
  if (stats.count > 1) {
    double sum_squares = 0;
    for (int64_t d : durations_ns) {
      double deviation = static_cast<double>(d) - stats.mean_ns;
      sum_squares += deviation * deviation;
    }
    stats.stddev_ns = std::sqrt(sum_squares / static_cast<double>(stats.count - 1));
  }
  stats.p95_ns = *Quantile(durations_ns, 0.95);
  stats.p99_ns = *Quantile(durations_ns, 0.99);
  return stats;
}

}  // namespace gpuroof
