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

BootstrapInterval BootstrapMedianRatio(std::span<const double> x, std::span<const double> y,
                                       double alpha, int replicates, uint64_t seed) {
  BootstrapInterval result;
  std::vector<double> scratch_x(x.begin(), x.end());
  std::vector<double> scratch_y(y.begin(), y.end());
  result.estimate = MedianInPlace(scratch_y) / MedianInPlace(scratch_x);
  SplitMix64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(static_cast<size_t>(replicates));
  for (int r = 0; r < replicates; ++r) {
    for (double& v : scratch_x)
      v = x[rng.NextIndex(x.size())];
    for (double& v : scratch_y)
      v = y[rng.NextIndex(y.size())];
    ratios.push_back(MedianInPlace(scratch_y) / MedianInPlace(scratch_x));
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
