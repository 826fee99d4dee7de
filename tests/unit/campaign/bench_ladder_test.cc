// The bench ladder: cold, warm and spread by hand, the join with probes.csv by exact key, and a
// bench over a fake runner whose wall times are scripted.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "gpuroof/campaign/bench_runner.h"
#include "gpuroof/model/errors.h"

#include "campaign/fake_system.h"

namespace gpuroof {
namespace {

TEST(BenchLadder, ColdWarmSpreadByHand) {
  // cold = 100; the rest are 180, 200, 190: warm = 200, spread = (200 - 180) / 180 = 11.11 %.
  LadderFigures figures = ComputeLadder({100, 180, 200, 190});
  EXPECT_DOUBLE_EQ(figures.cold, 100);
  EXPECT_EQ(figures.warm, 200);
  EXPECT_DOUBLE_EQ(*figures.spread_pct, 100.0 * 20 / 180);
  LadderFigures one = ComputeLadder({50});
  EXPECT_DOUBLE_EQ(one.cold, 50);
  EXPECT_FALSE(one.warm.has_value());
  EXPECT_FALSE(one.spread_pct.has_value());
  LadderFigures two = ComputeLadder({50, 70});
  EXPECT_EQ(two.warm, 70);
  EXPECT_EQ(two.spread_pct, 0);
}

CsvTable Probes() {
  return ParseCsv(
      "key,build,status,roofline_units_per_s,streams,quotable,timestamp\n"
      "label=a;cap=3000,b1,ok,1000,1,yes,T1\n"
      "label=a;cap=3000,b1,ok,900,1,yes,T1\n"   // a second device: the smaller binds
      "label=a;cap=1700,b1,ok,5000,4,yes,T2\n"  // another key: never used for cap=3000
      "label=a;cap=3000,b0,ok,7000,1,yes,T0\n"  // another build
      "label=m;cap=3000,b1,ok,2000,4,no,T3\n"
      "label=m;cap=3000,b1,ok,2100,4,no,T3\n",  // its second device: still one warning each
      "probes.csv");
}

TEST(BenchLadder, RooflineComesOnlyFromTheSameKeyAndBuild) {
  RooflineMatch match = FindRoofline(Probes(), "label=a;cap=3000", "b1");
  EXPECT_EQ(match.units_per_s, 900);
  EXPECT_TRUE(match.warnings.empty());
  RooflineMatch none = FindRoofline(Probes(), "label=a;cap=1500", "b1");
  EXPECT_FALSE(none.units_per_s.has_value());
  ASSERT_EQ(none.warnings.size(), 1u);
  EXPECT_EQ(none.warnings[0],
            "no roofline for key label=a;cap=1500 of build b1 in probes.csv (run gpuroof sweep "
            "first; a roofline taken at another key is never used)");
}

// No probes.csv (ReadCsvFile's empty table) is said as such; a probes.csv without the columns a
// roofline needs keeps its own warning.
TEST(BenchLadder, NoProbesFileIsNotCalledAFileWithoutTheColumns) {
  RooflineMatch none = FindRoofline(CsvTable{}, "label=a", "b1");
  EXPECT_FALSE(none.units_per_s.has_value());
  EXPECT_EQ(none.warnings, (std::vector<std::string>{
                               "no roofline for key label=a of build b1: the results folder has no "
                               "probes.csv, or an empty one (run gpuroof sweep first)"}));
  RooflineMatch foreign = FindRoofline(ParseCsv("a,b\n1,2\n", "probes.csv"), "label=a", "b1");
  EXPECT_EQ(foreign.warnings,
            (std::vector<std::string>{"probes.csv lacks the columns a roofline needs"}));
}

TEST(BenchLadder, SeveralStreamsAndNonQuotableProbesAreExplained) {
  RooflineMatch match = FindRoofline(Probes(), "label=m;cap=3000", "b1");
  EXPECT_EQ(match.units_per_s, 2000);
  ASSERT_EQ(match.warnings.size(), 2u);
  EXPECT_EQ(match.warnings[0],
            "the roofline was taken with 4 streams in another session (T3); with several streams "
            "the engines' overlap changes from session to session, so % of roofline is "
            "approximate");
  EXPECT_EQ(match.warnings[1], "the roofline's probes row is not quotable");
}

class BenchRunnerTest : public ::testing::Test {
 protected:
  SweepSpec Spec() {
    return ParseSweepSpec(
        fmt::format("[command]\nargv = [\"app\", \"{{frames}}\"]\nworkdir = \"{}\"\n"
                    "[parameters]\nframes = 1000\n"
                    "[[configurations]]\nlabel = \"a\"\n"
                    "[run]\nunits = \"{{frames}}\"\n",
                    dir.path().string()),
        "s.toml");
  }
  CampaignOptions Options() {
    CampaignOptions options;
    options.results_root = (dir.path() / "results").string();
    return options;
  }
  testing::ScratchDir dir;
  testing::FakeSystem fake;
};

TEST_F(BenchRunnerTest, WallTimePerUnitJoinedWithTheRoofline) {
  // Reps take 2 s, then 1 s, 1.25 s, 1 s for 1000 frames: 500, 1000, 800, 1000 frames/s.
  std::vector<int64_t> walls = {2'000'000'000, 1'000'000'000, 1'250'000'000, 1'000'000'000};
  size_t rep = 0;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    return ProcessResult{0, "", "", walls[rep++]};
  };
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  testing::WriteText(session.results / "probes.csv",
                     "key,build,status,roofline_units_per_s,streams,quotable,timestamp\n"
                     "label=a,unknown,ok,1250,1,yes,T\n");
  BenchOptions options;
  options.reps = 4;
  BenchOutcome outcome = RunBench(session, options, fake.system);
  ASSERT_EQ(outcome.rows.size(), 1u);
  const LadderRow& row = outcome.rows[0];
  EXPECT_DOUBLE_EQ(row.figures.cold, 500);
  EXPECT_EQ(row.figures.warm, 1000);
  EXPECT_DOUBLE_EQ(*row.figures.spread_pct, 25);  // (1000 - 800) / 800
  EXPECT_EQ(row.roofline_units_per_s, 1250);
  EXPECT_DOUBLE_EQ(*row.pct_of_roofline, 80);  // 1000 / 1250
  EXPECT_EQ(row.peak_units_per_s, 1000);       // min(1250, 1000)
  CsvTable ladder = ReadCsvFile(session.results / "ladder.csv");
  ASSERT_EQ(ladder.rows.size(), 1u);
  EXPECT_EQ(ladder.rows[0][ladder.Column("reps_units_per_s")], "500;1000;800;1000");
  EXPECT_EQ(ladder.rows[0][ladder.Column("pct_of_roofline")], "80");
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  ASSERT_EQ(manifest.rows.size(), 1u);
  EXPECT_EQ(manifest.rows[0][0], "ladder.csv");
  EXPECT_EQ(manifest.rows[0][1], "ladder");
}

TEST_F(BenchRunnerTest, MetricRegexAndFailures) {
  int calls = 0;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    ++calls;
    return ProcessResult{0, fmt::format("warming\nfps: {}\n", 100 * calls), "", 1};
  };
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  BenchOptions options;
  options.reps = 3;
  options.metric_regex = "fps: ([0-9.]+)";
  BenchOutcome outcome = RunBench(session, options, fake.system);
  EXPECT_DOUBLE_EQ(outcome.rows[0].figures.cold, 100);
  EXPECT_EQ(outcome.rows[0].figures.warm, 300);
  options.metric_regex = "nothing: ([0-9]+)";
  BenchOutcome failed = RunBench(session, options, fake.system);
  EXPECT_EQ(failed.failed, 1);
  EXPECT_EQ(failed.rows[0].error, "rep 1: --metric-regex found no positive number in stdout");
  options.metric_regex = "(unclosed";
  EXPECT_THROW(RunBench(session, options, fake.system), InputError);
}

