#include "gpuroof/analyses/statistics.h"

#include <algorithm>
#include <cmath>

#include "gpuroof/model/time_limits.h"

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

namespace {

// The values at 0-based `ranks` of `values` as if it were sorted. Distinct ranks are selected in
// ascending order, each on the part after the previous one (nth_element leaves nothing larger
// before a rank), so the cost is O(n) expected per distinct rank, not a sort's O(n log n).
std::vector<int64_t> ValuesAtRanks(std::vector<int64_t>& values, const std::vector<size_t>& ranks) {
  std::vector<size_t> ascending = ranks;
  std::sort(ascending.begin(), ascending.end());
  ascending.erase(std::unique(ascending.begin(), ascending.end()), ascending.end());
  auto from = values.begin();
  for (size_t rank : ascending) {
    const auto at = values.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(from, at, values.end());
    from = at + 1;
  }
  std::vector<int64_t> out;
  for (size_t rank : ranks)
    out.push_back(values[rank]);
  return out;
}

}  // namespace

DurationStats SummarizeDurations(std::vector<int64_t>& durations_ns) {
  DurationStats stats;
  if (durations_ns.empty()) return stats;
  const size_t n = durations_ns.size();
  stats.count = static_cast<int64_t>(n);
  stats.min_ns = durations_ns.front();
  stats.max_ns = durations_ns.front();
  for (int64_t d : durations_ns) {
    stats.exact_total_ns += d;
    stats.min_ns = std::min(stats.min_ns, d);
    stats.max_ns = std::max(stats.max_ns, d);
  }
  stats.total_ns = ClampToInt64(stats.exact_total_ns);
  stats.mean_ns = static_cast<double>(stats.exact_total_ns) / static_cast<double>(stats.count);
  if (stats.count > 1) {
    double sum_squares = 0;
    for (int64_t d : durations_ns) {
      double deviation = static_cast<double>(d) - stats.mean_ns;
      sum_squares += deviation * deviation;
    }
    stats.stddev_ns = std::sqrt(sum_squares / static_cast<double>(stats.count - 1));
  }
  // Ranks as Median() and Quantile() read them from a sorted vector: the two middle ones, and
  // for each quantile the rank below q (n - 1) and the next.
  auto below = [n](double q) {
    return static_cast<size_t>(std::floor(q * static_cast<double>(n - 1)));
  };
  const size_t median_low = n % 2 == 1 ? n / 2 : n / 2 - 1;
  const size_t p95 = below(0.95);
  const size_t p99 = below(0.99);
  const std::vector<size_t> ranks = {
      median_low, n / 2, p95, std::min(p95 + 1, n - 1), p99, std::min(p99 + 1, n - 1)};
  const std::vector<int64_t> at = ValuesAtRanks(durations_ns, ranks);
  stats.median_ns = static_cast<double>(at[0]) + static_cast<double>(at[1] - at[0]) / 2.0;
  auto interpolate = [n](double q, int64_t low, int64_t high) {
    const double rank = q * static_cast<double>(n - 1);
    return static_cast<double>(low) + (rank - std::floor(rank)) * static_cast<double>(high - low);
  };
  stats.p95_ns = interpolate(0.95, at[2], at[3]);
  stats.p99_ns = interpolate(0.99, at[4], at[5]);
  return stats;
}

}  // namespace gpuroof
