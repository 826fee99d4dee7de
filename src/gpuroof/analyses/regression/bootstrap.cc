#include "gpuroof/analyses/regression/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuroof {

double MedianInPlace(std::span<double> values) {
  const size_t n = values.size();
  const auto middle = values.begin() + static_cast<ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), middle);
  return lower + (upper - lower) / 2.0;
}

double SortedQuantile(std::span<const double> sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<size_t>(std::floor(rank));
  const size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (rank - static_cast<double>(below)) * (sorted[above] - sorted[below]);
}

double SelectQuantile(std::span<double> values, double q) {
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<size_t>(std::floor(rank));
  const auto at = values.begin() + static_cast<ptrdiff_t>(below);
  std::nth_element(values.begin(), at, values.end());
  const double low = *at;
  // The next order statistic is the smallest of the values after the selected one.
  const double high = below + 1 < values.size() ? *std::min_element(at + 1, values.end()) : low;
  return low + (rank - static_cast<double>(below)) * (high - low);
}

namespace {

// Resample medians without sorting values: with the sample sorted, a resample's values in order
// are the sorted sample at the drawn ranks in order, so its median is the sorted sample at the
// median rank. Ranks are counted in a histogram and the middle one(s) found by a prefix scan:
// O(n) with a small constant per replicate, the same medians as MedianInPlace on the values.
class ResampleMedian {
 public:
  explicit ResampleMedian(std::span<const double> values)
      : sorted_(values.begin(), values.end()), rank_(values.size()), counts_(values.size()) {
    std::vector<uint32_t> order(values.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = static_cast<uint32_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&values](uint32_t a, uint32_t b) { return values[a] < values[b]; });
    for (size_t r = 0; r < order.size(); ++r) {
      rank_[order[r]] = static_cast<uint32_t>(r);
      sorted_[r] = values[order[r]];
    }
  }
  // The median of n draws of indices from `rng`, drawn in the order MedianInPlace's caller did.
  double Draw(SplitMix64& rng) {
    const size_t n = sorted_.size();
    std::fill(counts_.begin(), counts_.end(), 0u);
    for (size_t i = 0; i < n; ++i)
      ++counts_[rank_[rng.NextIndex(n)]];
    // 0-based order statistics n/2 (upper middle) and, for even n, n/2 - 1.
    const size_t upper_k = n / 2;
    const size_t lower_k = n % 2 == 1 ? upper_k : upper_k - 1;
    size_t seen = 0;
    size_t r = 0;
    while (seen + counts_[r] <= lower_k)
      seen += counts_[r++];
    const double lower = sorted_[r];
    while (seen + counts_[r] <= upper_k)
      seen += counts_[r++];
    const double upper = sorted_[r];
    return n % 2 == 1 ? upper : lower + (upper - lower) / 2.0;
  }

 private:
  std::vector<double> sorted_;
  std::vector<uint32_t> rank_;
  std::vector<uint32_t> counts_;
};

}  // namespace

BootstrapInterval BootstrapMedianRatio(std::span<const double> x, std::span<const double> y,
                                       double alpha, int replicates, uint64_t seed) {
  BootstrapInterval result;
  std::vector<double> scratch_x(x.begin(), x.end());
  std::vector<double> scratch_y(y.begin(), y.end());
  result.estimate = MedianInPlace(scratch_y) / MedianInPlace(scratch_x);
  ResampleMedian median_x(x);
  ResampleMedian median_y(y);
  SplitMix64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(replicates));
  for (int r = 0; r < replicates; ++r) {
    const double mx = median_x.Draw(rng);
    const double my = median_y.Draw(rng);
    ratios.push_back(my / mx);
  }
  std::sort(ratios.begin(), ratios.end());
  // The small epsilons keep alpha/2 * B = 50 (for 0.025 * 2000) from landing on 49.999... or
  // 50.000...1 in binary floating point.
  const double b = static_cast<double>(replicates);
  auto low_index = static_cast<size_t>(std::floor(alpha / 2.0 * b + 1e-9));
  auto high_index = static_cast<size_t>(std::ceil((1.0 - alpha / 2.0) * b - 1e-9));
  high_index = high_index == 0 ? 0 : high_index - 1;
  low_index = std::min(low_index, ratios.size() - 1);
  high_index = std::min(high_index, ratios.size() - 1);
  result.low = ratios[low_index];
  result.high = ratios[high_index];
  return result;
}

}  // namespace gpuroof
