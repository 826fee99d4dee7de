#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/format/html_writer.h"
#include "gpuroof/format/table.h"

namespace gpuroof {

struct TableHtmlOptions {
  // The columns to show, by name, in this order (a page shows a view of the command's table);
  // empty: every column text shows. A name the table lacks is a bug (std::logic_error).
  std::vector<std::string> columns;
  // A percent column whose cells are shaded by their value (0..100 %), "" for none.
  std::string heat_column;
  std::function<bool(size_t row)> heat_row;              // which rows are shaded; empty: all
  size_t max_rows = std::numeric_limits<size_t>::max();  // the first rows only
};

// The HTML form of a neutral table: the same headers and rescaled cells as the text writer
// (HumanHeader, HumanCell), numbers right-aligned (class "num"), names in class "name", flags that
// are set in class "warn" (a flag column says something is wrong: pageable memory).
void WriteTableHtml(HtmlWriter& html, const Table& table, std::string_view css_class,
                    const TableHtmlOptions& options = {});

// The inline style of a heat cell: red whose strength is `fraction` (0..1) of the strongest.
std::string HeatStyle(double fraction);

}  // namespace gpuroof
