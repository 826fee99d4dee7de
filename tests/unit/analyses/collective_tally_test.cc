// The collective tally (collective_tally.h): ranks folded in any order, by any split into
// merged shares, match as the whole set does; ties at the latest arrival go to the first rank in
// the final order, whatever the fold order; parts that no tally has are refused.
#include "gpuroof/analyses/collective_tally.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/analyses/rank_set.h"

namespace gpuroof {
namespace {

// (step, order, name, arrival_ns) per collective.
RankSummary Arrivals(const std::vector<std::tuple<size_t, size_t, std::string, int64_t>>& list) {
  RankSummary rank;
  for (const auto& [step, order, name, arrival_ns] : list)
    rank.AddCollective(step, order, name, arrival_ns);
  return rank;
}

// Four ranks; (0,0,all_reduce): 10 30 30 20 -> spread 20, ranks 1 and 2 tie last;
// (0,1,all_gather): 5 5 5 5 -> spread 0; (1,0,all_reduce): 7 3 9 1 -> spread 8, rank 2 last;
// (2,0,broadcast) on rank 3 only -> partial (its count of broadcasts in step 2 differs from the
// others', which have none; steps 0 and 1 agree). Names first met in different orders per rank.
std::vector<RankSummary> FourRanks() {
  return {
      Arrivals({{0, 0, "all_reduce", 10}, {0, 1, "all_gather", 5}, {1, 0, "all_reduce", 7}}),
      Arrivals({{0, 1, "all_gather", 5}, {0, 0, "all_reduce", 30}, {1, 0, "all_reduce", 3}}),
      Arrivals({{0, 0, "all_reduce", 30}, {0, 1, "all_gather", 5}, {1, 0, "all_reduce", 9}}),
      Arrivals({{2, 0, "broadcast", 4},
                {0, 0, "all_reduce", 20},
                {0, 1, "all_gather", 5},
                {1, 0, "all_reduce", 1}}),
  };
}

std::vector<std::tuple<size_t, size_t, std::string, int64_t, size_t>> Rows(
    const SkewSummary& skew) {
  std::vector<std::tuple<size_t, size_t, std::string, int64_t, size_t>> rows;
  for (const CollectiveSkew& instance : skew.instances) {
    rows.emplace_back(instance.step, instance.order, instance.name, instance.spread_ns(),
                      instance.last_rank_index);
  }
  return rows;
}

TEST(CollectiveTally, WorkedByHand) {
  std::vector<RankSummary> ranks = FourRanks();
  SkewSummary skew = ComputeCollectiveSkew(ranks);
  using Row = std::tuple<size_t, size_t, std::string, int64_t, size_t>;
  EXPECT_EQ(Rows(skew), (std::vector<Row>{{0, 0, "all_reduce", 20, 1},
                                          {1, 0, "all_reduce", 8, 2},
                                          {0, 1, "all_gather", 0, 0}}));
  EXPECT_EQ(skew.partial_instances, 1u);
  EXPECT_EQ(skew.times_last, (std::vector<size_t>{0, 1, 1, 0}));  // a spread of 0 counts for none
}

TEST(CollectiveTally, AnyFoldOrderAndAnySplitMatchTheSame) {
  std::vector<RankSummary> ranks = FourRanks();
  std::vector<size_t> identity = {0, 1, 2, 3};
  SkewSummary whole = ComputeCollectiveSkew(ranks);
  std::vector<uint32_t> order = {0, 1, 2, 3};
  do {
    CollectiveTally one_by_one;
    for (uint32_t input : order)
      one_by_one.Add(input, ranks[input]);
    EXPECT_EQ(Rows(one_by_one.Match(identity, 4)), Rows(whole));
    // The first two in this order on one process, the others on another, merged.
    CollectiveTally first;
    CollectiveTally second;
    first.Add(order[0], ranks[order[0]]);
    first.Add(order[1], ranks[order[1]]);
    second.Add(order[2], ranks[order[2]]);
    second.Add(order[3], ranks[order[3]]);
    second.Merge(first);
    SkewSummary merged = second.Match(identity, 4);
    EXPECT_EQ(Rows(merged), Rows(whole));
    EXPECT_EQ(merged.partial_instances, whole.partial_instances);
    EXPECT_EQ(merged.times_last, whole.times_last);
    ASSERT_EQ(merged.differing_steps.size(), 1u);
    EXPECT_EQ(merged.differing_steps[0].differing, whole.differing_steps[0].differing);
  } while (std::next_permutation(order.begin(), order.end()));
}

TEST(CollectiveTally, ATieGoesToTheFirstRankInTheFinalOrder) {
  std::vector<RankSummary> ranks = FourRanks();
  CollectiveTally tally;
  for (uint32_t input = 0; input < 4; ++input)
    tally.Add(input, ranks[input]);
  // Inputs 1 and 2 tie at (0,0); placed 3rd and 1st, input 2 is named, at position 0.
  SkewSummary skew = tally.Match({2, 3, 0, 1}, 4);
  ASSERT_FALSE(skew.instances.empty());
  EXPECT_EQ(skew.instances[0].last_rank_index, 0u);
  EXPECT_EQ(skew.times_last, (std::vector<size_t>{2, 0, 0, 0}));  // input 2 is last twice
}

TEST(CollectiveTally, AnalyseRankSetFromATallyIsTheSameAsFromTheSummaries) {
  std::vector<RankSummary> ranks = FourRanks();
  // Ranks named out of file order, so that sorting them moves them; the tally's inputs are
  // other numbers than positions (path indices with a failed trace between).
  for (size_t r = 0; r < ranks.size(); ++r) {
    ranks[r].source = "rank" + std::to_string(r);
    ranks[r].rank = static_cast<int64_t>(3 - r);
  }
  RankSetAnalysis expected = AnalyseRankSet(ranks, {});
  std::vector<uint32_t> input_of_rank = {0, 2, 3, 5};
  CollectiveTally tally;
  for (size_t r = 0; r < ranks.size(); ++r) {
    tally.Add(input_of_rank[r], ranks[r]);
    ranks[r].collectives.clear();
    ranks[r].collective_names.clear();
  }
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {}, tally, input_of_rank, ranks.size());
  EXPECT_EQ(Rows(analysis.skew), Rows(expected.skew));
  EXPECT_EQ(analysis.skew.times_last, expected.skew.times_last);
  EXPECT_EQ(analysis.ids, (std::vector<int64_t>{0, 1, 2, 3}));
  // Rank 3 (input 0) sorts last; ties at (0,0) between file ranks 1 and 2 (ids 2 and 1): id 1.
  EXPECT_EQ(Rows(analysis.skew)[0], std::make_tuple(size_t{0}, size_t{0}, std::string("all_reduce"),
                                                    int64_t{20}, size_t{1}));
  EXPECT_THROW(AnalyseRankSet(ranks, {}, tally, {0, 2, 3}, ranks.size()), std::invalid_argument);
}

// A step's collectives pair by name: the k-th of a name on one rank meets the k-th of that name
// on the others. Step 1: rank 2 lost the middle all_reduce, so its last one (60) would meet the
// others' middle one (50): a spread of 10 that does not exist; the counts of "ar" differ, so none
// of step 1's "ar" is compared. Step 2: rank 1 starts the same two collectives (two
// communicators) in another order: they still pair by name, with rank 0's positions as order.
// Step 0 agrees and keeps its figures.
TEST(CollectiveTally, ANameWhoseCountDiffersInAStepIsNotComparedThere) {
  std::vector<RankSummary> ranks = {
      Arrivals({{0, 0, "ar", 10},
                {0, 1, "ar", 20},
                {1, 0, "ar", 5},
                {1, 1, "ar", 50},
                {1, 2, "ar", 60},
                {2, 0, "ag", 1},
                {2, 1, "ar", 2}}),
      Arrivals({{0, 0, "ar", 10},
                {0, 1, "ar", 25},
                {1, 0, "ar", 5},
                {1, 1, "ar", 50},
                {1, 2, "ar", 60},
                {2, 0, "ar", 1},
                {2, 1, "ag", 2}}),
      Arrivals({{0, 0, "ar", 12},
                {0, 1, "ar", 20},
                {1, 0, "ar", 5},
                {1, 1, "ar", 60},
                {2, 0, "ag", 1},
                {2, 1, "ar", 2}}),
  };
  SkewSummary skew = ComputeCollectiveSkew(ranks);
  using Row = std::tuple<size_t, size_t, std::string, int64_t, size_t>;
  EXPECT_EQ(Rows(skew),
            (std::vector<Row>{
                {0, 1, "ar", 5, 1}, {0, 0, "ar", 2, 2}, {2, 0, "ag", 1, 1}, {2, 1, "ar", 1, 0}}));
  // Step 1: the first two "ar" on every rank, the third on two.
  EXPECT_EQ(skew.unaligned_instances, 2u);
  EXPECT_EQ(skew.partial_instances, 1u);
  EXPECT_EQ(skew.times_last, (std::vector<size_t>{1, 2, 1}));
  EXPECT_EQ(skew.collectives_per_rank, (std::vector<size_t>{7, 7, 6}));
  ASSERT_EQ(skew.differing_steps.size(), 1u);
  EXPECT_EQ(skew.differing_steps[0].step, 1u);
  EXPECT_EQ(skew.differing_steps[0].name, "ar");
  EXPECT_EQ(skew.differing_steps[0].common_count, 3u);
  using Differing = std::vector<std::pair<size_t, size_t>>;
  EXPECT_EQ(skew.differing_steps[0].differing, (Differing{{2, 2}}));

  RankSetAnalysis analysis = AnalyseRankSet(ranks, {});
  ASSERT_EQ(analysis.warnings.size(), 1u);
  EXPECT_EQ(analysis.warnings[0],
            "collective counts differ between ranks for 1 collective name in 1 step: a rank that "
            "issues more or fewer collectives of a name than the others has lost or gained "
            "records, so the 3 instances of that name are not compared (in no spread and no "
            "last-rank count): step 2, ar: rank 2 has 2, the others 3");
}

TEST(CollectiveTally, PartsComeBackAndBadPartsAreRefused) {
  std::vector<RankSummary> ranks = FourRanks();
  CollectiveTally tally;
  for (uint32_t input = 0; input < 4; ++input)
    tally.Add(input, ranks[input]);
  EXPECT_EQ(CollectiveTally::FromParts(tally.names(), tally.Instances(), tally.NameCounts()),
            tally);
  std::vector<CollectiveTally::NameCount> counts = tally.NameCounts();
  counts.push_back(counts[0]);
  EXPECT_THROW(CollectiveTally::FromParts(tally.names(), tally.Instances(), counts),
               std::invalid_argument);
  counts.pop_back();
  counts[0].name_id = static_cast<uint32_t>(tally.names().size());
  EXPECT_THROW(CollectiveTally::FromParts(tally.names(), tally.Instances(), counts),
               std::invalid_argument);
  std::vector<CollectiveTally::Instance> instances = tally.Instances();
  instances[0].name_id = static_cast<uint32_t>(tally.names().size());
  EXPECT_THROW(CollectiveTally::FromParts(tally.names(), instances), std::invalid_argument);
  instances = tally.Instances();
  instances[0].latest_inputs.clear();
  EXPECT_THROW(CollectiveTally::FromParts(tally.names(), instances), std::invalid_argument);
  instances = tally.Instances();
  instances.push_back(instances[0]);
  EXPECT_THROW(CollectiveTally::FromParts(tally.names(), instances), std::invalid_argument);
  EXPECT_THROW(CollectiveTally::FromParts({"a", "a"}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace gpuroof
