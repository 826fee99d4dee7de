#include "gpuroof/analyses/regression/run_level.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/analyses/regression/holm.h"
#include "gpuroof/analyses/regression/mann_whitney.h"

namespace gpuroof {
namespace {

std::vector<double> Logs(std::vector<double> values) {
  for (double& v : values)
    v = std::log(v);
  return values;
}

void ExpectRelative(double actual, double expected, double tolerance = 1e-12) {
  EXPECT_NEAR(actual / expected, 1.0, tolerance) << actual << " vs " << expected;
}

// E8: five runs per side.
TEST(RunLevelTest, ExampleE8PooledT) {
  const auto base = Logs({41.2, 41.5, 40.9, 41.3, 41.1});
  const auto current = Logs({43.0, 43.4, 42.8, 43.3, 42.9});
  const auto r = PooledT(base, current, 0.01);
  ASSERT_TRUE(r.has_value());
  ExpectRelative(r->mean_difference, 0.044617950444004);
  ExpectRelative(r->pooled_sd, 0.005723302987745);
  ExpectRelative(r->standard_error, 0.003619734636104);
  EXPECT_EQ(r->df, 8);
  EXPECT_NEAR(r->t, 12.3263, 1e-4);
  ExpectRelative(r->t_quantile, 3.355387331333396);
  ExpectRelative(std::exp(r->ci_low), 1.033005318482090);
  ExpectRelative(std::exp(r->ci_high), 1.058405533717218);
  ExpectRelative(std::exp(r->mean_difference), 1.045628301759646);
  EXPECT_NEAR(RunLevelMde(r->standard_error, r->df, 0.01), 0.0155, 0.0001);
  // Exact MWU on the run medians: fully separated 5 vs 5 -> 2 / C(10, 5).
  ExpectRelative(MannWhitneyU(base, current).p_value, 0.007936507936508);
}

TEST(RunLevelTest, OneRunOnASideUsesTheOtherSidesVariance) {
  const auto base = Logs({41.2, 41.5, 40.9});
  const auto current = Logs({43.0});
  const auto r = PooledT(base, current, 0.01);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->df, 2);
  ExpectRelative(r->pooled_sd, std::sqrt(SampleVariance(base)));
  EXPECT_FALSE(PooledT(Logs({1.0}), Logs({2.0}), 0.01).has_value());
}

// E9: ten history runs, one-sided 99 % prediction limit.
TEST(RunLevelTest, ExampleE9PredictionLimit) {
  const auto history = Logs({41.2, 41.5, 40.9, 41.3, 41.1, 41.6, 41.0, 41.4, 41.2, 41.3});
  const auto r = HistoryPredictionLimit(history, 0.01);
  ASSERT_TRUE(r.has_value());
  ExpectRelative(r->mean, 3.719638623923532);
  ExpectRelative(r->sd, 0.005268155659993);
  // The reference's t_{0.99,9} = 2.821437923300549 is off by 6e-10 (mpmath: 2.8214379250258082).
  ExpectRelative(r->t_quantile, 2.8214379250258082);
  EXPECT_NEAR(std::exp(r->limit), 41.8976, 1e-4);
  EXPECT_NEAR(std::expm1(r->limit - r->mean), 0.01571, 1e-5);
}

// E7: Holm at alpha 0.01.
TEST(RunLevelTest, ExampleE7Holm) {
  const std::vector<double> p = {0.04, 0.0004, 0.2, 0.003, 0.012};  // shuffled on purpose
  const std::vector<double> expected = {0.08, 0.002, 0.2, 0.012, 0.036};
  const auto adjusted = HolmAdjust(p);
  ASSERT_EQ(adjusted.size(), expected.size());
  for (size_t i = 0; i < p.size(); ++i)
    EXPECT_NEAR(adjusted[i], expected[i], 1e-15) << i;
}

}  // namespace
}  // namespace gpuroof
