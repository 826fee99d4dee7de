#include "gpuroof/reports/analyze_report.h"

#include <sstream>

#include <gtest/gtest.h>

#include "gpuroof/reports/report_text.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;

std::vector<std::string> SplitLine(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, ','))
    fields.push_back(field);
  if (!line.empty() && line.back() == ',') fields.emplace_back();
  return fields;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  std::string line;
  while (std::getline(in, line))
    lines.push_back(line);
  return lines;
}

AnalyzeReport Report(const Trace& trace, int64_t units, const std::string& unit_name) {
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  if (units > 0) {
    options.units.kind = UnitsSpec::Kind::kFixed;
    options.units.count = units;
  }
  options.units.unit_name = unit_name;
  AnalyzeReport report;
  report.traces.push_back({&trace, ComputeEngineLoad(trace, options), {}});
  report.window_text = "all";
  report.tool_version = "test";
  return report;
}

TEST(AnalyzeCsv, ColumnsFollowTheProbesLayout) {
  // H2D binds: 4 frames, H2D busy 400 ns, kernel 100 ns, a memset present, no D2D.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100},
                           {Engine::kH2D, 0, 400, 0, 8},
                           {Engine::kMemset, 10, 20},
                           {Engine::kD2H, 100, 400, 0, 9}});
  std::vector<std::string> lines = Lines(RenderAnalyzeCsv(Report(trace, 4, "frame")));
  ASSERT_EQ(lines.size(), 2u);
  std::vector<std::string> header = SplitLine(lines[0]);
  std::vector<std::string> expected = {"device",
                                       "n_frames",
                                       "window_ms",
                                       "window_us_per_frame",
                                       "window_fps",
                                       "kernel_n",
                                       "kernel_sum_ms",
                                       "kernel_busy_ms",
                                       "kernel_overlap",
                                       "kernel_duty_pct",
                                       "kernel_us_per_frame",
                                       "H2D_n",
                                       "H2D_sum_ms",
                                       "H2D_busy_ms",
                                       "H2D_overlap",
                                       "H2D_duty_pct",
                                       "H2D_us_per_frame",
                                       "H2D_bytes",
                                       "H2D_gbps",
                                       "D2H_n",
                                       "D2H_sum_ms",
                                       "D2H_busy_ms",
                                       "D2H_overlap",
                                       "D2H_duty_pct",
                                       "D2H_us_per_frame",
                                       "D2H_bytes",
                                       "D2H_gbps",
                                       "memset_n",
                                       "memset_sum_ms",
                                       "memset_busy_ms",
                                       "memset_overlap",
                                       "memset_duty_pct",
                                       "memset_us_per_frame",
                                       "memset_bytes",
                                       "memset_gbps",
                                       "bottleneck",
                                       "roofline_us_per_frame",
                                       "roofline_fps"};
  EXPECT_EQ(header, expected);
  std::vector<std::string> row = SplitLine(lines[1]);
  ASSERT_EQ(row.size(), header.size());
  auto cell = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return row[i];
    }
    return std::string("<missing>");
  };
  EXPECT_EQ(cell("device"), "0");
  EXPECT_EQ(cell("n_frames"), "4");
  EXPECT_EQ(cell("window_ms"), "0.0004");         // [0, 400) ns
  EXPECT_EQ(cell("window_us_per_frame"), "0.1");  // 400 ns / 4
  EXPECT_EQ(cell("window_fps"), "10000000");      // 4 / 400e-9 s
  EXPECT_EQ(cell("H2D_busy_ms"), "0.0004");
  EXPECT_EQ(cell("H2D_duty_pct"), "100");
  EXPECT_EQ(cell("kernel_us_per_frame"), "0.025");
  EXPECT_EQ(cell("kernel_overlap"), "1");
  EXPECT_EQ(cell("bottleneck"), "H2D");
  EXPECT_EQ(cell("roofline_us_per_frame"), "0.1");
  EXPECT_EQ(cell("roofline_fps"), "10000000");
}

TEST(AnalyzeCsv, UnitNameRenamesColumnsAndNoUnitsLeavesCellsEmpty) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100}});
  std::string csv = RenderAnalyzeCsv(Report(trace, 2, "batch"));
  EXPECT_NE(csv.find("n_batches,"), std::string::npos);
  EXPECT_NE(csv.find("window_us_per_batch"), std::string::npos);
  EXPECT_NE(csv.find("roofline_us_per_batch"), std::string::npos);
  EXPECT_EQ(csv.find("frame"), std::string::npos);
  std::vector<std::string> lines = Lines(RenderAnalyzeCsv(Report(trace, 0, "frame")));
  std::vector<std::string> row = SplitLine(lines[1]);
  EXPECT_EQ(row[1], "");                     // n_frames
  EXPECT_EQ(row.back(), "");                 // roofline_fps
  EXPECT_EQ(row[row.size() - 3], "kernel");  // the bottleneck is known without units
}

