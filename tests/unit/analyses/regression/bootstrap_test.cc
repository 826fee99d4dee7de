#include "gpuroof/analyses/regression/bootstrap.h"

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
}  // namespace gpuroof
