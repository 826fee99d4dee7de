#include "gpuroof/analyses/regression/decision.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// E4's numbers: 99 % CI [104/102, 105/97], estimate 1.050252494893634.
TEST(DecisionTest, ExampleE4SingleRunIsInconclusiveAndMultiRunRegressed) {
  const GateSettings settings;
  const double theta = std::log(1.050252494893634);
  const double low = std::log(104.0 / 102.0);
  const double high = std::log(105.0 / 97.0);
  EXPECT_EQ(Decide(theta, low, high, settings.floor_time, settings), Verdict::kInconclusive);
  EXPECT_EQ(Decide(theta, low, high, 0.0, settings), Verdict::kRegressed);
}

TEST(DecisionTest, RuleOrder) {
  const GateSettings settings;  // floor 3 %, min effect 2 %, target 5 %
  auto ln = [](double ratio) { return std::log(ratio); };
  // Above the floor and the minimum effect.
  EXPECT_EQ(Decide(ln(1.06), ln(1.04), ln(1.08), 0.03, settings), Verdict::kRegressed);
  // Lower bound under the floor but the interval reaches the target.
  EXPECT_EQ(Decide(ln(1.04), ln(1.02), ln(1.06), 0.03, settings), Verdict::kInconclusive);
  EXPECT_EQ(Decide(ln(0.94), ln(0.92), ln(0.96), 0.03, settings), Verdict::kImproved);
  // Significant but small.
  EXPECT_EQ(Decide(ln(1.01), ln(1.005), ln(1.015), 0.03, settings), Verdict::kWithinNoise);
  EXPECT_EQ(Decide(ln(0.99), ln(0.985), ln(0.995), 0.03, settings), Verdict::kWithinNoise);
  EXPECT_EQ(Decide(0, ln(0.99), ln(1.01), 0.03, settings), Verdict::kNoChange);
  // Over the floor but under the minimum effect: not REGRESSED (multi-run, f = 0).
  EXPECT_EQ(Decide(ln(1.015), ln(1.01), ln(1.02), 0.0, settings), Verdict::kWithinNoise);
}

// E9: the limit is +1.571 % over the history mean.
TEST(DecisionTest, ExampleE9History) {
  const GateSettings settings;
  const double mean = 3.719638623923532;
  const double half_width = std::log(41.8976) - mean;
  const double geomean = std::exp(mean);
  EXPECT_EQ(DecideHistory(std::log(42.4), mean, half_width, settings), Verdict::kRegressed);
  EXPECT_NEAR(42.4 / geomean - 1, 0.0279, 1e-4);
  EXPECT_EQ(DecideHistory(std::log(41.9), mean, half_width, settings), Verdict::kWithinNoise);
  EXPECT_EQ(DecideHistory(std::log(41.3), mean, half_width, settings), Verdict::kNoChange);
}

// E10: share 20 %, ratio 1.124 -> impact +2.48 %.
TEST(DecisionTest, ExampleE10Impact) {
  EXPECT_NEAR(KernelImpact(0.20, 1.124), 0.0248, 1e-12);
}

TEST(DecisionTest, LowNThreshold) {
  const GateSettings settings;
  EXPECT_TRUE(LowNExceedsThreshold(1.06, 0.03, settings));
  EXPECT_FALSE(LowNExceedsThreshold(1.04, 0.03, settings));
}

// F2: history mode says INCONCLUSIVE when the run is above the history mean and the band is too
// wide to rule out a target-size regression (delta + q >= ln 1.05), as the two-sided rule does.
TEST(DecisionTest, HistoryBandTooWideIsInconclusive) {
  const GateSettings settings;
  const double q = std::log(1.164);  // a noisy history: +-16.4 %
  EXPECT_EQ(DecideHistory(std::log(1.08), 0.0, q, settings), Verdict::kInconclusive);
  EXPECT_EQ(DecideHistory(std::log(1.001), 0.0, std::log(1.06), settings), Verdict::kInconclusive);
  // At or below the centre: not inconclusive.
  EXPECT_EQ(DecideHistory(0.0, 0.0, q, settings), Verdict::kNoChange);
  EXPECT_EQ(DecideHistory(std::log(0.97), 0.0, q, settings), Verdict::kNoChange);
  // A narrow band: +1 % with q = 1.5 % cannot hide a 5 % regression.
  EXPECT_EQ(DecideHistory(std::log(1.01), 0.0, std::log(1.015), settings), Verdict::kNoChange);
}

}  // namespace
}  // namespace gpuroof
