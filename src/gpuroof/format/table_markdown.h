#pragma once

#include <string>

#include "gpuroof/format/table.h"

namespace gpuroof {

// A GitHub-flavoured Markdown table: the text writer's headers and rescaled values, numbers
// right-aligned, names whole (Markdown wraps them), '|' escaped.
// `hide_empty_columns`: leave out value columns no row has a value in, as the text table does
// with TextTableOptions::hide_empty_columns.
std::string RenderTableMarkdown(const Table& table, bool hide_empty_columns = false);

// `text` as GitHub-flavoured Markdown reads it back whole, in a table cell or a line of prose:
// '|', and what would otherwise render as HTML ("<float>"), emphasis ('*', '~', and '_' except
// inside a word), code ('`') or a link ('[', ']') are backslash-escaped; a line break (CR or LF)
// becomes a space.
std::string EscapeMarkdown(const std::string& text);

}  // namespace gpuroof
