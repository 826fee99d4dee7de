#pragma once

#include <string>

#include "gpuroof/format/table.h"

namespace gpuroof {

// A GitHub-flavoured Markdown table: the text writer's headers and rescaled values, numbers
// right-aligned, names whole (Markdown wraps them), '|' escaped.
// `hide_empty_columns`: leave out value columns no row has a value in, as the text table does
// with TextTableOptions::hide_empty_columns.
std::string RenderTableMarkdown(const Table& table, bool hide_empty_columns = false);

}  // namespace gpuroof
