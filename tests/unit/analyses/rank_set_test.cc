#include "gpuroof/analyses/rank_set.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/analyses/message_list.h"

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

// One-line message lists: the first items, then how many more (of a total that may exceed what
// is held).
TEST(MessageList, FirstItemsThenHowManyMore) {
  EXPECT_EQ(ListFirst({"a", "b"}, 3), "a, b");
  EXPECT_EQ(ListFirst({"a", "b", "c", "d", "e"}, 3), "a, b, c and 2 more");
  EXPECT_EQ(ListFirst({"a"}, 3, 10), "a and 9 more");
  EXPECT_EQ(ListFirst({}, 3), "");
}

TEST(AssignRanks, ATieForTheBusiestDeviceIsSaid) {
  std::vector<RankSummary> ranks = {Named("a.json", "kineto-json", 0, 2),
                                    Named("b.json", "kineto-json", 1, 2)};
  ranks[1].tied_devices = 1;
  RankAssignment assignment = AssignRanks(ranks, {0, 1}, 2);
  EXPECT_EQ(assignment.notes,
            (std::vector<std::string>{
                "1 of 2 traces have another device with as many ops as the busiest: the lowest "
                "device id is analysed (b.json)"}));
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

// A trace naming a huge world size (hand-edited, or garbage): the missing ranks are counted, not
// listed one by one, so that this takes no time and no memory (it used to build the list of all
// 10^12 - 2 missing ids). 10^12 - 2 = 999999999998 missing; 8 listed, 999999999990 more.
TEST(AssignRanks, AHugeWorldSizeIsCountedNotListed) {
  std::vector<RankSummary> ranks = {Named("r0.json", "kineto-json", 0, 4),
                                    Named("r1.json", "kineto-json", 1, 1'000'000'000'000)};
  RankAssignment assignment = AssignRanks(ranks, {0, 1}, 2);
  EXPECT_EQ(assignment.world_size, 1'000'000'000'000);
  ASSERT_EQ(assignment.warnings.size(), 2u);
  EXPECT_EQ(assignment.warnings[1],
            "world size 1000000000000, but 999999999998 ranks are missing: 2, 3, 4, 5, 6, 7, 8, 9 "
            "and 999999999990 more");
  // The largest int64: 2^63 - 1 - 1 missing (rank 5 is held), listed from 0.
  ranks = {Named("r5.json", "kineto-json", 5, INT64_MAX)};
  assignment = AssignRanks(ranks, {0}, 1);
  ASSERT_EQ(assignment.warnings.size(), 1u);
  EXPECT_EQ(assignment.warnings[0],
            "world size 9223372036854775807, but 9223372036854775806 ranks are missing: 0, 1, 2, "
            "3, 4, 6, 7, 8 and 9223372036854775798 more");
}

// Ranks named below 0 or beyond the world size do not count as held ids below it: world size 10,
// ranks -1, 3 and 12 -> 9 missing (0-2, 4-9).
TEST(AssignRanks, MissingRanksCountOnlyIdsBelowTheWorldSize) {
  std::vector<RankSummary> ranks = {Named("a.json", "kineto-json", -1, 10),
                                    Named("b.json", "kineto-json", 3, 10),
                                    Named("c.json", "kineto-json", 12, 10)};
  RankAssignment assignment = AssignRanks(ranks, {0, 1, 2}, 3);
  EXPECT_EQ(assignment.warnings,
            (std::vector<std::string>{
                "world size 10, but 9 ranks are missing: 0, 1, 2, 4, 5, 6, 7, 8 and 1 more",
                "world size 10, but the traces name rank 12"}));
}

// Ranks on different GPU models are compared all the same, and said: the count per model (most
// ranks first), the ranks of the others, and those whose trace names no model.
TEST(AssignRanks, DifferentGpuModelsAreSaidWithTheirCounts) {
  std::vector<RankSummary> ranks;
  for (int64_t r : {4, 3, 0, 1, 2})
    ranks.push_back(Named("r.json", "kineto-json", r, 5));
  ranks[0].device_name = "";  // rank 4
  ranks[1].device_name = "NVIDIA H100";
  ranks[2].device_name = ranks[3].device_name = ranks[4].device_name = "NVIDIA A100";
  RankAssignment assignment = AssignRanks(ranks, {0, 1, 2, 3, 4}, 5);
  EXPECT_EQ(
      assignment.warnings,
      (std::vector<std::string>{
          "ranks run on 2 GPU models: 3 on NVIDIA A100, 1 on NVIDIA H100 (rank 3), 1 on a GPU "
          "the trace does not name (rank 4); figures compared across models"}));
  // One model (a rank that names none does not make a second one): nothing said.
  ranks[1].device_name = "NVIDIA A100";
  EXPECT_TRUE(AssignRanks(ranks, {0, 1, 2, 3, 4}, 5).warnings.empty());
}

// Steps are matched by position; when the ranks' step numbers disagree at a position (rank 1's
// capture starts a step later: #551-#554 against #550-#554), it is said. Positions 0-3 differ,
// position 4 is rank 0, 2, 3's #554 only: 4 of 5. The reference is the commonest number at each
// position: #550-#554. Ranks without numbers (rank 4) take no part.
TEST(AnalyseRankSet, StepNumbersThatDoNotLineUpAreWarned) {
  std::vector<RankSummary> ranks = {Rank(100, 80, 0, 0), Rank(100, 80, 0, 0), Rank(100, 80, 0, 0),
                                    Rank(100, 80, 0, 0), Rank(100, 80, 0, 0)};
  for (size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].rank = static_cast<int64_t>(i);
    if (i < 4) ranks[i].step_numbers = {550, 551, 552, 553, 554};
  }
  EXPECT_TRUE(AnalyseRankSet(ranks, {}).warnings.empty());  // they line up
  ranks[1].step_numbers = {551, 552, 553, 554};
  EXPECT_EQ(AnalyseRankSet(ranks, {}).warnings,
            (std::vector<std::string>{
                "steps are matched by position, but the ranks' step numbers differ at 4 of 5 "
                "positions: 1 of 4 ranks is numbered otherwise than most (#550-#554): rank 1 "
                "(#551-#554); its steps and collectives are compared with steps of other "
                "numbers"}));
  // A rank with fewer steps, numbered like the others, lines up.
  ranks[1].step_numbers = {550, 551, 552};
  EXPECT_TRUE(AnalyseRankSet(ranks, {}).warnings.empty());
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

// Rank 2 has no step ranges (its one step is its whole trace, 1000 µs) while the others have
// steps: it is left out of the outlier rule and of the collective skew, and warned. The four
// others, step medians 100 102 101 130 (median 101.5, MAD 1), compute 80 80 80 110: rank 4 is
// still the compute-bound straggler. Their collective (0,0) arrives at 10 12 11 13: spread 3,
// rank 4 last; rank 2's whole-trace arrival 900 is not matched with it.
TEST(AnalyseRankSet, RanksWithoutStepRangesAreLeftOutOfTheStepComparisons) {
  std::vector<RankSummary> ranks = FiveRanks();
  ranks[2] = Rank(1000, 800, 300, 100);
  ranks[2].steps_label = "whole trace (no step ranges)";
  ranks[2].whole_trace = true;
  const int64_t arrivals[] = {10, 12, 900, 11, 13};
  for (size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].rank = static_cast<int64_t>(i);
    ranks[i].AddCollective(0, 0, "ncclAllReduce", arrivals[i]);
  }
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {});
  EXPECT_EQ(analysis.whole_trace_left_out, (std::vector<size_t>{2}));
  EXPECT_EQ(analysis.compared_ranks(), 4u);
  ASSERT_EQ(analysis.stragglers.size(), 1u);
  EXPECT_EQ(analysis.stragglers[0].rank_index, 4u);
  for (const RankOutlier& outlier : analysis.outliers) {
    EXPECT_EQ(outlier.rank_index, 4u);
    if (outlier.metric == RankMetric::kStepMedian) {
      EXPECT_DOUBLE_EQ(outlier.median_ns, 101'500);
    }
  }
  ASSERT_EQ(analysis.skew.instances.size(), 1u);
  EXPECT_EQ(analysis.skew.instances[0].spread_ns(), 3);
  EXPECT_EQ(analysis.skew.instances[0].ranks_present, 4u);
  EXPECT_EQ(analysis.skew.instances[0].last_rank_index, 4u);
  EXPECT_EQ(analysis.skew.partial_instances, 0u);
  EXPECT_EQ(analysis.skew.times_last, (std::vector<size_t>{0, 0, 0, 0, 1}));
  EXPECT_EQ(analysis.warnings,
            (std::vector<std::string>{
                "1 of 5 ranks has no step ranges while the others have: its whole trace is not a "
                "step, so it is left out of the outlier rule and the collective skew: rank 2"}));
}

