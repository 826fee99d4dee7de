#include "gpuroof/analyses/regression/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "gpuroof/analyses/regression/distributions.h"

namespace gpuroof {

namespace {

// C(m + n, m) in long double: C(100, 50) ~ 1e29 exceeds double's exact integers, but the
// relative error of this product stays near 1e-18, far below what the p-values need.
long double Choose(size_t m, size_t n) {
  long double c = 1.0L;
  for (size_t i = 1; i <= m; ++i)
    c = c * static_cast<long double>(n + i) / static_cast<long double>(i);
  return c;
}

}  // namespace

double MannWhitneyExactP(size_t m, size_t n, double u1) {
  if (m == 0 || n == 0) return 1.0;
  const size_t mn = m * n;
  const double u_min = std::min(u1, static_cast<double>(mn) - u1);
  const auto limit = static_cast<size_t>(std::floor(u_min));
  // Counts of arrangements with U = u are the coefficients of the Gaussian binomial [m+n, m]_q,
  // built with [a, b] = [a, b-1] + q^b [a-1, b] (docs/metrics.md, "compare"). Only u <= limit
  // matters, so each polynomial is truncated there; every step adds positive terms (no
  // cancellation).
  std::vector<std::vector<long double>> poly(m + 1, std::vector<long double>(limit + 1, 0.0L));
  for (size_t a = 0; a <= m; ++a)
    poly[a][0] = 1.0L;  // [a, 0] = 1
  for (size_t b = 1; b <= n; ++b) {
    // [0, b] = 1 stays; ascending a uses [a-1, b] already updated to this b.
    for (size_t a = 1; a <= m; ++a) {
      for (size_t u = limit + 1; u-- > b;)
        poly[a][u] += poly[a - 1][u - b];
    }
  }
  long double count = 0;
  for (size_t u = 0; u <= limit; ++u)
    count += poly[m][u];
  return std::min(1.0, static_cast<double>(2.0L * count / Choose(m, n)));
}

double MannWhitneyMinimumP(size_t m, size_t n) {
  if (m == 0 || n == 0) return 1.0;
  return std::min(1.0, static_cast<double>(2.0L / Choose(m, n)));
}

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y) {
  MannWhitneyResult result;
  const size_t m = x.size();
  const size_t n = y.size();
  if (m == 0 || n == 0) return result;
  // Pool with a side flag, sort, and give each tie group the mean of its ranks.
  std::vector<std::pair<double, bool>> pooled;  // (value, from baseline)
  pooled.reserve(m + n);
  for (double v : x)
    pooled.emplace_back(v, true);
  for (double v : y)
    pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& l, const auto& r) { return l.first < r.first; });
  const size_t total = m + n;
  double rank_sum_baseline = 0;
  double tie_term = 0;  // sum of t^3 - t over tie groups
  for (size_t i = 0; i < total;) {
    size_t j = i;
    while (j < total && pooled[j].first == pooled[i].first)
      ++j;
    const double group = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_baseline += mid_rank;
    if (j - i > 1) {
      tie_term += group * group * group - group;
      result.has_ties = true;
    }
    i = j;
  }
  const double md = static_cast<double>(m);
  const double nd = static_cast<double>(n);
  const double nn = static_cast<double>(total);
  result.u_baseline = rank_sum_baseline - md * (md + 1.0) / 2.0;
  result.u_current = md * nd - result.u_baseline;
  const double mu = md * nd / 2.0;
  const double variance = (md * nd / 12.0) * ((nn + 1.0) - tie_term / (nn * (nn - 1.0)));
  result.sigma = variance > 0 ? std::sqrt(variance) : 0.0;
  if (result.sigma == 0.0) {
    result.identical = true;
    result.p_value = 1.0;
    return result;
  }
  if (!result.has_ties && m <= kMannWhitneyExactLimit && n <= kMannWhitneyExactLimit) {
    result.exact = true;
    result.p_value = MannWhitneyExactP(m, n, result.u_baseline);
    return result;
  }
  result.z = (std::max(result.u_baseline, result.u_current) - mu - 0.5) / result.sigma;
  result.p_value = std::min(1.0, 2.0 * NormalUpperTail(result.z));
  return result;
}

}  // namespace gpuroof
