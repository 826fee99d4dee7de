#include "gpuroof/analyses/interval_union.h"

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

TEST(IntervalUnion, CountsOverlapOnce) {
  IntervalUnion u;
  u.Add(0, 10);
  u.Add(5, 15);
  u.Add(20, 30);
  EXPECT_EQ(u.length_ns(), 25);  // [0,15) + [20,30)
}

TEST(IntervalUnion, TouchingIntervalsJoinWithoutGap) {
  IntervalUnion u;
  u.Add(0, 10);
  u.Add(10, 20);
  EXPECT_EQ(u.length_ns(), 20);
}

TEST(IntervalUnion, NestedIntervalAddsNothing) {
  IntervalUnion u;
  u.Add(0, 100);
  u.Add(10, 20);
  u.Add(99, 100);
  EXPECT_EQ(u.length_ns(), 100);
}

TEST(IntervalUnion, ZeroLengthAndEmptyAddNothing) {
  IntervalUnion u;
  EXPECT_EQ(u.length_ns(), 0);
  u.Add(5, 5);
  EXPECT_EQ(u.length_ns(), 0);
  u.Add(5, 7);
  u.Add(9, 9);
  EXPECT_EQ(u.length_ns(), 2);
}

TEST(IntervalUnion, NegativeTimesWork) {
  IntervalUnion u;
  u.Add(-50, -10);
  u.Add(-20, 5);
  EXPECT_EQ(u.length_ns(), 55);
}

TEST(UnionLengthNs, SortsUnorderedInput) {
  EXPECT_EQ(UnionLengthNs({{20, 30}, {0, 10}, {5, 15}}), 25);
  EXPECT_EQ(UnionLengthNs({}), 0);
  // Same answer as a brute-force count over unit cells.
  std::vector<std::pair<int64_t, int64_t>> intervals = {{3, 9}, {1, 2}, {8, 12}, {15, 16}, {0, 1}};
  std::vector<bool> covered(20, false);
  for (auto [s, e] : intervals) {
    for (int64_t t = s; t < e; ++t)
      covered[static_cast<size_t>(t)] = true;
  }
  int64_t cells = 0;
  for (bool c : covered)
    cells += c ? 1 : 0;
  EXPECT_EQ(UnionLengthNs(intervals), cells);
}

}  // namespace
}  // namespace gpuroof