// Two traces both name rank 0 (an nsys rank from file order beside a Kineto rank 0): a warning
// that names the rank adds the trace's file name, or "rank 0" would name both.
TEST(AnalyseRankSet, ARankIdHeldTwiceIsNamedWithItsTrace) {
  std::vector<RankSummary> ranks = {Rank(100, 80, 30, 10), Rank(1000, 800, 300, 100)};
  ranks[0].source = "job/r0.json.gz";
  ranks[0].rank = 0;
  ranks[1].source = "job/saxpy_rank1.sqlite";
  ranks[1].whole_trace = true;
  // The sqlite trace is first in the list and names no rank: its rank is its place, 0.
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {}, CollectiveTally(), {1, 0}, 2);
  EXPECT_EQ(analysis.ids, (std::vector<int64_t>{0, 0}));
  EXPECT_NE(std::find(analysis.warnings.begin(), analysis.warnings.end(),
                      "1 of 2 ranks has no step ranges while the others have: its whole trace is "
                      "not a step, so it is left out of the outlier rule and the collective skew: "
                      "rank 0 (saxpy_rank1.sqlite)"),
            analysis.warnings.end())
      << ListFirst(analysis.warnings, 10);
  EXPECT_EQ(RankLabel(analysis.ranks, analysis.ids, 0), "rank 0 (r0.json.gz)");
  EXPECT_EQ(RankListLabel(analysis.ranks, {0, 1}, {0, 1}), "ranks 0, 1");
}

