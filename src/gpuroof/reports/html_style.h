#pragma once

#include <string>
#include <string_view>

#include "gpuroof/format/html_writer.h"

namespace gpuroof {

// The report page's whole style sheet, inlined in its <head> so the file opens from disk with no
// network. Engine colours are classes "e-<engine name>" shared by the bars and the timeline.
std::string_view HtmlStyleSheet();

// Opens a page: doctype, <html>, a <head> with `title` and the style sheet, then <body>.
void BeginHtmlPage(HtmlWriter& html, std::string_view title);
// Closes <body> and <html>; the finished page, ending in a newline.
std::string EndHtmlPage(HtmlWriter& html);

}  // namespace gpuroof
