#include "gpuroof/analyses/rank_set.h"

#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// One rank of one step of `step_us`, with the busy figures given in µs.
RankSummary Rank(double step_us, double compute_us, double comm_us, double overlap_us) {
  RankSummary rank;
  rank.source = "rank.json";
  rank.format = "kineto-json";
  StepFigures step;
  step.end_ns = static_cast<int64_t>(step_us * 1000);
  step.compute_busy_ns = static_cast<int64_t>(compute_us * 1000);
  step.comm_busy_ns = static_cast<int64_t>(comm_us * 1000);
  step.overlap_ns = static_cast<int64_t>(overlap_us * 1000);
  rank.steps.push_back(step);
  rank.step_median_ns = step_us * 1000;
  rank.step_p95_ns = step_us * 1000;
  return rank;
}

// Worked by hand, µs:
//   step:          100 102  98 101 130   median 101, |dev| 1 1 3 0 29 -> MAD 1;
//                  rank 4: z = 0.6745 * 29 / 1 = 19.56 > 3.5, +28.7 % -> outlier;
//                  rank 1: +0.99 % < 5 % -> not.
//   compute busy:   80  80  80  80 110   median 80, MAD 0: rank 4 (+37.5 %) is an outlier.
//   exposed comm:   20  22  18  21   0   (comm 30 32 28 31 10 minus overlap 10 each)
//                  median 20, |dev| 0 2 2 1 20 -> MAD 2; rank 1: z = 0.6745 * 2 / 2 = 0.67 -> not.
std::vector<RankSummary> FiveRanks() {
  return {Rank(100, 80, 30, 10), Rank(102, 80, 32, 10), Rank(98, 80, 28, 10), Rank(101, 80, 31, 10),
          Rank(130, 110, 10, 10)};
}

