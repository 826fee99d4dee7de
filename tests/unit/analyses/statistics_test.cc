#include "gpuroof/analyses/statistics.h"

#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

TEST(SummarizeDurations, OddCount) {
  std::vector<int64_t> d = {30, 10, 20};
  DurationStats s = SummarizeDurations(d);
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.total_ns, 60);
  EXPECT_DOUBLE_EQ(s.mean_ns, 20);
  EXPECT_DOUBLE_EQ(s.median_ns, 20);
  EXPECT_EQ(s.min_ns, 10);
  EXPECT_EQ(s.max_ns, 30);
  EXPECT_DOUBLE_EQ(s.stddev_ns, 10);  // sqrt((100 + 0 + 100) / 2)
  EXPECT_DOUBLE_EQ(s.p95_ns, 29);     // rank 0.95 * 2 = 1.9 -> 20 + 0.9 * 10
}

TEST(SummarizeDurations, EvenCountMedianIsTheMeanOfTheMiddleTwo) {
  // nsys's published example: two values 1024 and 1408 -> StdDev 271.5 (384 / sqrt 2).
  std::vector<int64_t> d = {1408, 1024};
  DurationStats s = SummarizeDurations(d);
  EXPECT_DOUBLE_EQ(s.median_ns, 1216);
  EXPECT_NEAR(s.stddev_ns, 271.529, 1e-3);
  std::vector<int64_t> four = {1, 2, 3, 100};
  EXPECT_DOUBLE_EQ(SummarizeDurations(four).median_ns, 2.5);
}

TEST(SummarizeDurations, SingleValueAndEmpty) {
  std::vector<int64_t> one = {7};
  DurationStats s = SummarizeDurations(one);
  EXPECT_EQ(s.stddev_ns, 0);
  EXPECT_EQ(s.p99_ns, 7);
  std::vector<int64_t> none;
  EXPECT_EQ(SummarizeDurations(none).count, 0);
  EXPECT_FALSE(Median(none).has_value());
}

TEST(Quantile, InterpolatesBetweenRanks) {
  std::vector<int64_t> v;
  for (int64_t i = 1; i <= 100; ++i)
    v.push_back(i);
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(*Quantile(v, 1.0), 100);
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.95), 95.05);  // rank 94.05
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.99), 99.01);
}

// 10 000 durations near the per-op limit 2^50 add past int64: the total is written clamped, but
// the mean and stddev come from the exact sum (a clamped one gave a mean 18 % low).
TEST(SummarizeDurations, MeanAndStddevStayExactPastTheInt64Total) {
  constexpr int64_t kLimit = int64_t{1} << 50;
  std::vector<int64_t> durations;
  for (int64_t k = 0; k < 10000; ++k)
    durations.push_back(kLimit - k);
  const DurationStats stats = SummarizeDurations(durations);
  EXPECT_EQ(stats.total_ns, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(WideSumText(stats.exact_total_ns), "11258999068376245000");  // 10^4 2^50 - 49995000
  EXPECT_DOUBLE_EQ(stats.mean_ns, static_cast<double>(kLimit) - 4999.5);
  EXPECT_NEAR(stats.stddev_ns, 2886.8956799071675, 1e-3);  // sample stddev of 0..9999
}

}  // namespace
}  // namespace gpuroof
