#include "gpuroof/analyses/regression/mann_whitney.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

void ExpectRelative(double actual, double expected, double tolerance = 1e-12) {
  EXPECT_NEAR(actual / expected, 1.0, tolerance) << actual << " vs " << expected;
}

// E1: ties, normal approximation with tie and continuity correction.
TEST(MannWhitneyTest, ExampleE1WithTies) {
  const std::vector<double> x = {1000, 1020, 1010, 1040, 1030, 1000, 1020, 1010};
  const std::vector<double> y = {1060, 1050, 1080, 1040, 1070, 1090, 1050, 1060};
  const MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(r.has_ties);
  EXPECT_DOUBLE_EQ(r.u_baseline, 0.5);
  EXPECT_DOUBLE_EQ(r.u_current, 63.5);
  ExpectRelative(r.sigma, 9.479803092188500);
  ExpectRelative(r.z, 3.270110117112502);
  ExpectRelative(r.p_value, 0.0010750562593412);
}

// E2: tie-free samples get the exact null distribution.
TEST(MannWhitneyTest, ExampleE2ExactWithoutTies) {
  const MannWhitneyResult separated = MannWhitneyU(std::vector<double>{100, 101, 102, 103},
                                                   std::vector<double>{104, 105, 106, 107});
  EXPECT_TRUE(separated.exact);
  EXPECT_DOUBLE_EQ(separated.u_baseline, 0);
  ExpectRelative(separated.p_value, 2.0 / 70.0);
  ExpectRelative(separated.sigma, 3.464101615137754);

  const MannWhitneyResult three =
      MannWhitneyU(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  ExpectRelative(three.p_value, 0.1);

  const MannWhitneyResult interleaved = MannWhitneyU(std::vector<double>{100, 102, 104, 106, 108},
                                                     std::vector<double>{101, 103, 105, 107, 109});
  EXPECT_DOUBLE_EQ(interleaved.u_baseline, 10);
  ExpectRelative(interleaved.p_value, 0.690476190476190);
}

// The exact distribution against counts by hand: m = n = 2 has the 6 arrangements with
// U = 0, 1, 2, 2, 3, 4, so P(U <= 1) = 2/6 and the two-sided p of U = 1 is 2/3.
TEST(MannWhitneyTest, ExactCountsOfTwoAgainstTwo) {
  ExpectRelative(MannWhitneyExactP(2, 2, 1), 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(MannWhitneyExactP(2, 2, 2), 1.0);
  ExpectRelative(MannWhitneyExactP(2, 2, 4), 1.0 / 3.0);
}

TEST(MannWhitneyTest, MinimumAttainableP) {
  ExpectRelative(MannWhitneyMinimumP(3, 3), 0.1);
  ExpectRelative(MannWhitneyMinimumP(4, 4), 0.02857142857142857);
  ExpectRelative(MannWhitneyMinimumP(5, 5), 2.0 / 252.0);
  ExpectRelative(MannWhitneyMinimumP(6, 6), 2.0 / 924.0);
  // 50 against 50 (the largest exact case): 2 / C(100, 50), C(100,50) = 1.0089134454556419e29.
  ExpectRelative(MannWhitneyExactP(50, 50, 0), 2.0 / 1.0089134454556419e29, 1e-10);
}

// E3: all values equal.
TEST(MannWhitneyTest, ExampleE3Identical) {
  const MannWhitneyResult r =
      MannWhitneyU(std::vector<double>{5, 5, 5}, std::vector<double>{5, 5, 5});
  EXPECT_TRUE(r.identical);
  EXPECT_EQ(r.sigma, 0);
  EXPECT_EQ(r.p_value, 1.0);
}

// Above the exact limit the normal approximation is used even without ties: 60 vs 60 fully
// separated, U1 = 0, mu = 1800, sigma^2 = 3600 * 121 / 12 = 36300.
TEST(MannWhitneyTest, LargeSamplesUseTheNormalApproximation) {
  std::vector<double> x;
  std::vector<double> y;
  for (int i = 0; i < 60; ++i) {
    x.push_back(i);
    y.push_back(100 + i);
  }
  const MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_FALSE(r.exact);
  ExpectRelative(r.z, (3600.0 - 1800.0 - 0.5) / std::sqrt(36300.0));
}

}  // namespace
}  // namespace gpuroof
