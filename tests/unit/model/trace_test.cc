#include "gpuroof/model/trace.h"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// A block whose op i carries i in every other column, so a sort that moved columns apart shows.
ActivityBlock BlockWithStarts(const std::vector<int64_t>& starts, bool with_correlation = true) {
  ActivityBlock block;
  for (size_t i = 0; i < starts.size(); ++i) {
    block.start_ns.push_back(starts[i]);
    block.end_ns.push_back(starts[i] + 1000 + static_cast<int64_t>(i));
    block.bytes.push_back(i);
    block.signature.push_back(static_cast<uint32_t>(i));
    block.stream.push_back(static_cast<uint32_t>(i));
    if (with_correlation) block.correlation.push_back(static_cast<uint32_t>(i));
    block.engine.push_back(i % 2 ? Engine::kH2D : Engine::kKernel);
  }
  return block;
}

void ExpectSortedAndConsistent(const ActivityBlock& block, const std::vector<int64_t>& starts) {
  ASSERT_TRUE(block.IsSortedByStart());
  std::vector<int64_t> expected = starts;
  std::stable_sort(expected.begin(), expected.end());
  for (size_t k = 0; k < block.size(); ++k) {
    size_t original = block.bytes[k];
    EXPECT_EQ(block.start_ns[k], expected[k]);
    EXPECT_EQ(block.start_ns[k], starts[original]);
    EXPECT_EQ(block.end_ns[k], starts[original] + 1000 + static_cast<int64_t>(original));
    EXPECT_EQ(block.signature[k], original);
    EXPECT_EQ(block.stream[k], original);
    if (!block.correlation.empty()) {
      EXPECT_EQ(block.correlation[k], original);
    }
    EXPECT_EQ(block.engine[k], original % 2 ? Engine::kH2D : Engine::kKernel);
  }
}

TEST(ActivityBlockSort, NearlySortedBlocksSortInPlace) {
  // Copies written frame by frame: each D2H starts after the next frame's H2D.
  std::vector<int64_t> starts;
  for (int64_t frame = 0; frame < 1000; ++frame) {
    starts.push_back(frame * 100);        // H2D
    starts.push_back(frame * 100 + 150);  // D2H, after the next H2D
  }
  ActivityBlock block = BlockWithStarts(starts);
  block.SortByStart();
  ExpectSortedAndConsistent(block, starts);
}

TEST(ActivityBlockSort, ShuffledBlocksFallBackToThePermutationSort) {
  std::vector<int64_t> starts(5000);
  std::mt19937_64 rng(42);
  for (int64_t& s : starts)
    s = static_cast<int64_t>(rng() % 1000);  // many equal starts
  ActivityBlock block = BlockWithStarts(starts);
  block.SortByStart();
  ExpectSortedAndConsistent(block, starts);
  // Stability: equal starts keep their original order.
  for (size_t k = 1; k < block.size(); ++k) {
    if (block.start_ns[k] == block.start_ns[k - 1]) {
      EXPECT_LT(block.bytes[k - 1], block.bytes[k]);
    }
  }
}

TEST(ActivityBlockSort, ReverseOrderWithoutCorrelationColumn) {
  std::vector<int64_t> starts;
  for (int64_t i = 3000; i > 0; --i)
    starts.push_back(i);
  ActivityBlock block = BlockWithStarts(starts, /*with_correlation=*/false);
  block.SortByStart();
  ExpectSortedAndConsistent(block, starts);
  EXPECT_TRUE(block.correlation.empty());
}

TEST(ColumnAllocator, LargeAndSmallColumnsHoldTheirValues) {
  Column<int64_t> large(3 << 20, 7);  // 24 MiB: the huge-page path
  Column<uint32_t> small(10, 3);
  EXPECT_EQ(large.front() + large.back(), 14);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large.data()) % (2 << 20), 0u);
  EXPECT_EQ(small[9], 3u);
}

TEST(Diagnostics, KeepsTheReadUsedSkippedInvariantAndMerges) {
  Diagnostics a;
  a.CountRead(10);
  a.CountUsed(8);
  a.Skip("T", "end before start", Severity::kError, 2);
  Diagnostics b;
  b.CountRead(5);
  b.CountUsed(4);
  b.Skip("T", "end before start", Severity::kError);
  b.Skip("U", "range without end", Severity::kInfo);
  a.Merge(b);
  EXPECT_EQ(a.records_read(), 15);
  EXPECT_EQ(a.records_used(), 12);
  EXPECT_EQ(a.records_skipped(), 4);
  EXPECT_EQ(a.skips().size(), 2u);
  EXPECT_TRUE(a.has_data_loss());
  Diagnostics info_only;
  info_only.Skip("U", "range without end", Severity::kInfo);
  EXPECT_FALSE(info_only.has_data_loss());
}

}  // namespace
}  // namespace gpuroof
