// Guards with fake file times and GPU answers: stale builds, busy GPUs, short runs.
#include "gpuroof/campaign/guards.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "campaign/fake_system.h"

namespace gpuroof {
namespace {

using std::chrono::seconds;

BuildSpec Build() {
  BuildSpec build;
  build.artifacts = {"build/**/*.so"};
  build.sources = {"src/**/*.cu", "include/*.h"};
  return build;
}

TEST(Guards, StaleBuildIsRefusedWithBothTimestamps) {
  testing::FakeFileTimes files;
  WallTime t0 = testing::FakeClock().now;  // 2024-10-04T00:00:00Z
  files.by_pattern["build/**/*.so"] = {{"build/a.so", t0 + seconds(100)},
                                       {"build/x/b.so", t0 + seconds(50)}};
  files.by_pattern["src/**/*.cu"] = {{"src/k.cu", t0 + seconds(40)}};
  files.by_pattern["include/*.h"] = {{"include/c.h", t0 + seconds(61)}};
  Freshness stale = CheckBuildFreshness(Build(), "/w", files);
  EXPECT_TRUE(stale.checked);
  EXPECT_FALSE(stale.fresh);
  EXPECT_EQ(stale.message,
            "the build is stale: source include/c.h (modified 2024-10-04T00:01:01Z) is newer than "
            "artifact build/x/b.so (built 2024-10-04T00:00:50Z); rebuild first");
  files.by_pattern["include/*.h"] = {{"include/c.h", t0 + seconds(50)}};  // same second: fresh
  EXPECT_TRUE(CheckBuildFreshness(Build(), "/w", files).fresh);
}

TEST(Guards, NoArtifactIsRefusedAndNoRuleIsNotChecked) {
  testing::FakeFileTimes files;
  Freshness none = CheckBuildFreshness(Build(), "/w", files);
  EXPECT_FALSE(none.fresh);
  EXPECT_EQ(none.message, "no build artifact matches build/**/*.so under /w: build first");
  Freshness unchecked = CheckBuildFreshness(BuildSpec{}, "/w", files);
  EXPECT_FALSE(unchecked.checked);
  EXPECT_TRUE(unchecked.fresh);
}

TEST(Guards, RealFileTimesAndGlobs) {
  EXPECT_TRUE(GlobMatch("build/**/*.so", "build/a.so"));
  EXPECT_TRUE(GlobMatch("build/**/*.so", "build/x/y/a.so"));
  EXPECT_FALSE(GlobMatch("build/**/*.so", "other/a.so"));
  EXPECT_FALSE(GlobMatch("build/*.so", "build/x/a.so"));
  EXPECT_TRUE(GlobMatch("**/*.cu", "k.cu"));
  testing::ScratchDir dir;
  std::filesystem::create_directories(dir.path() / "build/x");
  testing::WriteText(dir.path() / "build/x/lib.so", "");
  testing::WriteText(dir.path() / "build/x/lib.txt", "");
  DiskFileTimes disk;
  std::vector<FileTime> found = disk.Match(dir.path(), "build/**/*.so");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].path.string(), (dir.path() / "build/x/lib.so").string());
  EXPECT_TRUE(disk.Match(dir.path(), "nothing/**/*.so").empty());
}

GpuStatus Gpus(std::optional<double> utilisation) {
  GpuStatus status;
  status.source = "nvidia-smi";
  status.gpus = {{"GPU A", 1.0}, {"GPU B", utilisation}};
  return status;
}

TEST(Guards, BusyGpuIsRefusedUnlessAllowed) {
  GpuIdleness refused = CheckGpuIdle(Gpus(87), 5, false);
  EXPECT_TRUE(refused.refuse);
  EXPECT_EQ(refused.message,
            "a GPU is 87 % busy (limit 5 %, from nvidia-smi): its numbers would not be quotable; "
            "wait for it to go idle, or pass --allow-busy-gpu to mark the rows not quotable");
  GpuIdleness allowed = CheckGpuIdle(Gpus(87), 5, true);
  EXPECT_FALSE(allowed.refuse);
  EXPECT_FALSE(allowed.quotable);
  GpuIdleness idle = CheckGpuIdle(Gpus(5), 5, false);  // at the limit is idle enough
  EXPECT_FALSE(idle.refuse);
  EXPECT_TRUE(idle.quotable);
  EXPECT_EQ(idle.message, "");
}

TEST(Guards, NoGpuIsSaidAndTheSweepGoesOn) {
  GpuStatus none;
  none.source = "none";
  none.note = "NVML not loadable; nvidia-smi not found";
  GpuIdleness result = CheckGpuIdle(none, 5, false);
  EXPECT_FALSE(result.refuse);
  EXPECT_TRUE(result.quotable);
  EXPECT_EQ(result.note, "no GPU information (NVML not loadable; nvidia-smi not found); going on");
}

TEST(Guards, ShortRunsAreNotQuotable) {
  EXPECT_EQ(CheckMinimumUnits(2000, 10000, "frame"),
            "2000 frames is shorter than the minimum of 10000 for a quotable run (GPU clocks may "
            "not have ramped up); the row is marked not quotable");
  EXPECT_EQ(CheckMinimumUnits(10000, 10000, "frame"), "");
  EXPECT_EQ(CheckMinimumUnits(5, 0, "frame"), "");
  EXPECT_EQ(CheckMinimumUnits(std::nullopt, 10, "frame"), "");
}

TEST(GpuProbe, ParsesNvidiaSmiAndFallsBackToIt) {
  GpuStatus parsed = ParseNvidiaSmi("NVIDIA H200, 550.54.15, 87\nNVIDIA H200, 550.54.15, [N/A]\n");
  ASSERT_EQ(parsed.gpus.size(), 2u);
  EXPECT_EQ(parsed.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(parsed.gpus[0].utilisation_pct, 87);
  EXPECT_FALSE(parsed.gpus[1].utilisation_pct.has_value());
  EXPECT_EQ(parsed.driver, "550.54.15");
  EXPECT_EQ(parsed.MaxUtilisationPct(), 87);

  setenv("GPUROOF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
  testing::FakeRunner runner;
  runner.handler = [](const ProcessRequest& request) {
    EXPECT_EQ(request.argv[0], "nvidia-smi");
    return ProcessResult{0, "Fake GPU, 1.0, 42\n", "", 0};
  };
  GpuStatus smi = ProbeGpus(runner);
  EXPECT_EQ(smi.source, "nvidia-smi");
  EXPECT_EQ(smi.MaxUtilisationPct(), 42);
  testing::FakeRunner missing;
  GpuStatus none = ProbeGpus(missing);
  EXPECT_EQ(none.source, "none");
  EXPECT_EQ(none.note, "NVML not loadable (/nonexistent/libnvidia-ml.so.1); nvidia-smi not found");
  unsetenv("GPUROOF_NVML_LIBRARY");
}

}  // namespace
}  // namespace gpuroof
