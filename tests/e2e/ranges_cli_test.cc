// End-to-end tests of `gpuroof ranges`: GPU work attributed to NVTX range instances through the
// launching API calls, checked against figures worked out by hand, and bad input.
#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

// Three epochs, 1 ms apart, each an NVTX range [0,100us) on thread 1 that launches (from thread
// 1) an H2D copy [200,300us), a kernel [300,350us) and a D2H copy [350,370us) — all after the
// range closed, so only launch correlation can attribute them. A range on thread 2 spans the
// whole trace but launches nothing: it must get no GPU work.
// Per epoch by hand: H2D 100 us, kernel 50 us, D2H 20 us -> H2D binds at 100 us per epoch.
constexpr const char* kEpochs = R"(
gpu 0 "Test GPU"
nvtx start=0 end=3ms text="idle thread" tid=2
repeat 3 step=1ms {
  nvtx start=0 end=100us text="epoch" tid=1
  api start=10us end=15us corr=1+i*3 tid=1 name=cudaMemcpyAsync_v3020
  api start=20us end=25us corr=2+i*3 tid=1
  api start=30us end=35us corr=3+i*3 tid=1 name=cudaMemcpyAsync_v3020
  memcpy start=200us end=300us kind=HtoD bytes=1000000 src=pinned corr=1+i*3 stream=1
  kernel start=300us end=350us name=work corr=2+i*3 stream=2
  memcpy start=350us end=370us kind=DtoH bytes=1000 src=device dst=pinned corr=3+i*3 stream=1
}
)";

std::filesystem::path Build(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::filesystem::path file = dir / name;
  testsupport::BuildFromDescription(text, name, file);
  return file;
}

