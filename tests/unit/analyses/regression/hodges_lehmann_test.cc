#include "gpuroof/analyses/regression/hodges_lehmann.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/analyses/regression/bootstrap.h"

namespace gpuroof {
namespace {

std::vector<double> SortedLogs(std::vector<double> values) {
  for (double& v : values)
    v = std::log(v);
  std::sort(values.begin(), values.end());
  return values;
}

// E4 tiny hand example: differences [-1, 1, 1, 3, 3, 5, 6, 8, 10], median 3.
TEST(HodgesLehmannTest, TinyHandExample) {
  const std::vector<double> x = {10, 12, 14};
  const std::vector<double> y = {13, 15, 20};
  const std::vector<double> sorted = {-1, 1, 1, 3, 3, 5, 6, 8, 10};
  for (uint64_t k = 1; k <= 9; ++k)
    EXPECT_EQ(KthPairwiseDifference(x, y, k), sorted[k - 1]) << k;
  EXPECT_EQ(HodgesLehmannShift(x, y, 0.05).estimate, 3);
}

// E4: log-scale estimate and the 95 % / 99 % Moses intervals.
TEST(HodgesLehmannTest, ExampleE4LogRatioAndMosesIntervals) {
  const auto a = SortedLogs({100, 102, 98, 101, 99, 103, 100, 97});
  const auto b = SortedLogs({105, 104, 108, 103, 106, 107, 104, 105});
  const ShiftEstimate at95 = HodgesLehmannShift(a, b, 0.05);
  EXPECT_NEAR(at95.estimate / 0.049030606588107, 1.0, 1e-12);
  EXPECT_NEAR(std::exp(at95.estimate) / 1.050252494893634, 1.0, 1e-12);
  EXPECT_EQ(at95.moses_rank, 13);
  ASSERT_TRUE(at95.ci_low && at95.ci_high);
  EXPECT_NEAR(*at95.ci_low / 0.029270382300113, 1.0, 1e-12);
  EXPECT_NEAR(*at95.ci_high / 0.069679920637990, 1.0, 1e-12);
  EXPECT_NEAR(std::exp(*at95.ci_low), 104.0 / 101.0, 1e-12);
  EXPECT_NEAR(std::exp(*at95.ci_high), 104.0 / 97.0, 1e-12);

  const ShiftEstimate at99 = HodgesLehmannShift(a, b, 0.01);
  EXPECT_EQ(at99.moses_rank, 7);
  EXPECT_NEAR(std::exp(*at99.ci_low), 104.0 / 102.0, 1e-12);
  EXPECT_NEAR(std::exp(*at99.ci_high), 105.0 / 97.0, 1e-12);
}

// Minimum n per side for a finite Moses interval (§4.2): alpha 0.05 -> 4, 0.01 -> 6, 0.002 -> 8.
TEST(HodgesLehmannTest, MosesRankNeedsEnoughSamples) {
  EXPECT_LT(MosesRank(3, 3, 0.05), 1);
  EXPECT_GE(MosesRank(4, 4, 0.05), 1);
  EXPECT_LT(MosesRank(5, 5, 0.01), 1);
  EXPECT_GE(MosesRank(6, 6, 0.01), 1);
  EXPECT_LT(MosesRank(7, 7, 0.002), 1);
  EXPECT_GE(MosesRank(8, 8, 0.002), 1);
  const ShiftEstimate few =
      HodgesLehmannShift(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6}, 0.01);
  EXPECT_FALSE(few.ci_low.has_value());
}

// Two sorted random samples of m and n values — integers in [0, a_max) and [0, b_max) (many
// ties), or logs of 1000 + [0, 10^6) (none) — and every difference b_j - a_i, sorted: the table
// the selections are checked against.
struct RandomSamples {
  std::vector<double> a;
  std::vector<double> b;
  std::vector<double> all;
};

RandomSamples MakeSamples(SplitMix64& rng, size_t m, size_t n, bool integers, size_t a_max,
                          size_t b_max) {
  auto value = [&](size_t max) {
    return integers ? static_cast<double>(rng.NextIndex(max))
                    : std::log(1000.0 + static_cast<double>(rng.NextIndex(1000000)));
  };
  RandomSamples s;
  for (size_t i = 0; i < m; ++i)
    s.a.push_back(value(a_max));
  for (size_t j = 0; j < n; ++j)
    s.b.push_back(value(b_max));
  std::sort(s.a.begin(), s.a.end());
  std::sort(s.b.begin(), s.b.end());
  for (double ai : s.a)
    for (double bj : s.b)
      s.all.push_back(bj - ai);
  std::sort(s.all.begin(), s.all.end());
  return s;
}

// The selection against the full sorted table of differences, on random data with many ties
// (integers) and without (doubles), including samples of very different sizes.
TEST(HodgesLehmannTest, SelectionMatchesTheFullTable) {
  SplitMix64 rng(7);
  for (int round = 0; round < 30; ++round) {
    const size_t m = 1 + rng.NextIndex(40);
    const size_t n = 1 + rng.NextIndex(60);
    const RandomSamples s = MakeSamples(rng, m, n, round % 2 == 0, 10, 12);
    for (uint64_t k = 1; k <= s.all.size(); k += 1 + s.all.size() / 17)
      EXPECT_EQ(KthPairwiseDifference(s.a, s.b, k), s.all[k - 1]) << round << " k=" << k;
    EXPECT_EQ(KthPairwiseDifference(s.a, s.b, s.all.size()), s.all.back());
  }
}

// Two adjacent ranks from one bisection equal the full table's, on samples large enough for the
// bisection to run (m*n = 420000 differences, listing only below 5200), with and without ties.
TEST(HodgesLehmannTest, AdjacentSelectionMatchesTheFullTable) {
  SplitMix64 rng(11);
  for (bool integers : {false, true}) {
    const RandomSamples s = MakeSamples(rng, 600, 700, integers, 50, 60);
    for (uint64_t k : {uint64_t{1}, uint64_t{2}, uint64_t{1000}, uint64_t{209999}, uint64_t{210000},
                       uint64_t{377777}, s.all.size() - 1}) {
      const auto [kth, next] = AdjacentPairwiseDifferences(s.a, s.b, k);
      EXPECT_EQ(kth, s.all[k - 1]) << integers << " k=" << k;
      EXPECT_EQ(next, s.all[k]) << integers << " k=" << k;
    }
  }
}

// A sample against itself: the differences are symmetric, so the estimate is exactly 0.
TEST(HodgesLehmannTest, SelfComparisonIsExactlyZero) {
  const auto a = SortedLogs({1000, 1010, 990, 1005, 1003, 998, 1001, 1020});
  const ShiftEstimate r = HodgesLehmannShift(a, a, 0.01);
  EXPECT_EQ(r.estimate, 0.0);
  EXPECT_EQ(*r.ci_low, -*r.ci_high);
}

}  // namespace
}  // namespace gpuroof
