// End-to-end tests of what the output formats must agree on (review of the formats): a format
// an option cannot render is refused, JSON says "none" as null, what a CSV leaves out is said on
// stderr, csv-long carries every figure, and text names what each block is.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

// Three epochs that launch an H2D copy, a kernel and a D2H copy each (the D2H copies on stream 1
// of context 2, beside stream 1 of context 1), a fourth epoch that launches nothing, and a
// kernel no API call launched.
constexpr const char* kTrace = R"(
gpu 0 "Test GPU"
repeat 3 step=1ms {
  nvtx start=0 end=100us text="epoch" tid=1
  api start=10us end=15us corr=1+i*3 tid=1 name=cudaMemcpyAsync_v3020
  api start=20us end=25us corr=2+i*3 tid=1
  api start=30us end=35us corr=3+i*3 tid=1 name=cudaMemcpyAsync_v3020
  memcpy start=200us end=300us kind=HtoD bytes=1000000 src=pinned corr=1+i*3 stream=1
  kernel start=250us end=350us name=work_kernel corr=2+i*3 stream=2
  memcpy start=350us end=370us kind=DtoH bytes=1000 src=device dst=pinned corr=3+i*3 stream=1 ctx=2
}
nvtx start=3500us end=3600us text="epoch" tid=1
kernel start=3700us end=3800us name=stray corr=999 stream=1
)";

std::string BuildTrace(const TempDir& dir) {
  const std::filesystem::path file = dir / "epochs.sqlite";
  testsupport::BuildFromDescription(kTrace, "epochs", file);
  return file.string();
}

