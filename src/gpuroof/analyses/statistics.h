#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gpuroof {

// Summary statistics of a sample of durations (ns), as nsys's reports define them
// (refs/nsys-sqlite-schema.md §8.1): the median of an even count is the mean of the two middle
// values; the standard deviation is the sample one (n - 1), 0 for a single value.
struct DurationStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  double mean_ns = 0;
  double median_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double stddev_ns = 0;
  double p95_ns = 0;
  double p99_ns = 0;
};

// Statistics of `durations_ns` (sorted in place). Empty input gives all zeros.
DurationStats SummarizeDurations(std::vector<int64_t>& durations_ns);

// The q-quantile (0 <= q <= 1) of sorted values, interpolating linearly between the two nearest
// ranks (the "linear" method of numpy and R type 7). Unset for empty input.
std::optional<double> Quantile(const std::vector<int64_t>& sorted, double q);

// The median of sorted values: the middle one, or the mean of the two middle ones.
std::optional<double> Median(const std::vector<int64_t>& sorted);

}  // namespace gpuroof
