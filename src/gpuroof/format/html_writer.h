#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuroof {

// Text made safe for HTML and SVG, both as element content and inside a double- or
// single-quoted attribute value: & < > " ' become character references, and control
// characters other than tab, newline and carriage return (which HTML forbids) become U+FFFD.
// Kernel names come from the trace file, so every one of them goes through here.
std::string EscapeHtml(std::string_view text);

// An attribute: name (trusted, from the code) and value (escaped when written). Attributes with
// an empty value are left out, so optional classes and styles need no branches.
using HtmlAttribute = std::pair<std::string_view, std::string_view>;

// Builds markup with every text and attribute value escaped; tags are checked to nest, so a
// page cannot come out with an element left open.
class HtmlWriter {
 public:
  HtmlWriter& Open(std::string_view tag, std::initializer_list<HtmlAttribute> attributes = {});
  // Closes the innermost open element, which must be `tag` (else std::logic_error: a bug).
  HtmlWriter& Close(std::string_view tag);
  HtmlWriter& Text(std::string_view text);
  // Open, text, close.
  HtmlWriter& Element(std::string_view tag, std::string_view text,
                      std::initializer_list<HtmlAttribute> attributes = {});
  // Markup that is already safe (an SvgBuilder's output, a constant).
  HtmlWriter& Raw(std::string_view markup);
  // The markup; throws std::logic_error when an element is still open.
  std::string Finish();

 private:
  std::string out_;
  std::vector<std::string> open_;
};

// One cell of an HTML table: text, and an optional class and inline style (trusted).
struct HtmlCell {
  std::string text;
  std::string css_class;
  std::string style;
};

// <table class="css_class"> with a header row and the rows; cells of numbers should carry the
// class "num" (right-aligned by the page's style sheet).
void WriteHtmlTable(HtmlWriter& html, const std::vector<std::string>& header,
                    const std::vector<std::vector<HtmlCell>>& rows, std::string_view css_class);

}  // namespace gpuroof