TEST(RangesCliTest, PerNameRowsAttributeWorkThroughLaunches) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult result = RunGpuroof({"ranges", trace.string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = ParseCsv(result.out);
  ASSERT_EQ(rows.size(), 2u) << result.out;
  // "idle thread" has 3 ms of CPU time, "epoch" 300 us: largest first.
  EXPECT_EQ(rows[0].at("range"), "idle thread");
  EXPECT_EQ(rows[0].at("gpu_ops"), "0");
  EXPECT_EQ(rows[0].at("bottleneck"), "");
  const auto& epoch = rows[1];
  EXPECT_EQ(epoch.at("range"), "epoch");
  EXPECT_EQ(epoch.at("side"), "cpu");
  EXPECT_EQ(epoch.at("method"), "launch-correlation");
  EXPECT_EQ(epoch.at("instances"), "3");
  EXPECT_EQ(epoch.at("cpu_total_ns"), "300000");
  EXPECT_EQ(epoch.at("cpu_median_ns"), "100000");
  EXPECT_EQ(epoch.at("gpu_ops"), "9");
  EXPECT_EQ(epoch.at("instances_with_gpu_work"), "3");
  EXPECT_EQ(epoch.at("h2d_busy_ns"), "300000");
  EXPECT_EQ(epoch.at("kernel_busy_ns"), "150000");
  EXPECT_EQ(epoch.at("d2h_busy_ns"), "60000");
  EXPECT_EQ(epoch.at("bottleneck"), "H2D");
  EXPECT_EQ(epoch.at("roofline_ns_per_instance"), "100000");
}

TEST(RangesCliTest, NamedRangeGivesOneRowPerInstance) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult result =
      RunGpuroof({"ranges", trace.string(), "--name", "epoch", "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto rows = ParseCsv(result.out);
  ASSERT_EQ(rows.size(), 3u) << result.out;
  const auto& second = rows[1];
  EXPECT_EQ(second.at("instance"), "2");
  EXPECT_EQ(second.at("device"), "0");
  EXPECT_EQ(second.at("cpu_start_ns"), "1000000");
  EXPECT_EQ(second.at("cpu_end_ns"), "1100000");
  EXPECT_EQ(second.at("gpu_ops"), "3");
  EXPECT_EQ(second.at("gpu_start_ns"), "1200000");
  EXPECT_EQ(second.at("gpu_end_ns"), "1370000");
  EXPECT_EQ(second.at("any_busy_ns"), "170000");
  EXPECT_EQ(second.at("bottleneck"), "H2D");
  EXPECT_EQ(second.at("roofline_ns"), "100000");

  const CliResult table = RunGpuroof({"ranges", trace.string(), "--name", "epoch"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("GPU work by launch-correlation"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("100.000"), std::string::npos) << table.out;
}

TEST(RangesCliTest, WithoutApiCallsFallsBackToTimeOverlapAndSaysSo) {
  TempDir dir;
  // The same epochs, but each range covers its GPU work and there are no API calls.
  const auto trace = Build(dir, "overlap.sqlite", R"(
gpu 0 "Test GPU"
repeat 2 step=1ms {
  nvtx start=0 end=500us text="epoch"
  memcpy start=200us end=300us kind=HtoD bytes=1000 src=pinned
  kernel start=300us end=600us name=work
}
)");
  const CliResult result = RunGpuroof({"ranges", trace.string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("no CUDA API calls"), std::string::npos) << result.err;
  const auto rows = ParseCsv(result.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("method"), "time-overlap");
  // The kernel [300,600us) is clipped to the range [0,500us): 200 us per epoch.
  EXPECT_EQ(rows[0].at("kernel_busy_ns"), "400000");
  EXPECT_EQ(rows[0].at("h2d_busy_ns"), "200000");
  EXPECT_EQ(rows[0].at("bottleneck"), "kernel");
}

TEST(RangesCliTest, JsonNamesTheSchema) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult result = RunGpuroof({"ranges", trace.string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"gpuroof.ranges/1\""), std::string::npos)
      << result.out.substr(0, 200);
}

TEST(RangesCliTest, AnalyzePerRangeGivesTheInstanceRows) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  const CliResult ranges =
      RunGpuroof({"ranges", trace.string(), "--name", "epoch", "--format", "csv"});
  const CliResult analyze =
      RunGpuroof({"analyze", trace.string(), "--per-range", "epoch", "--format", "csv"});
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_EQ(analyze.out, ranges.out);
  EXPECT_EQ(ParseCsv(analyze.out).size(), 3u);

  const CliResult mixed =
      RunGpuroof({"analyze", trace.string(), "--per-range", "epoch", "--units", "3"});
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("--per-range"), std::string::npos) << mixed.err;
}

// The tables' layout, pinned (the numbers in them are checked cell by cell above).
TEST(RangesCliTest, TablesMatchTheirGoldenFiles) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  for (const auto& [golden, extra] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"ranges_epochs.txt", {}},
           {"ranges_epochs_instances.txt", {"--name", "epoch"}},
           {"ranges_epochs_instances.json", {"--name", "epoch", "--format", "json"}}}) {
    std::vector<std::string> args = {"ranges", trace.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult result = RunGpuroof(args);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ExpectGoldenOutput(golden, result.out, trace.string(), "<epochs>");
  }
}

bool IsOneErrorLine(const std::string& err) {
  return err.rfind("gpuroof: error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

TEST(RangesCliTest, BadInputIsOneClearLine) {
  TempDir dir;
  const auto trace = Build(dir, "epochs.sqlite", kEpochs);
  CliResult result = RunGpuroof({"ranges", trace.string(), "--name", "nope"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(result.err)) << result.err;
  EXPECT_NE(result.err.find("no NVTX range named 'nope'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("'epoch'"), std::string::npos) << result.err;

  const auto no_nvtx =
      Build(dir, "plain.sqlite", "gpu 0 \"Test GPU\"\nkernel start=0 end=10us name=k\n");
  result = RunGpuroof({"ranges", no_nvtx.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(result.err)) << result.err;
  EXPECT_NE(result.err.find("no NVTX"), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty());

  const auto output = dir / "out.csv";
  WriteFile(output, "keep me");
  result = RunGpuroof({"ranges", no_nvtx.string(), "-o", output.string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(ReadFile(output), "keep me");
}

}  // namespace
}  // namespace gpuroof::testing
