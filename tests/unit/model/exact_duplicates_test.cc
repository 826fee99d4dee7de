#include "gpuroof/model/exact_duplicates.h"

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

struct Op {
  int64_t start = 0;
  int64_t end = 0;
  uint32_t stream = 0;
  uint32_t correlation = 1;
  Engine engine = Engine::kKernel;
  uint64_t bytes = 0;
};

ActivityBlock BlockOf(const std::vector<Op>& ops, bool with_correlation = true) {
  ActivityBlock block;
  for (const Op& op : ops) {
    block.start_ns.push_back(op.start);
    block.end_ns.push_back(op.end);
    block.bytes.push_back(op.bytes);
    block.signature.push_back(static_cast<uint32_t>(op.engine));
    block.stream.push_back(op.stream);
    if (with_correlation) block.correlation.push_back(op.correlation);
    block.engine.push_back(op.engine);
  }
  return block;
}

TEST(ExactDuplicates, OnlyOpsThatTakeTimeOnAStreamAreDuplicates) {
  ActivityBlock block = BlockOf({
      {100, 200, 1},                          // kept
      {100, 200, 1},                          // its copy: removed
      {100, 200, 2},                          // another stream: kept
      {100, 200, 1, 9},                       // another correlation id: kept
      {150, 150, 1},                          // zero duration (a graph node): kept
      {150, 150, 1},                          // and its twin too
      {300, 400, 0, 0, Engine::kUvmH2D, 64},  // a migration: on no stream, never a duplicate
      {300, 400, 0, 0, Engine::kUvmH2D, 64},
      {300, 400, 1, 1, Engine::kH2D, 64},  // kept
      {300, 400, 1, 1, Engine::kH2D, 64},  // removed
      {300, 400, 1, 1, Engine::kH2D, 32},  // other bytes: kept
  });
  EXPECT_EQ(DropExactDuplicates(block), 2u);
  ASSERT_EQ(block.size(), 9u);
  EXPECT_EQ(block.stream[1], 2u);
  EXPECT_EQ(block.correlation[2], 9u);
  EXPECT_EQ(block.bytes[8], 32u);
  ActivityBlock again = block;
  EXPECT_EQ(DropExactDuplicates(again), 0u);
}

TEST(ExactDuplicates, WithoutCorrelationIdsTheRuleIsTheSame) {
  // What an engine-load read sees: every command counts the same ops.
  ActivityBlock block = BlockOf({{100, 200, 1}, {100, 200, 1}, {150, 150, 1}, {150, 150, 1}},
                                /*with_correlation=*/false);
  EXPECT_EQ(DropExactDuplicates(block), 1u);
  EXPECT_EQ(block.size(), 3u);
  EXPECT_TRUE(block.correlation.empty());
}

TEST(ExactDuplicates, ACopyInALaterBlockIsRemovedThereAndTheFirstIsKept) {
  // A table appended to itself: the second half, in its own block, repeats the first.
  std::vector<Op> ops;
  for (int64_t i = 0; i < 100; ++i)
    ops.push_back({i * 10, i * 10 + 5, static_cast<uint32_t>(i % 3), static_cast<uint32_t>(i)});
  std::vector<ActivityBlock> blocks = {BlockOf(ops), BlockOf({{2000, 2100, 1}}), BlockOf(ops)};
  const std::vector<size_t> removed = DropExactDuplicatesAcrossBlocks(blocks);
  EXPECT_EQ(removed, (std::vector<size_t>{0, 0, 100}));
  EXPECT_EQ(blocks[0].size(), 100u);
  EXPECT_EQ(blocks[1].size(), 1u);
  EXPECT_EQ(blocks[2].size(), 0u);
}

TEST(ExactDuplicates, BlocksInTimeOrderOnlyCompareWhereTheyMeet) {
  // Two chunks whose times meet at 500: the one op there repeated is removed; the rest are not
  // duplicates, however alike (other starts), and a zero-duration twin stays.
  std::vector<ActivityBlock> blocks = {
      BlockOf({{100, 200, 1}, {300, 400, 1}, {500, 600, 1}, {500, 500, 1}}),
      BlockOf({{500, 500, 1}, {500, 600, 1}, {500, 600, 2}, {700, 800, 1}}),
  };
  EXPECT_EQ(DropExactDuplicatesAcrossBlocks(blocks), (std::vector<size_t>{0, 1}));
  ASSERT_EQ(blocks[1].size(), 3u);
  EXPECT_EQ(blocks[1].end_ns[0], 500);
  EXPECT_EQ(blocks[1].stream[1], 2u);
  EXPECT_EQ(blocks[1].start_ns[2], 700);
}

TEST(ExactDuplicates, BlocksOfOtherStreamsAreNotMergedButTheirCopiesAreFound) {
  // A table in device order: the blocks of stream 1 and of stream 2 cover the same times (only
  // blocks whose streams meet are merged); each stream's later block repeats an op of its first.
  std::vector<ActivityBlock> blocks = {
      BlockOf({{0, 10, 1}, {50, 60, 1}, {100, 110, 1}}),
      BlockOf({{0, 10, 2}, {50, 60, 2}, {100, 110, 2}}),
      BlockOf({{100, 110, 1}, {150, 160, 1}}),
      BlockOf({{50, 60, 2}, {100, 111, 2}, {150, 160, 2}}),
  };
  EXPECT_EQ(DropExactDuplicatesAcrossBlocks(blocks), (std::vector<size_t>{0, 0, 1, 1}));
  EXPECT_EQ(blocks[2].start_ns[0], 150);
  EXPECT_EQ(blocks[3].end_ns[0], 111);
}

TEST(ExactDuplicates, NothingSharedNothingRemoved) {
  std::vector<ActivityBlock> blocks = {BlockOf({{100, 200}}), BlockOf({{300, 400}}), BlockOf({})};
  EXPECT_EQ(DropExactDuplicatesAcrossBlocks(blocks), (std::vector<size_t>{0, 0, 0}));
  std::vector<ActivityBlock> none;
  EXPECT_TRUE(DropExactDuplicatesAcrossBlocks(none).empty());
}

}  // namespace
}  // namespace gpuroof
