// The kernels report says what its rows cannot show: whole-graph launches are counted in the text
// and the JSON, never left out silently.
#include "gpuroof/reports/kernel_report.h"

#include <gtest/gtest.h>

#include "gpuroof/format/report_document.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;

KernelReport Report(const Trace& trace) {
  KernelSummaryOptions options;
  options.window = ParseWindowSpec("all");
  KernelReport report;
  report.traces.push_back({&trace, ComputeKernelSummary(trace, options)});
  report.window_text = "all";
  report.tool_version = "test";
  return report;
}

TEST(KernelReport, WholeGraphLaunchesAreCountedInTextAndJson) {
  // Graphs [5, 25) and [20, 40): sum 40 ns, busy 35 ns.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10, 0, 1, 0, "k"},
                           {Engine::kGraph, 5, 25, 0, 2},
                           {Engine::kGraph, 20, 40, 0, 2}});
  const KernelReport report = Report(trace);
  const std::string text = RenderDocumentText(KernelDocument(report));
  EXPECT_NE(text.find("not listed: 2 whole-graph launches (engine graph) · sum 40 ns · busy 35 ns"),
            std::string::npos)
      << text;
  const std::string json = RenderKernelJson(report);
  EXPECT_NE(json.find("\"graph_ops\": 2,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"graph_sum_ns\": 40,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"graph_busy_ns\": 35,"), std::string::npos) << json;
}

TEST(KernelReport, NoGraphLineWithoutWholeGraphLaunches) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10, 0, 1, 0, "k"}});
  const KernelReport report = Report(trace);
  EXPECT_EQ(RenderDocumentText(KernelDocument(report)).find("not listed"), std::string::npos);
  EXPECT_NE(RenderKernelJson(report).find("\"graph_ops\": 0,"), std::string::npos);
}

}  // namespace
}  // namespace gpuroof
