#include "gpuroof/analyses/segments.h"

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

TEST(Segments, AppendMergedJoinsOverlappingAndTouchingIntervals) {
  Segments s;
  AppendMerged(s, 0, 10);
  AppendMerged(s, 5, 12);   // overlaps
  AppendMerged(s, 12, 20);  // touches
  AppendMerged(s, 25, 30);  // a gap: a new segment
  AppendMerged(s, 26, 28);  // nested: nothing new
  EXPECT_EQ(s, (Segments{{0, 20}, {25, 30}}));
  EXPECT_EQ(SegmentsLengthNs(s), 25);
}

TEST(Segments, AppendMergedKeepsAZeroLengthInterval) {
  // A point range still holds a point op at its instant; its length is 0.
  Segments s;
  AppendMerged(s, 5, 5);
  AppendMerged(s, 9, 9);
  AppendMerged(s, 9, 12);
  EXPECT_EQ(s, (Segments{{5, 5}, {9, 12}}));
  EXPECT_EQ(SegmentsLengthNs(s), 3);
}

TEST(Segments, IntersectionCountsTimeBothCover) {
  const Segments a{{0, 10}, {20, 30}, {40, 50}};
  const Segments b{{5, 25}, {28, 45}};
  // [5,10) + [20,25) + [28,30) + [40,45)
  EXPECT_EQ(IntersectionLengthNs(a, b), 17);
  EXPECT_EQ(IntersectionLengthNs(b, a), 17);
  EXPECT_EQ(IntersectionLengthNs(a, {}), 0);
}

TEST(Segments, UncoveredIsTheRestOfTheFirst) {
  const Segments a{{0, 10}, {20, 30}, {40, 50}};
  const Segments b{{5, 25}, {28, 45}};
  EXPECT_EQ(UncoveredSegments(a, b), (Segments{{0, 5}, {25, 28}, {45, 50}}));
  EXPECT_EQ(UncoveredLengthNs(a, b), 13);
  EXPECT_EQ(UncoveredLengthNs(a, b) + IntersectionLengthNs(a, b), SegmentsLengthNs(a));
  EXPECT_EQ(UncoveredSegments(a, {}), a);
}

}  // namespace
}  // namespace gpuroof
