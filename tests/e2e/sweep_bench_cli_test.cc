// End-to-end `gpuroof bench`: the ladder of fresh processes, joined with the sweep's probes.csv
// of the same key only.
#include <cerrno>
#include <csignal>

#include <gtest/gtest.h>

#include "sweep_cli_fixture.h"
#include "sweep_workload.h"

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

// units / unit_name edited between the sweep and the bench: the probes row measured other units,
// so there is no roofline, no % of roofline and no peak, and the warning names both.
TEST_F(SweepCli, BenchNeverJoinsARooflineOfOtherUnits) {
  std::filesystem::path spec = WriteSpec();
  ASSERT_EQ(RunGpuroof({"sweep", spec.string(), "--results", Results().string(), "--only", "k5"})
                .exit_code,
            0);
  std::string text = ReadFile(spec);
  const std::string units = "units = \"{frames}\"\n";
  ASSERT_NE(text.find(units), std::string::npos);
  text.replace(text.find(units), units.size(), "units = \"1\"\nunit_name = \"batch\"\n");
  WriteFile(spec, text);
  CliResult r = RunGpuroof(
      {"bench", spec.string(), "--results", Results().string(), "--reps", "1", "--only", "k5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ladder = Csv(OnlyResultsFolder() / "ladder.csv");
  ASSERT_EQ(ladder.size(), 1u);
  EXPECT_EQ(ladder[0].at("roofline_units_per_s"), "");
  EXPECT_EQ(ladder[0].at("pct_of_roofline"), "");
  EXPECT_EQ(ladder[0].at("peak_units_per_s"), "");
  EXPECT_NE(r.err.find("measured in other units (units 10 frame; this bench: units 1 batch)"),
            std::string::npos)
      << r.err;
}

// A --reps that is not a number is said as such, not as out of range.
TEST_F(SweepCli, BenchRepsThatAreNotANumberAreSaidAsSuch) {
  std::filesystem::path spec = WriteSpec();
  CliResult r =
      RunGpuroof({"bench", spec.string(), "--results", Results().string(), "--reps", "abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "gpuroof: error: --reps: 'abc' is not a whole number (1 to 1000) (usage: gpuroof bench "
            "--help)\n");
}

// SIGTERM during a rep: the rep's process group is stopped, its scratch trace removed, the
// configuration benched before it kept, exit 143.
TEST_F(SweepCli, BenchStopsOnSigtermAndRemovesItsScratchTrace) {
  std::filesystem::path spec = WriteSpecWithASlowSecondConfiguration();
  pid_t pid = StartGpuroof({"bench", spec.string(), "--results", Results().string(), "--reps", "1"},
                           dir.path(), "bench");
  const std::filesystem::path pid_file = dir.path() / "slow.pid";
  ASSERT_TRUE(WaitForFile(pid_file)) << ReadFile(dir.path() / "bench.err");
  const pid_t workload_pid = std::stoi(ReadFile(pid_file));
  kill(pid, SIGTERM);
  EXPECT_EQ(WaitFor(pid), 128 + SIGTERM);
  errno = 0;
  EXPECT_EQ(kill(workload_pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  if (kill(workload_pid, 0) == 0) kill(-workload_pid, SIGKILL);
  std::filesystem::path folder = OnlyResultsFolder();
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    EXPECT_EQ(entry.path().filename().string().find(".bench-scratch-"), std::string::npos) << entry;
  auto ladder = Csv(folder / "ladder.csv");
  ASSERT_EQ(ladder.size(), 1u);
  EXPECT_EQ(ladder[0].at("label"), "first");
}

}  // namespace
}  // namespace gpuroof::testing
