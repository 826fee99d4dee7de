// Mann-Whitney U test, two-sided (docs/metrics.md, "compare").
#pragma once

#include <cstdint>
#include <span>

namespace gpuroof {

struct MannWhitneyResult {
  double u_baseline = 0;   // U1 = #{x > y} + ties/2
  double u_current = 0;    // U2 = m*n - U1; large when the current sample is slower
  double sigma = 0;        // normal-approximation SD of U (tie-corrected); 0 when all values tie
  double z = 0;            // continuity-corrected z of max(U1, U2); 0 with the exact method
  double p_value = 1;      // two-sided
  bool exact = false;      // exact null distribution (no ties, both samples <= kExactLimit)
  bool identical = false;  // every value equal: no information, p = 1
  bool has_ties = false;
};

// Samples at most this large and tie-free get the exact null distribution.
inline constexpr size_t kMannWhitneyExactLimit = 50;

// Two-sided test of baseline `x` against current `y` (any order; neither is modified). Exact
// when there are no ties and m, n <= kMannWhitneyExactLimit, else the normal approximation with
// the tie correction and a 0.5 continuity correction. Empty samples give p = 1.
MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y);

// Exact two-sided p for a tie-free U statistic: 2 * P(U <= min(u1, m*n - u1)), capped at 1.
double MannWhitneyExactP(size_t m, size_t n, double u1);

// The smallest two-sided p an exact test of m against n tie-free values can reach: 2 / C(m+n, m).
double MannWhitneyMinimumP(size_t m, size_t n);

}  // namespace gpuroof