// Rank 1's step (100 us) ends 40 us after its last record: noted with the time past the end;
// rank 0's ends 0.5 us after (0.5 % of the step, within 1 %), rank 2's at it: nothing said. The
// figures stay as defined.
TEST(AnalyseRankSet, AStepEndingPastTheLastRecordIsNoted) {
  std::vector<RankSummary> ranks = {Rank(100, 80, 0, 0), Rank(100, 50, 0, 0), Rank(100, 80, 0, 0)};
  ranks[0].last_record_ns = 99'500;
  ranks[1].last_record_ns = 60'000;
  ranks[2].last_record_ns = 100'000;
  for (size_t i = 0; i < ranks.size(); ++i)
    ranks[i].rank = static_cast<int64_t>(i);
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {});
  EXPECT_EQ(analysis.notes, (std::vector<std::string>{
                                "rank 1: step 1 ends 40.000 us after the trace's last record (GPU "
                                "op or launch call): its length and the means per step include "
                                "time with no GPU op or launch call"}));
  EXPECT_DOUBLE_EQ(analysis.ranks[1].step_median_ns, 100'000);
}

// When every rank has no step ranges, their whole traces are compared with each other as before.
TEST(AnalyseRankSet, RanksThatAllLackStepRangesAreComparedWithEachOther) {
  std::vector<RankSummary> ranks = FiveRanks();
  const int64_t arrivals[] = {10, 12, 14, 11, 13};
  for (size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].rank = static_cast<int64_t>(i);
    ranks[i].whole_trace = true;
    ranks[i].AddCollective(0, 0, "ncclAllReduce", arrivals[i]);
  }
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {});
  EXPECT_TRUE(analysis.whole_trace_left_out.empty());
  EXPECT_TRUE(analysis.warnings.empty());
  ASSERT_EQ(analysis.stragglers.size(), 1u);
  EXPECT_EQ(analysis.stragglers[0].rank_index, 4u);
  ASSERT_EQ(analysis.skew.instances.size(), 1u);
  EXPECT_EQ(analysis.skew.instances[0].last_rank_index, 2u);
}

