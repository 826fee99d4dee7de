#include "gpuroof/analyses/regression/distributions.h"

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// Reference quantiles: the normal ones as printed tables give them (Abramowitz & Stegun 26.2),
// the t ones as refs/regression-gate.md §5 quotes them (checked with mpmath).
TEST(DistributionsTest, NormalQuantilesMatchTables) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.995), 2.5758293035489004, 1e-13);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  EXPECT_NEAR(NormalQuantile(0.025), -1.959963984540054, 1e-13);
  // Deep tail (p = 1e-10): z = -6.361340902404056.
  EXPECT_NEAR(NormalQuantile(1e-10), -6.361340902404056, 1e-11);
}

TEST(DistributionsTest, NormalTailRoundTrips) {
  for (double p : {1e-12, 1e-6, 0.001, 0.1, 0.3, 0.7, 0.9, 0.999}) {
    EXPECT_NEAR(NormalUpperTail(-NormalQuantile(p)) / p, 1.0, 1e-12) << p;
  }
  EXPECT_NEAR(NormalUpperTail(0), 0.5, 1e-16);
}

// E8 and E9 of the reference: t_{0.995,8} and t_{0.99,9}.
TEST(DistributionsTest, StudentQuantilesOfTheWorkedExamples) {
  EXPECT_NEAR(StudentTQuantile(0.995, 8) / 3.355387331333396, 1.0, 1e-12);
  // The reference prints t_{0.99,9} = 2.821437923300549; that is off by 6e-10 relative. The
  // value below is from mpmath 1.3 (40 digits, betainc inverted by findroot).
  EXPECT_NEAR(StudentTQuantile(0.99, 9) / 2.8214379250258082, 1.0, 1e-12);
  EXPECT_NEAR(StudentTQuantile(0.99, 9) / 2.821437923300549, 1.0, 1e-9);
  // df = 1 is Cauchy: t_p = tan(pi (p - 1/2)); t_{0.975,1} = 12.706204736174698.
  EXPECT_NEAR(StudentTQuantile(0.975, 1) / 12.706204736174698, 1.0, 1e-12);
  // df = 2 has the closed form t = (2p - 1) sqrt(2 / (4p(1-p))): p = 0.9 -> 1.8856180831641267.
  EXPECT_NEAR(StudentTQuantile(0.9, 2) / 1.8856180831641267, 1.0, 1e-12);
  EXPECT_NEAR(StudentTQuantile(0.1, 2) / -1.8856180831641267, 1.0, 1e-12);
  // Large df approaches the normal.
  EXPECT_NEAR(StudentTQuantile(0.995, 1e7), 2.5758293035489004, 1e-5);
}

TEST(DistributionsTest, StudentTailIsHalfAtZeroAndSymmetric) {
  EXPECT_NEAR(StudentTUpperTail(0, 5), 0.5, 1e-15);
  EXPECT_NEAR(StudentTUpperTail(1.5, 5) + StudentTUpperTail(-1.5, 5), 1.0, 1e-15);
  // df = 1: P(T > 1) = 1/4 exactly (Cauchy).
  EXPECT_NEAR(StudentTUpperTail(1, 1), 0.25, 1e-15);
}

TEST(DistributionsTest, IncompleteBetaClosedForms) {
  // I_x(1, 1) = x; I_x(2, 1) = x^2; I_x(1, 2) = 1 - (1-x)^2.
  EXPECT_NEAR(RegularizedIncompleteBeta(0.3, 1, 1), 0.3, 1e-15);
  EXPECT_NEAR(RegularizedIncompleteBeta(0.3, 2, 1), 0.09, 1e-15);
  EXPECT_NEAR(RegularizedIncompleteBeta(0.3, 1, 2), 0.51, 1e-15);
  EXPECT_EQ(RegularizedIncompleteBeta(0, 2, 3), 0.0);
  EXPECT_EQ(RegularizedIncompleteBeta(1, 2, 3), 1.0);
}

}  // namespace
}  // namespace gpuroof
