#include "gpuroof/format/number_format.h"

#include <cmath>
#include <cstdlib>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

TEST(ShortestDouble, RoundTripsExactly) {
  for (double value : {0.1, 16.341825, 1.0 / 3.0, 61193.0412, 1e-9, 123456789.123456789, 5.0}) {
    std::string text = ShortestDouble(value);
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
  }
  EXPECT_EQ(ShortestDouble(0.1), "0.1");
  EXPECT_EQ(ShortestDouble(16.341825), "16.341825");
  EXPECT_EQ(ShortestDouble(std::nan("")), "");
  EXPECT_EQ(ShortestDouble(std::optional<double>{}), "");
}

TEST(FixedDouble, RoundsForHumans) {
  EXPECT_EQ(FixedDouble(16.341825, 3), "16.342");
  EXPECT_EQ(FixedDouble(std::nullopt, 3), "-");
}

// A cost is never printed as nothing: a non-zero value that would round to zero says how small.
TEST(FixedDouble, ANonZeroValueNeverPrintsAsZero) {
  EXPECT_EQ(FixedDouble(0.004, 2), "<0.01");
  EXPECT_EQ(FixedDouble(-0.004, 2), ">-0.01");
  EXPECT_EQ(FixedDouble(0.005, 2), "0.01");
  EXPECT_EQ(FixedDouble(0.0, 2), "0.00");
  EXPECT_EQ(FixedDouble(0.3, 0), "<1");
}

TEST(HumanUnits, PickAReadableScale) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(131072000), "131.07 MB");
  EXPECT_EQ(HumanDurationNs(16350), "16.350 us");
  EXPECT_EQ(HumanDurationNs(32691290), "32.691 ms");
  EXPECT_EQ(HumanDurationNs(2.5e9), "2.500 s");
  EXPECT_EQ(HumanDurationNs(12), "12 ns");
}

}  // namespace
}  // namespace gpuroof
