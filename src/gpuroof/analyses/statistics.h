#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gpuroof/model/time_limits.h"

namespace gpuroof {

// Summary statistics of a sample of durations (ns), as nsys's reports define them
// (docs/formats.md, "Inputs"): the median of an even count is the mean of the two middle
// values; the standard deviation is the sample one (n - 1), 0 for a single value.
struct DurationStats {
  int64_t count = 0;
  int64_t total_ns = 0;  // clamped at the int64 maximum (exact_total_ns says by how much)
  WideSum exact_total_ns = 0;
  double mean_ns = 0;  // from the exact total
  double median_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double stddev_ns = 0;
  double p95_ns = 0;
  double p99_ns = 0;
};

// Statistics of `durations_ns` (reordered in place: order statistics are found by selection, not
// by sorting, which matters for millions of ops). Empty input gives all zeros.
DurationStats SummarizeDurations(std::vector<int64_t>& durations_ns);

// The q-quantile (0 <= q <= 1) of sorted values, interpolating linearly between the two nearest
// ranks (the "linear" method of numpy and R type 7). Unset for empty input.
std::optional<double> Quantile(const std::vector<int64_t>& sorted, double q);

// The median of sorted values: the middle one, or the mean of the two middle ones.
std::optional<double> Median(const std::vector<int64_t>& sorted);

// The median of unsorted values (reordered in place) by selection, O(n); as Median() defines it.
template <typename T>
std::optional<double> SelectMedian(std::vector<T>& values) {
  if (values.empty()) return std::nullopt;
  const size_t n = values.size();
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = static_cast<double>(*middle);
  if (n % 2 == 1) return upper;
  const double lower = static_cast<double>(*std::max_element(values.begin(), middle));
  return lower + (upper - lower) / 2.0;
}

}  // namespace gpuroof