TEST(RankOutliers, MedianAndMadRuleAsWorkedByHand) {
  std::vector<RankOutlier> outliers = FindRankOutliers(FiveRanks(), OutlierRule{});
  ASSERT_EQ(outliers.size(), 2u);
  EXPECT_EQ(outliers[0].rank_index, 4u);
  EXPECT_EQ(outliers[0].metric, RankMetric::kStepMedian);
  EXPECT_DOUBLE_EQ(outliers[0].median_ns, 101'000);
  EXPECT_DOUBLE_EQ(outliers[0].mad_ns, 1'000);
  ASSERT_TRUE(outliers[0].robust_z.has_value());
  EXPECT_NEAR(*outliers[0].robust_z, 19.5605, 1e-4);
  ASSERT_TRUE(outliers[0].excess_pct.has_value());
  EXPECT_NEAR(*outliers[0].excess_pct, 28.7129, 1e-4);
  EXPECT_EQ(outliers[1].rank_index, 4u);
  EXPECT_EQ(outliers[1].metric, RankMetric::kComputeBusy);
  EXPECT_FALSE(outliers[1].robust_z.has_value());  // MAD 0
  EXPECT_EQ(outliers[1].excess_pct, 37.5);
}

TEST(RankOutliers, TheStragglerIsNamedWithItsCause) {
  std::vector<RankSummary> ranks = FiveRanks();
  std::vector<Straggler> stragglers = FindStragglers(ranks, FindRankOutliers(ranks, {}));
  ASSERT_EQ(stragglers.size(), 1u);
  EXPECT_EQ(stragglers[0].rank_index, 4u);
  ASSERT_TRUE(stragglers[0].cause.has_value());
  EXPECT_EQ(*stragglers[0].cause, RankMetric::kComputeBusy);
  EXPECT_EQ(RankMetricReading(*stragglers[0].cause), "compute-bound");
}

TEST(RankOutliers, FewerRanksThanTheRuleNeedsGiveNone) {
  std::vector<RankSummary> ranks = {Rank(100, 80, 0, 0), Rank(200, 160, 0, 0)};
  EXPECT_TRUE(FindRankOutliers(ranks, {}).empty());
}

TEST(RankOutliers, SmallExcessIsNotAnOutlierEvenWithMadZero) {
  // median 100, MAD 0; 104 is +4 % < 5 %.
  std::vector<RankSummary> ranks = {Rank(100, 0, 0, 0), Rank(100, 0, 0, 0), Rank(104, 0, 0, 0)};
  EXPECT_TRUE(FindRankOutliers(ranks, {}).empty());
}

// A metric that is 0 on most ranks: M = 0, MAD = 0. Rank 4 copies 300 us per 1300 us step: an
// outlier (no % of a median of 0) and the cause of its slow step. Rank 3's 5 us of copies are
// under 1 % of the median step (10 us): not a reason to call it slow.
TEST(RankOutliers, AMetricThatIsZeroOnMostRanksStillNamesTheStraggler) {
  std::vector<RankSummary> ranks = {Rank(1000, 0, 0, 0), Rank(1002, 0, 0, 0), Rank(998, 0, 0, 0),
                                    Rank(1001, 0, 0, 0), Rank(1300, 0, 0, 0)};
  ranks[3].steps[0].copy_busy_ns = 5'000;
  ranks[4].steps[0].copy_busy_ns = 300'000;
  const std::vector<RankOutlier> outliers = FindRankOutliers(ranks, {});
  ASSERT_EQ(outliers.size(), 2u);
  EXPECT_EQ(outliers[0].rank_index, 4u);
  EXPECT_EQ(outliers[0].metric, RankMetric::kStepMedian);
  EXPECT_EQ(outliers[1].rank_index, 4u);
  EXPECT_EQ(outliers[1].metric, RankMetric::kCopyBusy);
  EXPECT_DOUBLE_EQ(outliers[1].median_ns, 0);
  EXPECT_FALSE(outliers[1].excess_pct.has_value());
  const std::vector<Straggler> stragglers = FindStragglers(ranks, outliers);
  ASSERT_EQ(stragglers.size(), 1u);
  ASSERT_TRUE(stragglers[0].cause.has_value());
  EXPECT_EQ(RankMetricReading(*stragglers[0].cause), "copy-bound");
}

// (step, order, name, arrival_ns) per collective.
RankSummary WithCollectives(
    const std::vector<std::tuple<size_t, size_t, std::string, int64_t>>& collectives) {
  RankSummary rank = Rank(100, 0, 0, 0);
  for (const auto& [step, order, name, arrival_ns] : collectives)
    rank.AddCollective(step, order, name, arrival_ns);
  return rank;
}

TEST(CollectiveSkew, InstancesMatchByStepOrderAndName) {
  std::vector<RankSummary> ranks = {
      WithCollectives({{0, 0, "ncclAllReduce", 10}, {0, 1, "ncclAllReduce", 50}}),
      WithCollectives({{0, 0, "ncclAllReduce", 12}, {0, 1, "ncclAllReduce", 80}}),
      WithCollectives(
          {{0, 0, "ncclAllReduce", 11}, {0, 1, "ncclAllReduce", 55}, {1, 0, "ncclBroadcast", 5}}),
  };
  SkewSummary skew = ComputeCollectiveSkew(ranks);
  ASSERT_EQ(skew.instances.size(), 2u);
  // (0,1): arrivals 50 80 55 -> spread 30, rank 1 last; (0,0): 10 12 11 -> spread 2, rank 1.
  EXPECT_EQ(skew.instances[0].order, 1u);
  EXPECT_EQ(skew.instances[0].spread_ns(), 30);
  EXPECT_EQ(skew.instances[0].last_rank_index, 1u);
  EXPECT_EQ(skew.instances[1].order, 0u);
  EXPECT_EQ(skew.instances[1].spread_ns(), 2);
  EXPECT_EQ(skew.partial_instances, 1u);  // the broadcast is on rank 2 only
  EXPECT_EQ(skew.times_last, (std::vector<size_t>{0, 2, 0}));
}

RankSummary Named(std::string source, std::string format, std::optional<int64_t> rank,
                  std::optional<int64_t> world_size) {
  RankSummary summary = Rank(100, 0, 0, 0);
  summary.source = std::move(source);
  summary.format = std::move(format);
  summary.rank = rank;
  summary.world_size = world_size;
  return summary;
}

TEST(AssignRanks, DuplicatesMissingRanksTwoJobsAndMixedFormatsAreSaid) {
  std::vector<RankSummary> ranks = {Named("a.json", "kineto-json", 1, 4),
                                    Named("b.json", "kineto-json", 0, 4),
                                    Named("c.sqlite", "nsys-sqlite", std::nullopt, std::nullopt),
                                    Named("d.json", "kineto-json", 1, 8)};
  RankAssignment assignment = AssignRanks(ranks, {0, 1, 2, 3}, 4);
  EXPECT_EQ(assignment.ids, (std::vector<int64_t>{1, 0, 2, 1}));
  EXPECT_EQ(assignment.from_file_order, (std::vector<bool>{false, false, true, false}));
  EXPECT_EQ(assignment.world_size, 8);
  EXPECT_EQ(assignment.warnings,
            (std::vector<std::string>{
                "rank 1 appears in 2 traces: a.json, d.json",
                "the traces name different world sizes (4 in 2 traces, 8 in 1 trace): ranks from "
                "two different jobs?",
                "world size 8, but 5 ranks are missing: 3, 4, 5, 6, 7"}));
  EXPECT_EQ(assignment.notes,
            (std::vector<std::string>{
                "1 of 4 traces name no rank: their rank is their position in the file list",
                "mixed formats: 3 kineto-json, 1 nsys-sqlite"}));
}

// A trace that could not be read keeps its place: the others' ranks from file order are their
// places in the list given, and the world size counts it (rank 0 is then said to be missing).
TEST(AssignRanks, FileOrderIsThePlaceInTheListGivenUnreadTracesIncluded) {
  std::vector<RankSummary> ranks = {Named("b0.json", "kineto-json", std::nullopt, std::nullopt),
                                    Named("b1.json", "kineto-json", std::nullopt, std::nullopt),
                                    Named("b2.json", "kineto-json", std::nullopt, std::nullopt)};
  RankAssignment assignment = AssignRanks(ranks, {1, 2, 3}, 4);  // a_bad.json was first
  EXPECT_EQ(assignment.ids, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(assignment.world_size, 4);
  EXPECT_EQ(assignment.warnings,
            (std::vector<std::string>{"world size 4, but 1 rank is missing: 0"}));
}

TEST(AnalyseRankSet, RanksAreSortedByIdAndIndicesFollow) {
  std::vector<RankSummary> ranks = FiveRanks();
  for (size_t i = 0; i < ranks.size(); ++i)
    ranks[i].rank = static_cast<int64_t>(4 - i);  // the straggler is rank 0
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {});
  EXPECT_EQ(analysis.ids, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  ASSERT_EQ(analysis.stragglers.size(), 1u);
  EXPECT_EQ(analysis.stragglers[0].rank_index, 0u);
  EXPECT_DOUBLE_EQ(analysis.ranks[0].step_median_ns, 130'000);
  EXPECT_TRUE(analysis.warnings.empty());
}

TEST(JobStepFigures, SlowestAndMedianRank) {
  std::vector<RankSummary> ranks = FiveRanks();
  for (size_t i = 0; i < ranks.size(); ++i)
    ranks[i].rank = static_cast<int64_t>(i);
  JobStepFigures figures = ComputeJobStepFigures(AnalyseRankSet(ranks, {}));
  // Step medians 100 102 98 101 130 us: slowest rank 4 (130), median 101.
  EXPECT_DOUBLE_EQ(figures.slowest_rank_step_ns, 130'000);
  EXPECT_EQ(figures.slowest_rank, 4);
  EXPECT_DOUBLE_EQ(figures.median_rank_step_ns, 101'000);
}

}  // namespace
}  // namespace gpuroof
