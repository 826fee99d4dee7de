// The ranks report says what each rank's figures leave out: the steps of every rank (not only
// the first's), and the GPU work outside the steps, with counts, in text, CSV and JSON.
#include "gpuroof/reports/ranks_report.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuroof/format/report_document.h"

namespace gpuroof {
namespace {

RankSummary Rank(int64_t id, std::string steps_label, int64_t ops_outside, int64_t busy_outside) {
  RankSummary rank;
  rank.source = fmt::format("rank{}.json", id);
  rank.format = "kineto-json";
  rank.rank = id;
  rank.steps_label = std::move(steps_label);
  rank.steps.push_back({0, 1000, 500, 0, 0, 0, 500, {0, 0, 500}});
  rank.step_median_ns = 1000;
  rank.step_p95_ns = 1000;
  rank.ops_outside_steps = ops_outside;
  rank.busy_outside_steps_ns = busy_outside;
  return rank;
}

RanksReport Report(std::vector<RankSummary> ranks) {
  RanksReport report;
  report.analysis = AnalyseRankSet(std::move(ranks), {});
  report.tool_version = "test";
  return report;
}

// Two traces hold rank 0 with other step labels: the steps line names the trace, as the
// warnings do.
TEST(RanksReport, AStepsLabelOfADuplicatedIdNamesTheTrace) {
  std::vector<RankSummary> ranks = {Rank(0, "'ProfilerStep#*' (1 instances)", 0, 0),
                                    Rank(0, "'Other#*' (1 instances)", 0, 0),
                                    Rank(1, "'ProfilerStep#*' (1 instances)", 0, 0)};
  ranks[1].source = "dir/second.json";
  const std::string text = RenderDocumentText(RanksDocument(Report(ranks)));
  EXPECT_NE(text.find("  on 1 rank (rank 0 (second.json)): 'Other#*' (1 instances)\n"),
            std::string::npos)
      << text;
}

TEST(RanksReport, OneStepsLabelForAllIsSaidOnce) {
  std::vector<RankSummary> ranks;
  for (int64_t r = 0; r < 3; ++r)
    ranks.push_back(Rank(r, "'ProfilerStep#*' (5 instances)", 0, 0));
  const std::string text = RenderDocumentText(RanksDocument(Report(ranks)));
  EXPECT_NE(text.find("\nsteps: 'ProfilerStep#*' (5 instances); busy and idle figures are means"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("outside the steps"), std::string::npos) << text;
}

// Busy time outside the steps with no op wholly outside (ops crossing a step's edge): said as
// busy time, not as "0 op(s)".
TEST(RanksReport, BusyTimeOutsideTheStepsInOpsCrossingAnEdgeIsSaidAsSuch) {
  const std::string text = RenderDocumentText(
      RanksDocument(Report({Rank(0, "'ProfilerStep#*' (5 instances)", 0, 3813)})));
  EXPECT_NE(text.find("note: rank 0: 3.813 us of busy time lies outside the steps, in ops that "
                      "cross a step's edge; not counted"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("0 op(s)"), std::string::npos) << text;
}

// Ranks 0-5: 5 instances; ranks 6-9 each another label: the commonest by count, three more with
// their ranks, the fifth counted (a line each: a label may hold "; "). Every rank has 2 ops (1 us
// busy) outside its steps: 8 notes, then ranks 8 and 9 summed up. Rank 7's steps left another
// process's steps out: said too.
TEST(RanksReport, EveryRanksStepsAndWorkOutsideThemAreSaid) {
  std::vector<RankSummary> ranks;
  for (int64_t r = 0; r < 10; ++r) {
    std::string label = r < 6 ? "'ProfilerStep#*' (5 instances)"
                              : fmt::format("'ProfilerStep#*' ({} instances)", r);
    if (r == 7) label += "; 2 of them left out: another process's, not the one driving device 0";
    ranks.push_back(Rank(r, label, 2, 1000));
  }
  const RanksReport report = Report(ranks);
  const std::string text = RenderDocumentText(RanksDocument(report));
  for (const std::string& expected : {
           std::string("steps: differ between ranks (5 labels); busy and idle figures are "
                       "means per step\n"
                       "  on 6 ranks: 'ProfilerStep#*' (5 instances)\n"
                       "  on 1 rank (rank 6): 'ProfilerStep#*' (6 instances)\n"
                       "  on 1 rank (rank 7): 'ProfilerStep#*' (7 instances); 2 of them left out: "
                       "another process's, not the one driving device 0\n"
                       "  on 1 rank (rank 8): 'ProfilerStep#*' (8 instances)\n"
                       "  on 1 more rank: 1 more label (steps_label in CSV and JSON)\n"),
           std::string("note: rank 0: 2 op(s) (1.000 us busy) lie outside the steps, not counted"),
           std::string("note: rank 7: 2 op(s) (1.000 us busy) lie outside the steps, not counted"),
           std::string("note: 2 more ranks: 4 op(s) (2.000 us busy) lie outside the steps, not "
                       "counted (per rank: ops_outside_steps, busy_outside_steps_ns in CSV and "
                       "JSON)"),
       }) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_EQ(text.find("note: rank 8:"), std::string::npos) << text;
  const std::string csv = RenderDocumentCsv(RanksDocument(report));
  EXPECT_NE(csv.find("steps,steps_label,ops_outside_steps,busy_outside_steps_ns,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find(",1,'ProfilerStep#*' (9 instances),2,1000,"), std::string::npos) << csv;
  const std::string json = RenderRanksJson(report);
  EXPECT_NE(json.find("\"steps_label\": \"'ProfilerStep#*' (9 instances)\",\n"
                      "      \"ops_outside_steps\": 2,\n"
                      "      \"busy_outside_steps_ns\": 1000,"),
            std::string::npos)
      << json;
}

// Ranks 1 and 2 each arrive last at one collective (steps 0 and 1): a tie, so both are named.
TEST(RanksReport, EveryRankTiedForArrivingLastIsNamed) {
  std::vector<RankSummary> ranks;
  for (int64_t r = 0; r < 3; ++r) {
    ranks.push_back(Rank(r, "'ProfilerStep#*' (2 instances)", 0, 0));
    ranks.back().AddCollective(0, 0, "ncclAllReduce", r == 1 ? 30 : 10);
    ranks.back().AddCollective(1, 0, "ncclAllReduce", r == 2 ? 40 : 10);
  }
  const RanksReport report = Report(ranks);
  const std::string text = RenderDocumentText(RanksDocument(report));
  EXPECT_NE(text.find("2 collective instances on every rank; ranks 1, 2 arrive last at 1 of them "
                      "each"),
            std::string::npos)
      << text;
}

// One rank: no skew, said once; "no collective kernel on every rank" would be wrong.
TEST(RanksReport, OneRankWithCollectivesHasNoSkewAndSaysNoMore) {
  std::vector<RankSummary> ranks = {Rank(0, "'ProfilerStep#*' (1 instances)", 0, 0)};
  ranks[0].AddCollective(0, 0, "ncclAllReduce", 10);
  const std::string text = RenderDocumentText(RanksDocument(Report(ranks)));
  EXPECT_NE(text.find("fewer than 2 ranks: no collective skew"), std::string::npos) << text;
  EXPECT_EQ(text.find("no collective kernel"), std::string::npos) << text;
}

// Rank 2 has no collective kernel while ranks 0 and 1 have 2: named in the skew section, and
// its steps are not compared (warned).
TEST(RanksReport, ARankWithNoCollectiveAmongRanksWithSomeIsNamed) {
  std::vector<RankSummary> ranks;
  for (int64_t r = 0; r < 3; ++r) {
    ranks.push_back(Rank(r, "'ProfilerStep#*' (1 instances)", 0, 0));
    if (r == 2) continue;
    ranks.back().AddCollective(0, 0, "ncclAllReduce", 10);
    ranks.back().AddCollective(0, 1, "ncclAllReduce", 20);
  }
  const RanksReport report = Report(ranks);
  const std::string text = RenderDocumentText(RanksDocument(report));
  EXPECT_NE(text.find("0 collective instances on every rank (2 more of 1 collective name whose "
                      "count in a step differs between ranks, not compared)\n1 of 3 ranks has no "
                      "collective kernel while the others have (up to 2): rank 2"),
            std::string::npos)
      << text;
  // The skew line counts the instances left out: no "no collective kernel on every rank" below.
  EXPECT_EQ(text.find("no collective kernel on every rank"), std::string::npos) << text;
  EXPECT_NE(RenderRanksJson(report).find("\"unaligned\": 0"), std::string::npos);
}

// Means and percentiles in ns are written to 0.001 ns: no 1773024599.9999998 for 1773024600, no
// 16 digits for a mean over 3 steps (docs/formats.md, "ranks").
TEST(RanksReport, NsMeansAndPercentilesAreWrittenToAThousandthOfANs) {
  RankSummary rank = Rank(0, "'ProfilerStep#*' (3 instances)", 0, 0);
  rank.steps = {{0, 1000, 1, 0, 0, 0, 1, {0, 0, 999}},
                {1000, 2000, 1, 0, 0, 0, 1, {0, 0, 999}},
                {2000, 3000, 2, 0, 0, 0, 2, {0, 0, 998}}};
  rank.step_median_ns = 1000;
  rank.step_p95_ns = 1773024599.9999998;
  const RanksReport report = Report({rank});
  const std::string json = RenderRanksJson(report);
  EXPECT_NE(json.find("\"step_p95_ns\": 1773024600,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"compute_busy_ns\": 1.333,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"idle_other_ns\": 998.667,"), std::string::npos) << json;
  const std::string csv = RenderDocumentCsv(RanksDocument(report));
  EXPECT_NE(csv.find(",1000,1773024600,1.333,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace gpuroof
