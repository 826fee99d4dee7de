#include "gpuroof/analyses/regression/hodges_lehmann.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "gpuroof/analyses/regression/distributions.h"

namespace gpuroof {

namespace {

// #{(i, j) : b_j - a_i <= d}. With a ascending, the number of b_j within d of a_i never
// decreases as i grows, so one forward pointer over b serves every i: O(m + n). The difference
// is computed exactly as the selection reports it, so rounding cannot make them disagree.
uint64_t CountAtMost(std::span<const double> a, std::span<const double> b, double d) {
  uint64_t count = 0;
  size_t p = 0;
  for (double ai : a) {
    while (p < b.size() && b[p] - ai <= d)
      ++p;
    count += p;
  }
  return count;
}

}  // namespace

double KthPairwiseDifference(std::span<const double> a, std::span<const double> b, uint64_t k) {
  double lo = b.front() - a.back();  // the smallest difference
  double hi = b.back() - a.front();  // the largest
  if (k <= 1) return lo;
  if (k >= static_cast<uint64_t>(a.size()) * b.size()) return hi;
  // Invariant: count(lo) < k <= count(hi). Bisect the value until few enough differences are
  // left in (lo, hi] to list them (each step costs O(m + n), listing O(m + n + listed)), or the
  // interval is a tiny fraction of the range (not to adjacent doubles: near 0 that would walk
  // every exponent). Stopping at a count rather than a width saves most steps on large samples.
  constexpr uint64_t kEnumerateLimit = uint64_t{1} << 20;
  const double tolerance = (hi - lo) * 0x1p-56;
  uint64_t count_lo = CountAtMost(a, b, lo);
  if (count_lo >= k) return lo;
  uint64_t count_hi = static_cast<uint64_t>(a.size()) * b.size();
  const uint64_t enough =
      std::max<uint64_t>(64, std::min<uint64_t>(kEnumerateLimit, 4 * (a.size() + b.size())));
  while (hi - lo > tolerance && count_hi - count_lo > enough) {
    const double mid = lo + (hi - lo) / 2.0;
    if (mid <= lo || mid >= hi) break;
    const uint64_t count_mid = CountAtMost(a, b, mid);
    if (count_mid >= k) {
      hi = mid;
      count_hi = count_mid;
    } else {
      lo = mid;
      count_lo = count_mid;
    }
  }
  // The k-th difference lies in (lo, hi]. Usually few differences are there: list them and pick
  // it exactly. Many means heavy ties (all within the tolerance of one value): take the largest
  // difference <= hi, which is then the k-th up to that tolerance.
  const uint64_t in_interval = count_hi - count_lo;
  const uint64_t rank = k - count_lo;  // 1-based within (lo, hi]
  std::vector<double> between;
  double largest = lo;
  size_t p_lo = 0;
  size_t p_hi = 0;
  for (double ai : a) {
    while (p_lo < b.size() && b[p_lo] - ai <= lo)
      ++p_lo;
    while (p_hi < b.size() && b[p_hi] - ai <= hi)
      ++p_hi;
    if (p_hi > 0) largest = std::max(largest, b[p_hi - 1] - ai);
    if (in_interval <= kEnumerateLimit) {
      for (size_t j = p_lo; j < p_hi; ++j)
        between.push_back(b[j] - ai);
    }
  }
  if (in_interval > kEnumerateLimit || rank > between.size()) return largest;
  std::nth_element(between.begin(), between.begin() + static_cast<ptrdiff_t>(rank - 1),
                   between.end());
  return between[rank - 1];
}

int64_t MosesRank(size_t m, size_t n, double alpha) {
  const double mn = static_cast<double>(m) * static_cast<double>(n);
  const double z = NormalQuantile(1.0 - alpha / 2.0);
  const double sd = std::sqrt(mn * (static_cast<double>(m + n) + 1.0) / 12.0);
  return static_cast<int64_t>(std::floor(mn / 2.0 - z * sd));
}

ShiftInterval MosesShiftInterval(std::span<const double> a, std::span<const double> b,
                                 double alpha) {
  ShiftInterval interval;
  interval.moses_rank = MosesRank(a.size(), b.size(), alpha);
  if (interval.moses_rank >= 1) {
    const uint64_t mn = static_cast<uint64_t>(a.size()) * b.size();
    const auto k = static_cast<uint64_t>(interval.moses_rank);
    interval.low = KthPairwiseDifference(a, b, k);
    interval.high = KthPairwiseDifference(a, b, mn + 1 - k);
  }
  return interval;
}

ShiftEstimate HodgesLehmannShift(std::span<const double> a, std::span<const double> b,
                                 double alpha) {
  ShiftEstimate result;
  const uint64_t mn = static_cast<uint64_t>(a.size()) * b.size();
  if (mn % 2 == 1) {
    result.estimate = KthPairwiseDifference(a, b, (mn + 1) / 2);
  } else {
    const double low = KthPairwiseDifference(a, b, mn / 2);
    const double high = KthPairwiseDifference(a, b, mn / 2 + 1);
    result.estimate = low + (high - low) / 2.0;
  }
  const ShiftInterval interval = MosesShiftInterval(a, b, alpha);
  result.moses_rank = interval.moses_rank;
  result.ci_low = interval.low;
  result.ci_high = interval.high;
  return result;
}

}  // namespace gpuroof
