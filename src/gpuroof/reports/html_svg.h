#pragma once

#include <string>
#include <string_view>

namespace gpuroof {

// A coordinate or length for SVG: at most two decimals, trailing zeros dropped ("120", "60.5",
// "3.14"), so the geometry is deterministic for golden files and small for big pages.
std::string SvgNumber(double value);

// Builds one inline <svg> element in user units (1 unit = 1 CSS pixel). Colours and fonts come
// from the page's style sheet through the classes given here; every text is escaped.
class SvgBuilder {
 public:
  // `css_class` names the figure for the style sheet; `label` is its accessible name.
  SvgBuilder(double width, double height, std::string_view css_class, std::string_view label);

  // A rectangle; a non-empty `title` becomes its hover tooltip (an SVG <title>, no script).
  void Rect(double x, double y, double width, double height, std::string_view css_class,
            std::string_view title = {}, std::string_view style = {});
  void Line(double x1, double y1, double x2, double y2, std::string_view css_class);
  // `anchor`: "start", "middle" or "end" (text-anchor).
  void Text(double x, double y, std::string_view text, std::string_view css_class,
            std::string_view anchor = "start");
  // Opens and closes a group (<g>), e.g. for one set of bars.
  void BeginGroup(std::string_view css_class);
  void EndGroup();

  // The finished <svg>…</svg> element.
  std::string Finish();

 private:
  std::string out_;
  int open_groups_ = 0;
};

}  // namespace gpuroof
