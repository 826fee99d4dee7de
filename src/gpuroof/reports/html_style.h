#pragma once

#include <string_view>

namespace gpuroof {

// The report page's whole style sheet, inlined in its <head> so the file opens from disk with no
// network. Engine colours are classes "e-<engine name>" shared by the bars and the timeline.
std::string_view HtmlStyleSheet();

}  // namespace gpuroof
