// End-to-end `gpuroof bench`: the ladder of fresh processes, joined with the sweep's probes.csv
// of the same key only.
#include <gtest/gtest.h>

#include "sweep_cli_fixture.h"

namespace gpuroof::testing {
namespace {

TEST_F(SweepCli, BenchLadderJoinsTheRooflineOfTheSameKey) {
  std::filesystem::path spec = WriteSpec();
  ASSERT_EQ(RunGpuroof({"sweep", spec.string(), "--results", Results().string()}).exit_code, 0);
  // The workload prints "throughput: 10000 frames/s" (frames x 1000).
  CliResult r = RunGpuroof({"bench", spec.string(), "--results", Results().string(), "--reps", "2",
                            "--metric-regex", "throughput: ([0-9]+)"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::filesystem::path folder = OnlyResultsFolder();
  auto ladder = Csv(folder / "ladder.csv");
  ASSERT_EQ(ladder.size(), 2u);
  EXPECT_EQ(ladder[1].at("key"), "label=k5;kernel=5000");
  EXPECT_EQ(ladder[1].at("cold_units_per_s"), "10000");
  EXPECT_EQ(ladder[1].at("warm_units_per_s"), "10000");
  EXPECT_EQ(ladder[1].at("spread_pct"), "0");  // one warm rep: nothing to spread
  EXPECT_EQ(ladder[1].at("roofline_units_per_s"), "200000");
  EXPECT_EQ(ladder[1].at("pct_of_roofline"), "5");                    // 10000 / 200000
  EXPECT_EQ(ladder[1].at("peak_units_per_s"), "10000");               // min(200000, 10000)
  EXPECT_NEAR(std::stod(ladder[0].at("pct_of_roofline")), 4, 1e-12);  // 10000 / 250000
  auto manifest = Csv(folder / "manifest.csv");
  ASSERT_EQ(manifest.size(), 3u);
  EXPECT_EQ(manifest[2].at("artifact"), "ladder.csv");
  EXPECT_EQ(manifest[2].at("kind"), "ladder");
  EXPECT_NE(r.out.find("5.0"), std::string::npos) << r.out;
}

TEST_F(SweepCli, BenchNeverUsesARooflineTakenAtAnotherKey) {
  std::filesystem::path spec = WriteSpec();
  ASSERT_EQ(RunGpuroof({"sweep", spec.string(), "--results", Results().string()}).exit_code, 0);
  CliResult r = RunGpuroof({"bench", spec.string(), "--results", Results().string(), "--reps", "1",
                            "--only", "k5", "--set", "kernel=1500"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ladder = Csv(OnlyResultsFolder() / "ladder.csv");
  ASSERT_EQ(ladder.size(), 1u);
  EXPECT_EQ(ladder[0].at("key"), "label=k5;kernel=1500");
  EXPECT_EQ(ladder[0].at("roofline_units_per_s"), "");
  EXPECT_NE(r.err.find("no roofline for key label=k5;kernel=1500 of build b1"), std::string::npos)
      << r.err;
  // Wall time per unit: 10 frames over a positive wall time.
  EXPECT_GT(std::stod(ladder[0].at("cold_units_per_s")), 0);
}

}  // namespace
}  // namespace gpuroof::testing