TEST_F(BenchRunnerTest, AWarmRateAboveTheRooflineIsAMismatchNotAPeak) {
  // 1000 frames in 1 s: 1000 frames/s against rooflines of 990 (101 %, inside the 2 % a
  // measurement may be off) and of 900 (111 %: the probe and the bench measured other work).
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    return ProcessResult{0, "", "", 1'000'000'000};
  };
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  BenchOptions options;
  options.reps = 2;
  testing::WriteText(session.results / "probes.csv",
                     "key,build,status,roofline_units_per_s,streams,quotable,timestamp\n"
                     "label=a,unknown,ok,990,1,yes,T\n");
  BenchOutcome close = RunBench(session, options, fake.system);
  ASSERT_EQ(close.rows.size(), 1u);
  EXPECT_TRUE(close.rows[0].quotable);
  EXPECT_EQ(close.rows[0].peak_units_per_s, 990);
  testing::WriteText(session.results / "probes.csv",
                     "key,build,status,roofline_units_per_s,streams,quotable,timestamp\n"
                     "label=a,unknown,ok,900,1,yes,T\n");
  fake.messages.clear();
  BenchOutcome over = RunBench(session, options, fake.system);
  ASSERT_EQ(over.rows.size(), 1u);
  const LadderRow& row = over.rows[0];
  EXPECT_NEAR(*row.pct_of_roofline, 100.0 * 1000 / 900, 1e-9);
  EXPECT_FALSE(row.quotable);
  EXPECT_FALSE(row.peak_units_per_s.has_value());
  EXPECT_NE(row.warnings.find("111.1% of the roofline, above the 102%"), std::string::npos)
      << row.warnings;
  bool warned = std::any_of(fake.messages.begin(), fake.messages.end(), [](const auto& m) {
    return m.rfind("gpuroof: warning: a: the warm rate is 111.1% of the roofline", 0) == 0;
  });
  EXPECT_TRUE(warned);
}