TEST(AnalyzeCsv, SeveralTracesGetATraceColumn) {
  Trace a = MakeTrace({{Engine::kKernel, 0, 100}});
  Trace b = MakeTrace({{Engine::kKernel, 0, 50}});
  b.source = "b,with comma.sqlite";
  AnalyzeReport report = Report(a, 1, "frame");
  report.traces.push_back(Report(b, 1, "frame").traces[0]);
  std::vector<std::string> lines = Lines(RenderAnalyzeCsv(report));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].substr(0, 13), "trace,device,");
  EXPECT_EQ(lines[1].substr(0, 20), "memory.trace,0,1,0.0");
  EXPECT_EQ(lines[2].substr(0, 24), "\"b,with comma.sqlite\",0,");
}

TEST(ReadingLine, SaysWhichEngineBindsAndWhatThatMeans) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100}, {Engine::kH2D, 0, 400, 0, 8}});
  AnalyzeReport report = Report(trace, 4, "frame");
  const DeviceLoad& device = report.traces[0].devices[0];
  EXPECT_EQ(ReadingLine(device, ComputeRoofline(device)),
            "H2D binds at 0.10 us/frame; the kernel (0.03 us/frame) is invisible end to end "
            "until it grows past that.");
  Trace kernel_bound = MakeTrace({{Engine::kKernel, 0, 400}, {Engine::kD2H, 0, 120, 0, 8}});
  report = Report(kernel_bound, 4, "frame");
  const DeviceLoad& k = report.traces[0].devices[0];
  EXPECT_EQ(ReadingLine(k, ComputeRoofline(k)),
            "the kernel binds at 0.10 us/frame; the next engine, D2H (0.03 us/frame), binds once "
            "the kernel is 0.07 us/frame faster.");
}

// A graph-traced run's compute is its whole-graph launches: never "no compute kernel ran".
TEST(ReadingLine, WholeGraphLaunchesAreTheComputeOfAGraphTracedRun) {
  Trace copy_bound = MakeTrace({{Engine::kGraph, 0, 100}, {Engine::kH2D, 0, 400, 0, 8}});
  AnalyzeReport report = Report(copy_bound, 4, "frame");
  const DeviceLoad& device = report.traces[0].devices[0];
  EXPECT_EQ(ReadingLine(device, ComputeRoofline(device)),
            "H2D binds at 0.10 us/frame; the whole-graph launches (0.03 us/frame) are invisible "
            "end to end until they grow past that.");
  Trace graph_bound = MakeTrace({{Engine::kGraph, 0, 400}, {Engine::kD2H, 0, 120, 0, 8}});
  report = Report(graph_bound, 4, "frame");
  const DeviceLoad& g = report.traces[0].devices[0];
  EXPECT_EQ(ReadingLine(g, ComputeRoofline(g)),
            "graph binds at 0.10 us/frame; the next engine, D2H (0.03 us/frame), binds once the "
            "whole-graph launches are 0.07 us/frame faster.");
}

TEST(AnalyzeJson, CarriesSchemaAndUnroundedNumbers) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100}, {Engine::kH2D, 0, 300, 0, 8}});
  std::string json = RenderAnalyzeJson(Report(trace, 3, "frame"));
  EXPECT_NE(json.find("\"schema\": \"gpuroof.analyze/1\""), std::string::npos);
  EXPECT_NE(json.find("\"busy_us_per_unit\": 0.1"), std::string::npos);
  EXPECT_NE(json.find("\"busy_ns\": 300"), std::string::npos);
  EXPECT_NE(json.find("\"records_read\""), std::string::npos);
}

// An engine whose ops in the window take no time could grow without bound: "unbounded" in text,
// null in JSON, never "0.00x" (which would say it cannot grow at all).
TEST(AnalyzeHeadroom, AnEngineWithoutBusyTimeIsUnbounded) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100}, {Engine::kMemset, 50, 50}});
  const AnalyzeReport report = Report(trace, 2, "frame");
  const std::string text = RenderAnalyzeText(report);
  EXPECT_NE(text.find("memset +0.050 us/frame (unbounded)"), std::string::npos) << text;
  const std::string json = RenderAnalyzeJson(report);
  EXPECT_NE(json.find("\"factor\": null"), std::string::npos) << json;
}

TEST(PluralUnit, EnglishPlurals) {
  EXPECT_EQ(PluralUnit("frame"), "frames");
  EXPECT_EQ(PluralUnit("batch"), "batches");
  EXPECT_EQ(PluralUnit("epoch"), "epochs");
  EXPECT_EQ(PluralUnit("pass"), "passes");
}

// What a GB/s leaves out is named for what it is: copies, or memsets.
TEST(ZeroDurationRateNote, NamesCopiesAndMemsets) {
  ByteRate rate;
  rate.Add(1'000'000, 0);
  rate.Add(1'000'000, 10'000);
  EXPECT_EQ(ZeroDurationRateNote("H2D", Engine::kH2D, rate),
            "H2D GB/s leaves out 1 copy of zero duration (1.00 MB): its bytes moved in no "
            "measured time");
  rate.Add(2'000'000, 0);
  EXPECT_EQ(ZeroDurationRateNote("memset", Engine::kMemset, rate),
            "memset GB/s leaves out 2 memsets of zero duration (3.00 MB): their bytes moved in "
            "no measured time");
  EXPECT_EQ(ZeroDurationRateNote("H2D", Engine::kH2D, ByteRate{}), "");
}

}  // namespace
}  // namespace gpuroof
