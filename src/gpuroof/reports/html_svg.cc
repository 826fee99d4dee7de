#include "gpuroof/reports/html_svg.h"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuroof/format/html_writer.h"

namespace gpuroof {

std::string SvgNumber(double value) {
  if (!std::isfinite(value)) return "0";
  std::string text = fmt::format("{:.2f}", value);
  while (text.back() == '0')
    text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

namespace {

// ` class="name"`, or nothing when the class is empty.
std::string ClassAttribute(std::string_view css_class) {
  return css_class.empty() ? "" : fmt::format(" class=\"{}\"", EscapeHtml(css_class));
}

}  // namespace

SvgBuilder::SvgBuilder(double width, double height, std::string_view css_class,
                       std::string_view label) {
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\"{} width=\"{}\" height=\"{}\" viewBox=\"0 0 {} "
      "{}\" role=\"img\" aria-label=\"{}\">",
      ClassAttribute(css_class), SvgNumber(width), SvgNumber(height), SvgNumber(width),
      SvgNumber(height), EscapeHtml(label));
}

void SvgBuilder::Rect(double x, double y, double width, double height, std::string_view css_class,
                      std::string_view title, std::string_view style) {
  out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"{}", SvgNumber(x),
                      SvgNumber(y), SvgNumber(width), SvgNumber(height), ClassAttribute(css_class));
  if (!style.empty()) out_ += fmt::format(" style=\"{}\"", EscapeHtml(style));
  if (title.empty()) {
    out_ += "/>";
  } else {
    out_ += fmt::format("><title>{}</title></rect>", EscapeHtml(title));
  }
}

void SvgBuilder::Line(double x1, double y1, double x2, double y2, std::string_view css_class) {
  out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"{}/>", SvgNumber(x1),
                      SvgNumber(y1), SvgNumber(x2), SvgNumber(y2), ClassAttribute(css_class));
}

void SvgBuilder::Text(double x, double y, std::string_view text, std::string_view css_class,
                      std::string_view anchor) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\"{}", SvgNumber(x), SvgNumber(y),
                      ClassAttribute(css_class));
  if (anchor != "start") out_ += fmt::format(" text-anchor=\"{}\"", EscapeHtml(anchor));
  out_ += fmt::format(">{}</text>", EscapeHtml(text));
}

void SvgBuilder::BeginGroup(std::string_view css_class) {
  out_ += fmt::format("<g{}>", ClassAttribute(css_class));
  ++open_groups_;
}

void SvgBuilder::EndGroup() {
  if (open_groups_ == 0) throw std::logic_error("SVG: EndGroup() without BeginGroup()");
  --open_groups_;
  out_ += "</g>";
}

std::string SvgBuilder::Finish() {
  if (open_groups_ != 0) throw std::logic_error("SVG: a group is never closed");
  out_ += "</svg>";
  return std::move(out_);
}

}  // namespace gpuroof