size_t CountLines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// --per-range renders the ranges report: csv-long, which it has no form for, is refused in one
// line (it printed the text table); Markdown is the ranges report's.
TEST(FormatsReviewCli, PerRangeRefusesCsvLongAndOffersMarkdown) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  CliResult r = RunGpuroof({"analyze", trace, "--per-range", "epoch", "--format", "csv-long"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(CountLines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("csv-long is not offered with --per-range"), std::string::npos) << r.err;

  r = RunGpuroof({"analyze", trace, "--per-range", "epoch", "--format", "markdown"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const CliResult ranges = RunGpuroof({"ranges", trace, "--name", "epoch", "--format", "markdown"});
  EXPECT_EQ(r.out, ranges.out);

  r = RunGpuroof({"analyze", trace, "--format", "markdown"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("markdown is offered with --per-range only"), std::string::npos) << r.err;
}

// An instance without GPU work has no GPU start or end (null, as CSV's empty cell), and each
// JSON instance names its range as the CSV's range column does.
TEST(FormatsReviewCli, JsonInstanceWithoutGpuWorkHasNullGpuTimes) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  const CliResult r = RunGpuroof({"ranges", trace, "--name", "epoch", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string json = r.out;
  std::erase_if(json, [](char c) { return c == ' ' || c == '\n'; });
  EXPECT_NE(json.find(R"("instance":4,"name":"epoch",)"), std::string::npos) << r.out;
  EXPECT_NE(json.find(R"("gpu_ops":0,"gpu_start_ns":null,"gpu_end_ns":null)"), std::string::npos)
      << r.out;
  EXPECT_EQ(json.find(R"("gpu_start_ns":0,)"), std::string::npos) << r.out;
}

// What a CSV has no row for is said on stderr with its count, like the window note.
TEST(FormatsReviewCli, CsvSaysWhatItLeavesOutOnStderr) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  const std::string prefix = "gpuroof: note: " + trace + ": ";
  CliResult r = RunGpuroof({"kernels", trace, "--top", "1", "--window", "all", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(prefix + "device 0: not listed: 1 more kernel (--top 1): 1 launch, "),
            std::string::npos)
      << r.err;

  r = RunGpuroof({"ranges", trace, "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(prefix + "left out: 1 GPU op was launched by no API call in the trace"),
            std::string::npos)
      << r.err;

  r = RunGpuroof({"findings", trace, "--min-cost-pct", "100", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(prefix + "left out: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" below --min-cost-pct 100 "), std::string::npos) << r.err;

  // The text says it in the table's own lines: nothing more on stderr.
  r = RunGpuroof({"kernels", trace, "--top", "1", "--window", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("not listed"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("1 more kernel (--top 1)"), std::string::npos) << r.out;
}

// csv-long carries --overlap's figures, the any-op duty and per-unit, and the ops outside the
// window, one per row.
TEST(FormatsReviewCli, CsvLongHasTheOverlapFigures) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  const CliResult r =
      RunGpuroof({"analyze", trace, "--overlap", "--units", "3", "--format", "csv-long"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::string> value;  // engine/metric -> value
  for (const auto& row : ParseCsv(r.out))
    value[row.at("engine") + "/" + row.at("metric")] = row.at("value");
  // H2D [200,300) and the kernel [250,350) share 50 us in each epoch.
  EXPECT_EQ(value["kernel_x_H2D/both_busy"], "150000") << r.out;
  EXPECT_EQ(value["kernel_x_D2H/both_busy"], "0") << r.out;
  EXPECT_TRUE(value.count("any/idle")) << r.out;
  EXPECT_TRUE(value.count("any/duty")) << r.out;
  EXPECT_TRUE(value.count("any/per_unit")) << r.out;
  EXPECT_EQ(value["outside_window/ops"], "0") << r.out;  // the window holds every op
  EXPECT_EQ(value["outside_window/busy"], "0") << r.out;
}

// A kernel taken by a substring of its name says how many signatures it stands for (1, not 0).
TEST(FormatsReviewCli, UnitsFromKernelDisclosureCountsTheSignatures) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  const CliResult r = RunGpuroof({"analyze", trace, "--units-from", "kernel:work_k"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("'work_kernel' (1 launch shape(s) or signatures)"), std::string::npos)
      << r.out;
}

// Each --by-stream block names its stream, with context and process where two streams of the
// device share an id.
TEST(FormatsReviewCli, ByStreamBlocksNameTheirStream) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  const CliResult r = RunGpuroof({"analyze", trace, "--by-stream"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string device = trace + " · device 0 (Test GPU) · stream ";
  EXPECT_NE(r.out.find(device + "2\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(device + "1 (context 1, process "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(device + "1 (context 2, process "), std::string::npos) << r.out;
  // CSV and csv-long key a stream by (stream, context, process): no two rows share a key.
  for (const char* format : {"csv", "csv-long"}) {
    const CliResult csv = RunGpuroof({"analyze", trace, "--by-stream", "--format", format});
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(csv.out.find("stream,context,process,"), csv.out.find("stream,")) << csv.out;
    EXPECT_NE(csv.out.find(",1,1,"), std::string::npos) << csv.out;
    EXPECT_NE(csv.out.find(",1,2,"), std::string::npos) << csv.out;
  }
}

// Context lines wrap at 160 columns, as the tables fit them.
TEST(FormatsReviewCli, AnalyzeContextLinesFit160Columns) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  // A long unit name makes the reading and headroom lines, which name it thrice, too long.
  const CliResult r = RunGpuroof(
      {"analyze", trace, "--units", "3", "--unit-name", std::string(40, 'u'), "--overlap"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t start = 0;
  size_t longest = 0;
  while (start < r.out.size()) {
    size_t end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    longest = std::max(longest, r.out.substr(start, end - start).size());
    start = end + 1;
  }
  EXPECT_LE(longest, 160u) << r.out;
}

// Without units the engine table has no per-unit column to leave empty, and the context lines
// never print a non-zero figure as 0 (review D13).
TEST(FormatsReviewCli, AnalyzeTextHasNoEmptyColumnAndNoFalseZero) {
  TempDir dir;
  const std::string trace = BuildTrace(dir);
  CliResult r = RunGpuroof({"analyze", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("/frame"), std::string::npos) << r.out;
  r = RunGpuroof({"analyze", trace, "--units", "1000000000000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("roofline <0.001 us/frame"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" 0.000 us/frame"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(" 0.00 us/frame"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpuroof::testing
