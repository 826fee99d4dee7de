#include "gpuroof/analyses/regression/hodges_lehmann.h"

#include <algorithm>
#include <cmath>
#include <utility>
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

constexpr uint64_t kEnumerateLimit = uint64_t{1} << 20;

// How many differences the bisection leaves to list: few enough that listing them costs about
// as much as a counting pass.
uint64_t EnoughToList(std::span<const double> a, std::span<const double> b) {
  return std::max<uint64_t>(64, std::min<uint64_t>(kEnumerateLimit, 4 * (a.size() + b.size())));
}

// The differences in (lo, hi] (appended to `between` when `list`), and the largest difference
// <= hi, in one O(m + n + listed) pass.
double ListBetween(std::span<const double> a, std::span<const double> b, double lo, double hi,
                   bool list, std::vector<double>& between) {
  double largest = lo;
  size_t p_lo = 0;
  size_t p_hi = 0;
  for (double ai : a) {
    while (p_lo < b.size() && b[p_lo] - ai <= lo)
      ++p_lo;
    while (p_hi < b.size() && b[p_hi] - ai <= hi)
      ++p_hi;
    if (p_hi > 0) largest = std::max(largest, b[p_hi - 1] - ai);
    if (list) {
      for (size_t j = p_lo; j < p_hi; ++j)
        between.push_back(b[j] - ai);
    }
  }
  return largest;
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
  const double tolerance = (hi - lo) * 0x1p-56;
  uint64_t count_lo = CountAtMost(a, b, lo);
  if (count_lo >= k) return lo;
  uint64_t count_hi = static_cast<uint64_t>(a.size()) * b.size();
  const uint64_t enough = EnoughToList(a, b);
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
  const double largest = ListBetween(a, b, lo, hi, in_interval <= kEnumerateLimit, between);
  if (in_interval > kEnumerateLimit || rank > between.size()) return largest;
  std::nth_element(between.begin(), between.begin() + static_cast<ptrdiff_t>(rank - 1),
                   between.end());
  return between[rank - 1];
}

std::pair<double, double> AdjacentPairwiseDifferences(std::span<const double> a,
                                                      std::span<const double> b, uint64_t k) {
  auto one_by_one = [&]() {
    return std::pair{KthPairwiseDifference(a, b, k), KthPairwiseDifference(a, b, k + 1)};
  };
  const uint64_t mn = static_cast<uint64_t>(a.size()) * b.size();
  if (k <= 1 || k + 1 >= mn) return one_by_one();
  double lo = b.front() - a.back();
  double hi = b.back() - a.front();
  const double tolerance = (hi - lo) * 0x1p-56;
  uint64_t count_lo = CountAtMost(a, b, lo);
  if (count_lo >= k) return one_by_one();
  uint64_t count_hi = mn;
  const uint64_t enough = EnoughToList(a, b);
  // As KthPairwiseDifference, with the invariant count(lo) < k and count(hi) >= k + 1: (lo, hi]
  // holds both ranks. A midpoint between them cannot keep both: select them one at a time.
  while (hi - lo > tolerance && count_hi - count_lo > enough) {
    const double mid = lo + (hi - lo) / 2.0;
    if (mid <= lo || mid >= hi) break;
    const uint64_t count_mid = CountAtMost(a, b, mid);
    if (count_mid >= k + 1) {
      hi = mid;
      count_hi = count_mid;
    } else if (count_mid < k) {
      lo = mid;
      count_lo = count_mid;
    } else {
      return one_by_one();
    }
  }
  if (count_hi - count_lo > kEnumerateLimit) return one_by_one();  // heavy ties
  std::vector<double> between;
  ListBetween(a, b, lo, hi, true, between);
  const uint64_t rank = k - count_lo;  // 1-based within (lo, hi]; rank + 1 is there too
  if (rank + 1 > between.size()) return one_by_one();
  const auto kth = between.begin() + static_cast<ptrdiff_t>(rank - 1);
  std::nth_element(between.begin(), kth, between.end());
  return {*kth, *std::min_element(kth + 1, between.end())};
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
    const auto [low, high] = AdjacentPairwiseDifferences(a, b, mn / 2);
    result.estimate = low + (high - low) / 2.0;
  }
  const ShiftInterval interval = MosesShiftInterval(a, b, alpha);
  result.moses_rank = interval.moses_rank;
  result.ci_low = interval.low;
  result.ci_high = interval.high;
  return result;
}

}  // namespace gpuroof
