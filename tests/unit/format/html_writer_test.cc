#include "gpuroof/format/html_writer.h"

#include <stdexcept>

#include <gtest/gtest.h>

#include "gpuroof/reports/html_svg.h"

namespace gpuroof {
namespace {

TEST(EscapeHtml, EscapesTheFiveSpecialCharacters) {
  EXPECT_EQ(EscapeHtml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  // An already escaped text is escaped again: names are data, never markup.
  EXPECT_EQ(EscapeHtml("&lt;"), "&amp;lt;");
  EXPECT_EQ(EscapeHtml("void k<float>(int) [with T = \"x\"]"),
            "void k&lt;float&gt;(int) [with T = &quot;x&quot;]");
}

TEST(EscapeHtml, KeepsUtf8AndWhitespaceButReplacesControlCharacters) {
  EXPECT_EQ(EscapeHtml("µs\tgrün\n"), "µs\tgrün\n");
  EXPECT_EQ(EscapeHtml(std::string("a\0b", 3)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(EscapeHtml("a\x1b[0mb\x7f"), "a\xEF\xBF\xBD[0mb\xEF\xBF\xBD");
}

TEST(HtmlWriter, EscapesTextAndAttributeValuesAndDropsEmptyAttributes) {
  HtmlWriter html;
  html.Open("td", {{"title", "x\" onmouseover=\"alert(1)"}, {"class", ""}})
      .Text("<script>")
      .Close("td");
  EXPECT_EQ(html.Finish(), "<td title=\"x&quot; onmouseover=&quot;alert(1)\">&lt;script&gt;</td>");
}

TEST(HtmlWriter, RefusesMismatchedOrUnclosedElements) {
  HtmlWriter mismatched;
  mismatched.Open("table").Open("tr");
  EXPECT_THROW(mismatched.Close("table"), std::logic_error);
  HtmlWriter unclosed;
  unclosed.Open("p");
  EXPECT_THROW(unclosed.Finish(), std::logic_error);
}

TEST(HtmlTable, WritesHeaderAndEscapedCells) {
  HtmlWriter html;
  WriteHtmlTable(html, {"kernel", "n"}, {{{"a<b>", "name", ""}, {"3", "num", "color:red"}}},
                 "kernels");
  EXPECT_EQ(html.Finish(),
            "<table class=\"kernels\"><thead><tr><th>kernel</th><th>n</th></tr></thead><tbody>"
            "<tr><td class=\"name\">a&lt;b&gt;</td><td class=\"num\" style=\"color:red\">3</td>"
            "</tr></tbody></table>");
}

TEST(SvgNumber, AtMostTwoDecimalsWithoutTrailingZeros) {
  EXPECT_EQ(SvgNumber(120), "120");
  EXPECT_EQ(SvgNumber(60.5), "60.5");
  EXPECT_EQ(SvgNumber(1.0 / 3.0), "0.33");
  EXPECT_EQ(SvgNumber(-0.001), "0");
  EXPECT_EQ(SvgNumber(2.999), "3");
}

TEST(SvgBuilder, EscapesTextAndTitles) {
  SvgBuilder svg(10, 20, "fig", "a \"label\"");
  svg.Rect(1, 2, 3, 4, "bar", "k<T>&");
  svg.Text(5, 6, "x<y", "", "middle");
  EXPECT_EQ(svg.Finish(),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fig\" width=\"10\" height=\"20\" "
            "viewBox=\"0 0 10 20\" role=\"img\" aria-label=\"a &quot;label&quot;\">"
            "<rect x=\"1\" y=\"2\" width=\"3\" height=\"4\" class=\"bar\"><title>k&lt;T&gt;&amp;"
            "</title></rect><text x=\"5\" y=\"6\" text-anchor=\"middle\">x&lt;y</text></svg>");
}

}  // namespace
}  // namespace gpuroof