// Whole traces whose all-reduce counts differ (rank 1 lacks the first all-reduce): not compared,
// and the warning names the whole trace, not a "step 1" the ranks do not have.
TEST(AnalyseRankSet, WholeTracesWhoseCollectivesDifferAreNotCompared) {
  std::vector<RankSummary> ranks = {Rank(100, 80, 30, 10), Rank(100, 80, 30, 10)};
  for (size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].rank = static_cast<int64_t>(i);
    ranks[i].whole_trace = true;
  }
  ranks[0].AddCollective(0, 0, "ncclAllReduce", 10);
  ranks[0].AddCollective(0, 1, "ncclAllReduce", 50);
  ranks[1].AddCollective(0, 0, "ncclAllReduce", 50);
  RankSetAnalysis analysis = AnalyseRankSet(ranks, {});
  EXPECT_TRUE(analysis.skew.instances.empty());
  EXPECT_EQ(analysis.skew.unaligned_instances, 1u);
  EXPECT_EQ(analysis.skew.partial_instances, 1u);
  ASSERT_EQ(analysis.warnings.size(), 1u);
  EXPECT_NE(analysis.warnings[0].find(
                "for 1 collective name in the whole trace (no step ranges): a rank that issues "
                "more or fewer collectives of a name than the others has lost or gained records, "
                "so the 2 instances of that name are not compared (in no spread and no last-rank "
                "count): ncclAllReduce: rank 1 has 1, the others 2"),
            std::string::npos)
      << analysis.warnings[0];
}

// Skew needs two compared ranks: one rank with step ranges (the others' whole traces left out),
// or a one-rank set, lists no collective "compared" with itself.
TEST(AnalyseRankSet, OneComparedRankHasNoCollectiveSkew) {
  std::vector<RankSummary> ranks = {Rank(100, 80, 30, 10), Rank(1000, 800, 300, 100)};
  ranks[1].whole_trace = true;
  for (size_t i = 0; i < ranks.size(); ++i) {
    ranks[i].rank = static_cast<int64_t>(i);
    ranks[i].AddCollective(0, 0, "ncclAllReduce", 10);
  }
  RankSetAnalysis mixed = AnalyseRankSet(ranks, {});
  EXPECT_EQ(mixed.compared_ranks(), 1u);
  EXPECT_TRUE(mixed.skew.instances.empty());
  EXPECT_EQ(mixed.skew.times_last, (std::vector<size_t>{0, 0}));
  RankSetAnalysis one = AnalyseRankSet({ranks[0]}, {});
  EXPECT_TRUE(one.skew.instances.empty());
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
  EXPECT_TRUE(figures.left_out.empty());
}

// Rank 4 has no step ranges (its one step, 1000 us, is its whole trace): left out, so the
// slowest is rank 1 (102 us) and the median that of 100 102 98 101 = 100.5 us.
TEST(JobStepFigures, RanksWithoutStepRangesAreLeftOut) {
  std::vector<RankSummary> ranks = FiveRanks();
  ranks[4] = Rank(1000, 800, 0, 0);
  ranks[4].whole_trace = true;
  for (size_t i = 0; i < ranks.size(); ++i)
    ranks[i].rank = static_cast<int64_t>(i);
  JobStepFigures figures = ComputeJobStepFigures(AnalyseRankSet(ranks, {}));
  EXPECT_DOUBLE_EQ(figures.slowest_rank_step_ns, 102'000);
  EXPECT_EQ(figures.slowest_rank, 1);
  EXPECT_DOUBLE_EQ(figures.median_rank_step_ns, 100'500);
  EXPECT_EQ(figures.left_out, (std::vector<int64_t>{4}));
}

}  // namespace
}  // namespace gpuroof
