#include "gpuroof/format/html_writer.h"

#include <stdexcept>

namespace gpuroof {

std::string EscapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
            c == '\x7f') {
          out += "\xEF\xBF\xBD";  // U+FFFD: control characters are parse errors in HTML
        } else {
          out += c;
        }
    }
  }
  return out;
}

HtmlWriter& HtmlWriter::Open(std::string_view tag,
                             std::initializer_list<HtmlAttribute> attributes) {
  out_ += '<';
  out_ += tag;
  for (const auto& [name, value] : attributes) {
    if (value.empty()) continue;
    out_ += ' ';
    out_ += name;
    out_ += "=\"";
    out_ += EscapeHtml(value);
    out_ += '"';
  }
  out_ += '>';
  open_.emplace_back(tag);
  return *this;
}

HtmlWriter& HtmlWriter::Close(std::string_view tag) {
  if (open_.empty() || open_.back() != tag) {
    throw std::logic_error("HTML: closing <" + std::string(tag) + "> but <" +
                           (open_.empty() ? std::string("nothing") : open_.back()) + "> is open");
  }
  open_.pop_back();
  out_ += "</";
  out_ += tag;
  out_ += '>';
  return *this;
}

HtmlWriter& HtmlWriter::Text(std::string_view text) {
  out_ += EscapeHtml(text);
  return *this;
}

HtmlWriter& HtmlWriter::Element(std::string_view tag, std::string_view text,
                                std::initializer_list<HtmlAttribute> attributes) {
  return Open(tag, attributes).Text(text).Close(tag);
}

HtmlWriter& HtmlWriter::Raw(std::string_view markup) {
  out_ += markup;
  return *this;
}

std::string HtmlWriter::Finish() {
  if (!open_.empty()) throw std::logic_error("HTML: <" + open_.back() + "> is never closed");
  return std::move(out_);
}

void WriteHtmlTable(HtmlWriter& html, const std::vector<std::string>& header,
                    const std::vector<std::vector<HtmlCell>>& rows, std::string_view css_class) {
  html.Open("table", {{"class", css_class}}).Open("thead").Open("tr");
  for (const std::string& name : header)
    html.Element("th", name);
  html.Close("tr").Close("thead").Open("tbody");
  for (const std::vector<HtmlCell>& row : rows) {
    html.Open("tr");
    for (const HtmlCell& cell : row) {
      html.Element("td", cell.text, {{"class", cell.css_class}, {"style", cell.style}});
    }
    html.Close("tr");
  }
  html.Close("tbody").Close("table");
}

}  // namespace gpuroof
