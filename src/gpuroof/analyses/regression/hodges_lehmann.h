// Hodges-Lehmann shift between two samples and its Moses confidence interval (docs/metrics.md,
// "compare"), without building the m x n table of differences.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>

namespace gpuroof {

// The k-th smallest (1-based, 1 <= k <= m*n) of the differences b_j - a_i, for `a` and `b`
// sorted ascending and non-empty. O((m + n) log) time, O(1) extra memory beyond a final
// enumeration of the few differences left in the last bisection interval.
double KthPairwiseDifference(std::span<const double> a, std::span<const double> b, uint64_t k);

// The k-th and (k+1)-th smallest differences (1 <= k < m*n), with one bisection where the two
// can share it (the Hodges-Lehmann estimate of an even m*n is their mean): the values
// KthPairwiseDifference() gives, at about half the cost.
std::pair<double, double> AdjacentPairwiseDifferences(std::span<const double> a,
                                                      std::span<const double> b, uint64_t k);

// Moses rank k = floor(m*n/2 - z_{1-alpha/2} * sqrt(m*n*(m+n+1)/12)); the CI is [D_(k),
// D_(m*n+1-k)]. Below 1 the interval does not exist at this level (too few samples).
int64_t MosesRank(size_t m, size_t n, double alpha);

struct ShiftInterval {
  std::optional<double> low;  // unset when MosesRank() < 1
  std::optional<double> high;
  int64_t moses_rank = 0;
};

// The two-sided (1 - alpha) Moses interval alone, for `a` and `b` sorted ascending: a gate that
// narrows its level after the estimate (Bonferroni over the gated kernels) calls only this.
ShiftInterval MosesShiftInterval(std::span<const double> a, std::span<const double> b,
                                 double alpha);

struct ShiftEstimate {
  double estimate = 0;           // median of the differences b_j - a_i
  std::optional<double> ci_low;  // unset when MosesRank() < 1
  std::optional<double> ci_high;
  int64_t moses_rank = 0;
};

// Hodges-Lehmann estimate of the shift from `a` to `b` (both sorted ascending, non-empty) with
// its two-sided (1 - alpha) Moses interval. The gate calls it on log durations, so the shift is
// a log ratio (current / baseline).
ShiftEstimate HodgesLehmannShift(std::span<const double> a, std::span<const double> b,
                                 double alpha);

}  // namespace gpuroof
