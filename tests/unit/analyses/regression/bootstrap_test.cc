#include "gpuroof/analyses/regression/bootstrap.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// SplitMix64 reference outputs (§4.3): seed 0 -> 0xE220A8397B1DCDAF, seed 42 -> 0xBDD732262FEB6E95.
TEST(BootstrapTest, SplitMix64ReferenceOutputs) {
  EXPECT_EQ(SplitMix64(0).Next(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(SplitMix64(42).Next(), 0xBDD732262FEB6E95ULL);
}

// E5: the first three replicates' index draws, then the interval.
TEST(BootstrapTest, ExampleE5Draws) {
  SplitMix64 rng(42);
  const std::vector<std::vector<size_t>> draws = {
      {5, 1, 2, 2, 0, 6, 1, 6}, {2, 4, 1, 3, 4, 4, 5, 1}, {0, 3, 0, 5, 7, 0, 4, 4},
      {0, 2, 5, 6, 7, 5, 6, 6}, {5, 6, 5, 3, 0, 2, 6, 0}, {4, 1, 2, 6, 5, 2, 0, 1}};
  for (const auto& expected : draws) {
    for (size_t index : expected)
      EXPECT_EQ(rng.NextIndex(8), index);
  }
}

TEST(BootstrapTest, ExampleE5Interval) {
  const std::vector<double> x = {100, 102, 98, 101, 99, 103, 100, 97};
  const std::vector<double> y = {105, 104, 108, 103, 106, 107, 104, 105};
  const BootstrapInterval r = BootstrapMedianRatio(x, y, 0.05);
  EXPECT_DOUBLE_EQ(r.estimate, 1.05);
  EXPECT_NEAR(r.low, 105.0 / 102.0, 1e-12);
  EXPECT_NEAR(r.high, 106.0 / 98.5, 1e-12);
}

TEST(BootstrapTest, MedianOfOddAndEvenCounts) {
  std::vector<double> odd = {3, 1, 2};
  std::vector<double> even = {4, 1, 3, 2};
  EXPECT_EQ(MedianInPlace(odd), 2);
  EXPECT_EQ(MedianInPlace(even), 2.5);
}

}  // namespace
// Quantiles by selection equal those of the sorted values: by hand on [40, 10, 30, 20] (sorted
// 10 20 30 40: p25 at rank 0.75 = 17.5, p75 at rank 2.25 = 32.5), and on random data with ties.
TEST(BootstrapTest, SelectedQuantilesEqualSortedOnes) {
  std::vector<double> four = {40, 10, 30, 20};
  EXPECT_EQ(SelectQuantile(four, 0.25), 17.5);
  EXPECT_EQ(SelectQuantile(four, 0.75), 32.5);
  SplitMix64 rng(3);
  for (size_t n : {1u, 2u, 7u, 100u, 1001u}) {
    std::vector<double> values;
    for (size_t i = 0; i < n; ++i)
      values.push_back(static_cast<double>(rng.NextIndex(50)));
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    for (double q : {0.0, 0.25, 0.5, 0.75, 1.0})
      EXPECT_EQ(SelectQuantile(values, q), SortedQuantile(sorted, q)) << n << " q=" << q;
  }
}

}  // namespace gpuroof
