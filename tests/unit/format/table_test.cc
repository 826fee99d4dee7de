#include "gpuroof/format/table.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_html.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/format/table_markdown.h"
#include "gpuroof/format/table_text.h"

namespace gpuroof {
namespace {

Table KernelLikeTable() {
  Table table({MakeColumn("kernel", "kernel", ColumnUnit::kName, ColumnRole::kKey),
               MakeColumn("count", "count", ColumnUnit::kCount),
               MakeColumn("total_ns", "total", ColumnUnit::kNs),
               MakeColumn("bytes", "bytes", ColumnUnit::kBytes),
               MakeColumn("share_pct", "share", ColumnUnit::kPercent)});
  table.AddRow({std::string("a"), int64_t{3}, int64_t{128070800}, int64_t{2500}, 12.5});
  table.AddRow({std::string("b"), int64_t{1}, 1500.0, TableCell{}, TableCell{}});
  return table;
}

// Time columns are rescaled once per column to the largest unit its largest value reaches;
// the name column goes last; unset values print "-".
TEST(TableText, RescalesPerColumnAndPutsTheNameLast) {
  EXPECT_EQ(RenderTableText(KernelLikeTable()),
            "  count  total ms  bytes kB  share %  kernel\n"
            "      3   128.071      2.50    12.50  a\n"
            "      1     0.002         -        -  b\n");
}

TEST(TableText, SmallTimesStayInNanoseconds) {
  Table table({MakeColumn("t_ns", "t", ColumnUnit::kNs)});
  table.AddRow({int64_t{999}});
  EXPECT_EQ(RenderTableText(table, {.indent = ""}), "t ns\n 999\n");
}

// One unit per column must not print a small non-zero value as zero: it says how small it is.
TEST(TableText, ANonZeroValueNeverPrintsAsZero) {
  Table table({MakeColumn("t_ns", "t", ColumnUnit::kNs),
               MakeColumn("bytes", "bytes", ColumnUnit::kBytes),
               MakeColumn("share_pct", "share", ColumnUnit::kPercent)});
  table.AddRow({int64_t{17482000}, int64_t{2'000'000'000}, 50.0});
  table.AddRow({int64_t{301}, int64_t{6720}, 0.004});
  table.AddRow({int64_t{0}, int64_t{0}, 0.0});
  EXPECT_EQ(RenderTableText(table, {.indent = ""}),
            "  t ms  bytes GB  share %\n"
            "17.482      2.00    50.00\n"
            "<0.001     <0.01    <0.01\n"
            " 0.000      0.00     0.00\n");
}

// A signature longer than the room left becomes its base name; names that shorten alike are
// numbered, and a line says how many were shortened.
TEST(TableText, LongNamesAreShortenedByTheShortNameRule) {
  Table table({MakeColumn("count", "count", ColumnUnit::kCount),
               MakeColumn("kernel", "kernel", ColumnUnit::kName)});
  std::string long_a = "void at::native::vectorized_elementwise_kernel<4, " +
                       std::string(200, 'x') + ">(int, float)";
  std::string long_b = "void at::native::vectorized_elementwise_kernel<4, " +
                       std::string(200, 'y') + ">(int, float)";
  table.AddRow({int64_t{1}, long_a});
  table.AddRow({int64_t{2}, long_b});
  table.AddRow({int64_t{3}, std::string("short")});
  std::string text = RenderTableText(table);
  EXPECT_EQ(text,
            "  count  kernel\n"
            "      1  vectorized_elementwise_kernel #1\n"
            "      2  vectorized_elementwise_kernel #2\n"
            "      3  short\n"
            "  (2 names shortened to fit 160 columns; --format csv or json has them whole)\n");
}

// Two name columns (gaps' before and after) are numbered together: one full name prints the same
// in both, though the second column alone has no other name that reads like it.
TEST(TableText, NameColumnsAreNumberedTogether) {
  Table table({MakeColumn("count", "count", ColumnUnit::kCount),
               MakeColumn("before", "before", ColumnUnit::kName),
               MakeColumn("after", "after", ColumnUnit::kName)});
  const std::string one = "kernel " + std::string(40, 'k') + "_one";
  const std::string two = "kernel " + std::string(40, 'k') + "_two";
  table.AddRow({int64_t{1}, one, two});
  table.AddRow({int64_t{2}, two, two});
  TextTableOptions options;
  options.max_width = 50;
  options.shorten_name = CutToWidth;
  const std::string cut = "kernel " + std::string(8, 'k') + "… ";
  EXPECT_EQ(RenderTableText(table, options),
            "  count  before               after\n"
            "      1  " +
                cut + "#1  " + cut +
                "#2\n"
                "      2  " +
                cut + "#2  " + cut +
                "#2\n"
                "  (4 names shortened to fit 50 columns; --format csv or json has them whole)\n");
}

TEST(TableText, OtherNamesAreCutWithAnEllipsis) {
  EXPECT_EQ(ShortenNameToFit("## sparse_data_dist ##", 10), "## sparse…");
  EXPECT_EQ(ShortenNameToFit("short", 10), "short");
  EXPECT_EQ(ShortenNameToFit("void ns::scale<float>(float*, int)", 10), "scale");
}

TEST(TableText, EveryLineFitsTheWidth) {
  Table table({MakeColumn("count", "count", ColumnUnit::kCount),
               MakeColumn("kernel", "kernel", ColumnUnit::kName)});
  for (int i = 0; i < 12; ++i)
    table.AddRow({int64_t{i}, std::string(300, static_cast<char>('a' + i))});
  for (size_t width : {40u, 80u, 160u}) {
    std::string text = RenderTableText(table, {.indent = "  ", .max_width = width});
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      std::string line = text.substr(start, end - start);
      if (line.find("shortened") == std::string::npos) {
        EXPECT_LE(DisplayWidth(line), width) << line;
      }
      start = end + 1;
    }
  }
}

// Kernels that share a long prefix stay apart: the end is kept, and equal results are numbered.
TEST(TableText, ElidedLabelsKeepBothEndsAndStayDistinct) {
  std::string prefix = "kernel [void at::native::vectorized_elementwise_kernel<4, ";
  std::vector<std::string> shown =
      ElideLabelsDistinct({prefix + "float, AddFunctor>]", prefix + "double, MulFunctor>]", "short",
                           prefix + "float, ZZZ, AddFunctor>]"},
                          30);
  ASSERT_EQ(shown.size(), 4u);
  EXPECT_EQ(shown[0], "kernel [void at::…AddFunctor>] #1");
  EXPECT_EQ(shown[1], "kernel [void at::…MulFunctor>]");
  EXPECT_EQ(shown[2], "short");
  EXPECT_EQ(shown[3], "kernel [void at::…AddFunctor>] #2");
}

TEST(TableText, WrapLineBreaksAtSpaces) {
  EXPECT_EQ(WrapLine("note: aaa bbb ccc", 9), "note: aaa\n  bbb ccc");
  EXPECT_EQ(WrapLine("short", 9), "short");
  // A number keeps its unit on its line.
  EXPECT_EQ(WrapLine("memset +35847.800 us/step (411.16x)", 20),
            "memset\n  +35847.800 us/step\n  (411.16x)");
  // Review finding F4: a word no line holds (a kernel name in a warning) keeps both ends.
  const std::string wrapped = WrapLine(
      "  warning: kernel 'bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_sm100f' is new", 30);
  EXPECT_EQ(wrapped, "  warning: kernel\n    'bmm_MxE4m3_MxE…s3_sm100f'\n    is new");
  // A word the first line holds is not cut for the continuation lines' indent.
  EXPECT_EQ(WrapLine("aaaaaaaaa b", 10), "aaaaaaaaa\n  b");
  for (size_t start = 0, end = 0; start < wrapped.size(); start = end + 1) {
    end = std::min(wrapped.find('\n', start), wrapped.size());
    EXPECT_LE(DisplayWidth(wrapped.substr(start, end - start)), 30u);
  }
}

// Names that shorten to different texts but read alike once cut for their number are numbered
// on the final text: every printed name stands for one full name (review D9).
TEST(TableText, NumbersAreGivenOnTheFinalShortenedText) {
  Table table({MakeColumn("count", "count", ColumnUnit::kCount),
               MakeColumn("kernel", "kernel", ColumnUnit::kName)});
  const std::vector<std::string> names = {"volta_sgemm_128x64_nt", "volta_sgemm_128x64_nn",
                                          "volta_sgemm_64x32_sliced1x4_tn",
                                          "volta_sgemm_64x32_sliced1x4_nn"};
  for (size_t i = 0; i < names.size(); ++i)
    table.AddRow({static_cast<int64_t>(i), names[i]});
  const std::string text = RenderTableText(table, {.indent = "", .max_width = 23});
  std::map<std::string, std::set<std::string>> full_of;  // printed name -> full names
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);  // header
  for (size_t i = 0; i < names.size() && std::getline(lines, line); ++i) {
    const std::string printed = line.substr(line.find("  ", line.find_first_not_of(' ')) + 2);
    EXPECT_LE(DisplayWidth(printed), 16u) << text;
    full_of[printed].insert(names[i]);
  }
  EXPECT_EQ(full_of.size(), names.size()) << text;
}

// A '>' inside parentheses in template arguments is a comparison: vllm's kernel keeps its own
// base name instead of its return type's (review launches D11).
TEST(TableText, AComparisonInTemplateArgumentsIsNoBracket) {
  EXPECT_EQ(
      ShortenNameToFit("std::enable_if<(((8)>(0)))&&vllm::_typeConvert<c10::BFloat16>::exists, "
                       "void>::type vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>("
                       "c10::BFloat16*, c10::BFloat16*, int, float)",
                       40),
      "fused_add_rms_norm_kernel");
  EXPECT_EQ(ShortenNameToFit("void ns::pick<((2)<(3))>(int)", 10), "pick");
}

// A table whose other columns leave its names no room puts its headers on two lines, so every
// line fits the width (review D11).
TEST(TableText, HeadersTakeTwoLinesWhenTheColumnsAloneAreTooWide) {
  std::vector<TableColumn> columns;
  std::vector<TableCell> row;
  for (int i = 0; i < 12; ++i) {
    columns.push_back(
        MakeColumn(fmt::format("c{}", i), fmt::format("latency median {}", i), ColumnUnit::kCount));
    row.emplace_back(int64_t{i});
  }
  columns.push_back(MakeColumn("kernel", "kernel", ColumnUnit::kName));
  row.emplace_back(std::string(40, 'k'));
  Table table(std::move(columns));
  table.AddRow(std::move(row));
  const std::string text = RenderTableText(table);
  std::istringstream lines(text);
  std::string line;
  std::getline(lines, line);
  EXPECT_NE(line.find("latency"), std::string::npos) << text;
  EXPECT_EQ(line.find("median"), std::string::npos) << text;
  std::getline(lines, line);
  EXPECT_NE(line.find("median 0"), std::string::npos) << text;
  lines.clear();
  lines.str(text);
  while (std::getline(lines, line))
    EXPECT_LE(DisplayWidth(line), 160u) << line;
  EXPECT_NE(text.find(std::string(16, 'k')), std::string::npos) << text;
}

// What Markdown would render as HTML, emphasis or code is escaped, so names read whole
// (review D12).
TEST(ReportDocument, MarkdownEscapesWhatWouldRenderAsMarkup) {
  Table table({MakeColumn("kernel", "kernel", ColumnUnit::kName)});
  table.AddRow({std::string("f<float>(ncclDevComm*, _x_, `y`, a|b, in_word)")});
  EXPECT_EQ(RenderTableMarkdown(table),
            "| kernel |\n"
            "| --- |\n"
            "| f\\<float\\>(ncclDevComm\\*, \\_x\\_, \\`y\\`, a\\|b, in_word) |\n");
}

TEST(TableJson, RowsAreObjectsKeyedByColumnName) {
  Table table({MakeColumn("key", "key", ColumnUnit::kName).WithJsonKey("name"),
               MakeColumn("grid", "grid").JsonOnly().OmitUnsetInJson(),
               MakeColumn("total_ns", "total", ColumnUnit::kNs),
               MakeColumn("shown", "shown").HumanOnly(),
               MakeColumn("flag", "flag", ColumnUnit::kFlag)});
  table.AddRow({std::string("k"), Dim3{1, 2, 3}, int64_t{5}, std::string("x"), true});
  table.AddRow({std::string("l"), TableCell{}, TableCell{}, std::string("y"), false});
  JsonWriter json;
  WriteTableRowsJson(json, table);
  EXPECT_EQ(json.str(),
            "[\n  {\n    \"name\": \"k\",\n    \"grid\": [\n      1,\n      2,\n      3\n    ],\n"
            "    \"total_ns\": 5,\n    \"flag\": true\n  },\n  {\n    \"name\": \"l\",\n"
            "    \"total_ns\": null,\n    \"flag\": false\n  }\n]\n");
}

TEST(ReportDocument, CsvLeadsWithTraceAndDeviceAndKeepsFullPrecision) {
  ReportDocument document;
  document.columns = KernelLikeTable().columns();
  document.trace_count = 2;
  ReportSection first;
  first.trace = "a.sqlite";
  first.device = 0;
  first.table = KernelLikeTable();
  document.sections.push_back(first);
  EXPECT_EQ(RenderDocumentCsv(document),
            "trace,device,kernel,count,total_ns,bytes,share_pct\n"
            "a.sqlite,0,a,3,128070800,2500,12.5\n"
            "a.sqlite,0,b,1,1500,,\n");
}

TEST(ReportDocument, MarkdownTablesAlignNumbersRight) {
  EXPECT_EQ(RenderTableMarkdown(KernelLikeTable()),
            "| kernel | count | total ms | bytes kB | share % |\n"
            "| --- | ---: | ---: | ---: | ---: |\n"
            "| a | 3 | 128.071 | 2.50 | 12.50 |\n"
            "| b | 1 | 0.002 | - | - |\n");
}

// HTML shows the same headers and rescaled cells as text: a chosen view of the columns, in the
// order asked, the first rows only, numbers right-aligned and the heat column shaded.
TEST(TableHtml, AViewOfTheColumnsWithTheTextWritersCells) {
  TableHtmlOptions view;
  view.columns = {"kernel", "total_ns", "share_pct"};
  view.heat_column = "share_pct";
  view.max_rows = 1;
  HtmlWriter html;
  WriteTableHtml(html, KernelLikeTable(), "kernels", view);
  EXPECT_EQ(html.Finish(),
            "<table class=\"kernels\"><thead><tr><th>kernel</th><th>total ms</th><th>share "
            "%</th></tr></thead><tbody><tr><td class=\"name\">a</td><td "
            "class=\"num\">128.071</td><td class=\"num heat\" "
            "style=\"background:rgba(214,39,40,0.11)\">12.50</td></tr></tbody></table>");
  view.columns = {"no_such_column"};
  HtmlWriter other;
  EXPECT_THROW(WriteTableHtml(other, KernelLikeTable(), "kernels", view), std::logic_error);
}

TEST(TableHtml, SetFlagsAreWarningsAndRowsCanBeLeftUnshaded) {
  Table table({MakeColumn("copy", "copy", ColumnUnit::kText, ColumnRole::kKey),
               MakeColumn("duty_pct", "duty", ColumnUnit::kPercent),
               MakeColumn("pageable", "pageable", ColumnUnit::kFlag)});
  table.AddRow({std::string("H2D"), 100.0, true});
  table.AddRow({std::string("any"), 100.0, false});
  TableHtmlOptions view;
  view.heat_column = "duty_pct";
  view.heat_row = [](size_t row) { return row == 0; };
  HtmlWriter html;
  WriteTableHtml(html, table, "copies", view);
  const std::string page = html.Finish();
  EXPECT_NE(page.find("<td class=\"num heat\" style=\"background:rgba(214,39,40,0.85)\">100.00</td>"
                      "<td class=\"warn\">yes</td>"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<td>any</td><td class=\"num\">100.00</td><td>-</td>"), std::string::npos)
      << page;
}

// A document whose text leaves out all-empty value columns (ranges' engine columns) leaves them
// out of its Markdown too: the same columns as the text table. Before, Markdown had every one.
TEST(TableMarkdown, EmptyValueColumnsAreLeftOutAsInTheText) {
  ReportDocument document;
  document.text.hide_empty_columns = true;
  ReportSection section;
  section.heading = "ranges";
  section.table = Table({MakeColumn("name", "range", ColumnUnit::kName, ColumnRole::kKey),
                         MakeColumn("kernel_ns", "kernel", ColumnUnit::kNs),
                         MakeColumn("h2d_ns", "H2D", ColumnUnit::kNs)});
  section.table.AddRow({std::string("step"), int64_t{2000000}, std::monostate{}});
  document.sections.push_back(std::move(section));
  const std::string markdown = RenderDocumentMarkdown(document);
  EXPECT_NE(markdown.find("| range | kernel ms |\n| --- | ---: |\n| step | 2.000 |\n"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("H2D"), std::string::npos) << markdown;
  EXPECT_EQ(RenderDocumentText(document).find("H2D"), std::string::npos);
}

TEST(Table, ARowOfTheWrongSizeIsABug) {
  Table table({MakeColumn("a", "a")});
  EXPECT_THROW(table.AddRow({std::string("x"), std::string("y")}), std::logic_error);
}

}  // namespace
}  // namespace gpuroof
