#include "gpuroof/analyses/mser.h"

#include <vector>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// the gate reference's example E6 (docs/metrics.md, "Steady state").
TEST(MserTest, WarmUpOfExampleE6DropsTenIterations) {
  const std::vector<double> series = {130, 122, 115, 109, 105, 103, 101, 100, 101, 100,
                                      99,  100, 101, 100, 100, 99,  101, 100, 100, 101,
                                      99,  100, 100, 101, 100, 99,  101, 100, 100, 100,
                                      101, 99,  100, 100, 101, 99,  100, 101, 100, 100};
  const MserResult result = MserTruncation(series);
  const std::vector<double> means = {116.2, 101.0, 100.0, 100.2, 100.0, 100.0, 100.2, 100.0};
  ASSERT_EQ(result.batch_means.size(), means.size());
  for (size_t i = 0; i < means.size(); ++i)
    EXPECT_NEAR(result.batch_means[i], means[i], 1e-12);
  const std::vector<double> mser = {3.5125, 0.016326530612245, 0.001481481481481, 0.00192,
                                    0.001875};
  ASSERT_EQ(result.statistic.size(), mser.size());
  for (size_t d = 0; d < mser.size(); ++d)
    EXPECT_NEAR(result.statistic[d], mser[d], 1e-12);
  EXPECT_EQ(result.truncated_batches, 2u);
  EXPECT_EQ(result.dropped, 10u);
  EXPECT_FALSE(result.hit_cap);
}

TEST(MserTest, FlatSeriesDropsOneIteration) {
  const std::vector<double> series(20, 7.0);
  const MserResult result = MserTruncation(series);
  EXPECT_EQ(result.truncated_batches, 0u);
  EXPECT_EQ(result.dropped, 1u);
  EXPECT_FALSE(result.hit_cap);
}

TEST(MserTest, SteadilyFallingSeriesHitsTheCap) {
  std::vector<double> series;
  for (int i = 0; i < 40; ++i)
    series.push_back(200.0 - i);
  const MserResult result = MserTruncation(series);
  EXPECT_EQ(result.truncated_batches, 4u);
  EXPECT_TRUE(result.hit_cap);
}

TEST(MserTest, TooShortForTwoBatches) {
  const std::vector<double> series = {1, 2, 3, 4, 5, 6, 7};
  const MserResult result = MserTruncation(series);
  EXPECT_EQ(result.batch_means.size(), 1u);
  EXPECT_EQ(result.dropped, 0u);
  EXPECT_TRUE(result.hit_cap);
}

}  // namespace
}  // namespace gpuroof
