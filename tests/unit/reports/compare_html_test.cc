// `compare --html`: escaping of names taken from traces, and the ratio chart's geometry worked out
// from the layout constants (label column 330, plot 420 wide, so 0 % at x = 540).
#include <string>

#include <gtest/gtest.h>

#include "gpuroof/reports/compare_report.h"

namespace gpuroof {
namespace {

MetricComparison Kernel(std::string name, double ratio, double low, double high, Verdict verdict,
                        bool gated) {
  MetricComparison m;
  m.id = "kernel:" + name;
  m.level = MetricLevel::kKernel;
  m.name = std::move(name);
  m.gated = gated;
  m.baseline = SideSummary{200, 1000.0, 0.01};
  m.current = SideSummary{200, 1000.0 * ratio, 0.01};
  m.ratio = ratio;
  m.ci_low = low;
  m.ci_high = high;
  m.method = "hodges-lehmann-log/moses";
  m.floor = 0.05;
  m.verdict = verdict;
  return m;
}

CompareReport TwoKernels() {
  CompareReport report;
  report.tool_version = "test";
  ProfileSummary side;
  side.path = "base<&>.sqlite";
  side.device_model = "GPU \"X\"";
  report.baseline = {side};
  side.path = "cur.sqlite";
  report.current = {side};
  report.result.metrics = {
      Kernel("gemm<float, 'tile'> & co", 1.10, 1.08, 1.12, Verdict::kRegressed, true),
      Kernel("small", 0.99, 0.97, 1.01, Verdict::kNoChange, false)};
  report.result.exit_code = 1;
  report.result.verdict = "regression";
  report.result.summary.regressed = 1;
  report.result.summary.failed = 1;
  report.result.summary.gated = 1;
  return report;
}

TEST(CompareHtmlTest, EscapesNamesFromTheTrace) {
  const std::string page = RenderCompareHtml(TwoKernels());
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("gemm<float"), std::string::npos);
  EXPECT_NE(page.find("kernel gemm&lt;float, &#39;tile&#39;&gt; &amp; co"), std::string::npos)
      << page;
  EXPECT_NE(page.find("base&lt;&amp;&gt;.sqlite"), std::string::npos);
  EXPECT_NE(page.find("GPU &quot;X&quot;"), std::string::npos);
  EXPECT_NE(page.find("<p class=\"status fail\">REGRESSION (1 gated metric) -&gt; exit 1</p>"),
            std::string::npos)
      << page;
}

// Green is kept for a plain PASS: a pass with warnings is amber and says why.
TEST(CompareHtmlTest, PassWithWarningsIsNotGreen) {
  CompareReport report = TwoKernels();
  report.result.exit_code = 0;
  report.result.verdict = "pass-with-warnings";
  report.result.verdict_reasons = {"iteration time LOW-N (+28.9% over threshold), 4 < 6 steps"};
  const std::string page = RenderCompareHtml(report);
  EXPECT_EQ(page.find("status pass"), std::string::npos) << page;
  EXPECT_NE(page.find("<p class=\"status warn\">PASS WITH WARNINGS: iteration time LOW-N "
                      "(+28.9% over threshold), 4 &lt; 6 steps -&gt; exit 0</p>"),
            std::string::npos)
      << page;
}

TEST(CompareHtmlTest, RatioChartPlacesEstimatesAndIntervals) {
  const std::string page = RenderCompareHtml(TwoKernels());
  // Largest extent 12 % -> half-range 20 %: 210 px per 20 %, so +10 % at 540 + 105 = 645, the
  // interval 8..12 % from 624 to 666, the 5 % floor band from 487.5 to 592.5 (105 wide).
  EXPECT_NE(page.find("<text x=\"645\" y=\"16\" class=\"tick\" text-anchor=\"middle\">+10%</text>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<line x1=\"624\" y1=\"33\" x2=\"666\" y2=\"33\""), std::string::npos)
      << page;
  EXPECT_NE(page.find("<rect x=\"641.5\" y=\"29.5\" width=\"7\" height=\"7\""), std::string::npos)
      << page;
  EXPECT_NE(page.find("<rect x=\"487.5\" y=\"26\" width=\"105\" height=\"14\""), std::string::npos)
      << page;
  // The ungated kernel's row: -1 % at 540 - 10.5 = 529.5.
  EXPECT_NE(page.find("<rect x=\"526\" y=\"47.5\" width=\"7\" height=\"7\""), std::string::npos)
      << page;
}

// The text table's delta heading names 1 - alpha; gated kernels of a family of two are at
// 1 - alpha/2, and a line under the table says so (as history mode says its band is not an
// interval around the estimate).
// The Markdown headline and warnings (a pull-request comment) escape what GitHub would read as
// markup, as the table's cells do: a kernel's "<float>" would vanish as an HTML tag.
TEST(CompareMarkdownTest, HeadlineAndWarningsEscapeMarkup) {
  CompareReport report = TwoKernels();
  report.result.exit_code = 0;
  report.result.verdict = "pass-with-warnings";
  report.result.verdict_reasons = {"kernel gemm<float> LOW-N, 4 < 6 launches", "run_*_a.sqlite"};
  report.result.warnings = {"kernel gemm<float>: warm-up dropped"};
  const std::string md = RenderCompareMarkdown(report);
  EXPECT_NE(md.find("PASS WITH WARNINGS: kernel gemm\\<float\\> LOW-N, 4 \\< 6 launches; "
                    "run\\_\\*\\_a.sqlite"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("⚠️ kernel gemm\\<float\\>: warm-up dropped"), std::string::npos) << md;
  EXPECT_EQ(md.find("gemm<float>"), std::string::npos) << md;
}

TEST(CompareTextTest, SaysWhereIntervalsDifferFromTheHeading) {
  CompareReport report = TwoKernels();
  report.result.settings.alpha = 0.01;
  for (MetricComparison& m : report.result.metrics)
    m.ci_level = 0.99;
  EXPECT_EQ(RenderCompareText(report).find("gated kernels: intervals at"), std::string::npos);
  EXPECT_EQ(RenderCompareText(report).find("history rows:"), std::string::npos);
  report.result.metrics[1].gated = true;
  for (MetricComparison& m : report.result.metrics)
    m.ci_level = 0.995;
  const std::string text = RenderCompareText(report);
  EXPECT_NE(text.find("gated kernels: intervals at 99.5% (Bonferroni over 2 gated kernels), p "
                      "Holm-adjusted"),
            std::string::npos)
      << text;
  report.result.mode = CompareMode::kHistory;
  EXPECT_NE(RenderCompareText(report).find("history rows: [low, high] is the band"),
            std::string::npos);
}

// F7: history mode says how many lines were used and left out (and why), and calls the bracket
// a band, not an interval or CI, in every output.
TEST(CompareTextTest, HistoryLabelsSayRunsUsedAndBand) {
  CompareReport report = TwoKernels();
  report.baseline.clear();
  report.history_source = "h.jsonl";
  report.history_entries = 10;
  report.result.mode = CompareMode::kHistory;
  report.result.settings.alpha = 0.01;
  report.result.history_entries = 10;
  report.result.history_used = 7;
  report.result.history_left_out = {"3 recorded with --iteration-range fwd"};
  const std::string text = RenderCompareText(report);
  EXPECT_NE(text.find("baseline: history h.jsonl (7 runs used; 3 left out: 3 recorded with "
                      "--iteration-range fwd)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("history rows: the interval"), std::string::npos) << text;
  // The band is 99 % one-sided each way: it holds 98 % of unchanged runs, and says so.
  EXPECT_NE(text.find("delta (98% band)"), std::string::npos) << text;
  EXPECT_EQ(text.find("99% band"), std::string::npos) << text;
  EXPECT_NE(text.find("run (98%: 99% one-sided each way)"), std::string::npos) << text;
  const std::string json = RenderCompareJson(report);
  EXPECT_NE(json.find("\"entries\": 10"), std::string::npos) << json;
  EXPECT_NE(json.find("\"used\": 7"), std::string::npos) << json;
  EXPECT_NE(json.find("\"left_out\": 3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"3 recorded with --iteration-range fwd\""), std::string::npos) << json;
  const std::string md = RenderCompareMarkdown(report);
  // The Markdown heading gives the band's level as the text and HTML do.
  EXPECT_NE(md.find("Δ (98% band)"), std::string::npos) << md;
  EXPECT_EQ(md.find("Δ (band)"), std::string::npos) << md;
  EXPECT_EQ(md.find("CI)"), std::string::npos) << md;
  EXPECT_NE(md.find("history: 7 runs used; 3 left out"), std::string::npos) << md;
  EXPECT_EQ(md.find("0 baseline"), std::string::npos) << md;
  const std::string page = RenderCompareHtml(report);
  // The band is 99 % one-sided each way: it holds 98 % of unchanged runs.
  EXPECT_NE(page.find("delta (98% band)"), std::string::npos) << page;
  EXPECT_EQ(page.find("99% band"), std::string::npos) << page;
  EXPECT_NE(page.find("(98%: 99% one-sided each way)"), std::string::npos) << page;
  EXPECT_EQ(page.find("% interval"), std::string::npos) << page;
  EXPECT_EQ(page.find("CI)"), std::string::npos) << page;
  EXPECT_NE(page.find("history: 7 runs used; 3 left out"), std::string::npos) << page;
  report.result.history_used = 10;
  report.result.history_left_out.clear();
  EXPECT_NE(RenderCompareText(report).find("(10 runs used, none left out)"), std::string::npos);
}

}  // namespace
}  // namespace gpuroof