TEST_F(BenchRunnerTest, MetricRegexMatchesWithinOneLine) {
  // POSIX '.' matches a newline unless REG_NEWLINE: "(.*)" would take "12\ndone" and fail.
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    return ProcessResult{0, "fps: 12\ndone\n", "", 1};
  };
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  BenchOptions options;
  options.reps = 2;
  options.metric_regex = "fps: (.*)";
  BenchOutcome outcome = RunBench(session, options, fake.system);
  ASSERT_EQ(outcome.failed, 0) << outcome.rows[0].error;
  EXPECT_EQ(outcome.rows[0].figures.warm, 12);
}

TEST_F(BenchRunnerTest, LadderManifestRowNamesEveryLabelInLadderCsv) {
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    return ProcessResult{0, "", "", 1'000'000'000};
  };
  SweepSpec spec = ParseSweepSpec(
      fmt::format("[command]\nargv = [\"app\", \"{{frames}}\"]\nworkdir = \"{}\"\n"
                  "[parameters]\nframes = 1000\n"
                  "[[configurations]]\nlabel = \"a\"\n[[configurations]]\nlabel = \"b\"\n"
                  "[run]\nunits = \"{{frames}}\"\n",
                  dir.path().string()),
      "s.toml");
  BenchOptions options;
  options.reps = 1;
  RunBench(OpenCampaign(spec, Options(), fake.system), options, fake.system);
  CampaignOptions only_a = Options();
  only_a.only = {"a"};
  options.reps = 2;
  CampaignSession session = OpenCampaign(spec, only_a, fake.system);
  RunBench(session, options, fake.system);
  CsvTable ladder = ReadCsvFile(session.results / "ladder.csv");
  ASSERT_EQ(ladder.rows.size(), 2u);  // b's row from the first bench stays
  CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
  ASSERT_EQ(manifest.rows.size(), 1u);
  EXPECT_EQ(manifest.rows[0][manifest.Column("config")], "a;b");
  EXPECT_EQ(manifest.rows[0][manifest.Column("produced_by")].find("reps"), std::string::npos);
}

TEST_F(BenchRunnerTest, AFailedReRunKeepsTheEarlierOkRowsOfItsKey) {
  bool fail = false;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    if (fail) return ProcessResult{3, "", "CUDA error: out of memory\n", 1};
    return ProcessResult{0, "", "", 1'000'000'000};
  };
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  BenchOptions options;
  options.reps = 2;
  ASSERT_EQ(RunBench(session, options, fake.system).failed, 0);
  const std::string ladder = testing::ReadText(session.results / "ladder.csv");
  const std::string manifest = testing::ReadText(session.results / "manifest.csv");
  fail = true;
  fake.clock.now += std::chrono::hours(1);
  fake.messages.clear();
  BenchOutcome outcome = RunBench(session, options, fake.system);
  EXPECT_EQ(outcome.failed, 1);
  EXPECT_EQ(outcome.kept_earlier, 1);
  ASSERT_EQ(outcome.rows.size(), 1u);
  EXPECT_EQ(outcome.rows[0].status, "failed");
  // ladder.csv keeps the ok row, and its manifest row still describes it as it is.
  EXPECT_EQ(testing::ReadText(session.results / "ladder.csv"), ladder);
  EXPECT_EQ(testing::ReadText(session.results / "manifest.csv"), manifest);
  EXPECT_NE(std::find(fake.messages.begin(), fake.messages.end(),
                      "gpuroof: note: a: ladder.csv keeps its 1 earlier ok row for key label=a "
                      "(build unknown, 2024-10-04T00:00:00Z); the failure is not written over it"),
            fake.messages.end())
      << fmt::format("{}", fmt::join(fake.messages, "\n"));
  const std::string table = RenderBenchTable(outcome, "frames");
  EXPECT_NE(table.find("FAILED"), std::string::npos) << table;
  EXPECT_NE(table.find("1 configuration(s) failed; see ladder.csv and the errors above"),
            std::string::npos)
      << table;
}

TEST_F(BenchRunnerTest, ALadderWithOtherColumnsIsRefusedBeforeAnyRep) {
  int runs = 0;
  fake.runner.handler = [&](const ProcessRequest& request) {
    if (request.argv[0] != "app") return ProcessResult{127, "", "", 0};
    ++runs;
    return ProcessResult{0, "", "", 1'000'000'000};
  };
  CampaignSession session = OpenCampaign(Spec(), Options(), fake.system);
  testing::WriteText(session.results / "ladder.csv", "key,old\nlabel=a,1\n");
  BenchOptions options;
  EXPECT_THROW(RunBench(session, options, fake.system), InputError);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(testing::ReadText(session.results / "ladder.csv"), "key,old\nlabel=a,1\n");
}

}  // namespace
}  // namespace gpuroof
