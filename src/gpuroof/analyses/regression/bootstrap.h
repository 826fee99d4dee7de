// Deterministic percentile bootstrap of the median ratio (docs/metrics.md,
// "compare"): the same inputs give bit-identical intervals on every machine.
#pragma once

#include <cstdint>
#include <span>

namespace gpuroof {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and fully specified, so the bootstrap's
// draws can be reproduced anywhere from the seed alone.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // An index in [0, n): floor(((out >> 11) * 2^-53) * n).
  size_t NextIndex(size_t n) {
    const double unit = static_cast<double>(Next() >> 11) * 0x1p-53;
    return static_cast<size_t>(unit * static_cast<double>(n));
  }

 private:
  uint64_t state_;
};

inline constexpr uint64_t kBootstrapSeed = 42;
inline constexpr int kBootstrapReplicates = 2000;

struct BootstrapInterval {
  double estimate = 0;  // median(y) / median(x) of the samples themselves
  double low = 0;
  double high = 0;
};

// Percentile bootstrap of median(y) / median(x): per replicate, m baseline then n current
// indices drawn with replacement; the (1 - alpha) interval is R*[floor(alpha/2 * B)] ..
// R*[ceil((1 - alpha/2) * B) - 1] of the sorted replicates. Samples must be non-empty with a
// positive baseline median.
BootstrapInterval BootstrapMedianRatio(std::span<const double> x, std::span<const double> y,
                                       double alpha, int replicates = kBootstrapReplicates,
                                       uint64_t seed = kBootstrapSeed);

// The median of `values` (mean of the two middle ones for an even count); reorders them.
double MedianInPlace(std::span<double> values);

// The q-quantile of ascending, non-empty `sorted`, linearly interpolated between order
// statistics (rank q (n - 1)).
double SortedQuantile(std::span<const double> sorted, double q);

// The same quantile of non-empty `values` in any order, by selection (O(n)); reorders them.
double SelectQuantile(std::span<double> values, double q);

}  // namespace gpuroof
