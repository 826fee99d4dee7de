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

// The regression gate asks a cut to leave 3 batches (F3): with 10-14 iterations (B = 2) the only
// candidate is d = 0, so a stationary capture keeps all but the first iteration and is not "no
// steady state" (the reference's cap d = 1 would leave one batch, whose MSER is 0 and always wins).
TEST(MserTest, ACutMustLeaveThreeBatchesWhenAsked) {
  const std::vector<double> series = {100, 101, 99, 100, 102, 98, 100, 101, 99, 100};
  const MserResult reference = MserTruncation(series);
  EXPECT_EQ(reference.dropped, 5u);  // the reference rule: the cap, always
  EXPECT_TRUE(reference.hit_cap);
  const MserResult gate = MserTruncation(series, 5, 3);
  EXPECT_EQ(gate.truncated_batches, 0u);
  EXPECT_EQ(gate.dropped, 1u);
  EXPECT_FALSE(gate.hit_cap);
}

// E6 (B = 8): the 3-batch rule leaves the cap at 4, and d* = 2 as in the reference.
TEST(MserTest, ExampleE6UnderTheThreeBatchRule) {
  const std::vector<double> series = {130, 122, 115, 109, 105, 103, 101, 100, 101, 100,
                                      99,  100, 101, 100, 100, 99,  101, 100, 100, 101,
                                      99,  100, 100, 101, 100, 99,  101, 100, 100, 100,
                                      101, 99,  100, 100, 101, 99,  100, 101, 100, 100};
  const MserResult result = MserTruncation(series, 5, 3);
  EXPECT_EQ(result.statistic.size(), 5u);
  EXPECT_EQ(result.dropped, 10u);
  EXPECT_FALSE(result.hit_cap);
}

}  // namespace
}  // namespace gpuroof
