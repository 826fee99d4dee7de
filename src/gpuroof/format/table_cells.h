#pragma once

#include <string>

#include "gpuroof/format/table.h"

namespace gpuroof {

// How one column of a table reads for humans (text and Markdown): the unit its values are
// rescaled to, picked once per column from its largest value (docs/formats.md, "Tables").
struct ColumnScale {
  std::string unit;      // "ms", "MB", "%", "GB/s"; empty for counts, ratios, texts and names
  double divisor = 1.0;  // base-unit value / divisor = printed value
  int decimals = 0;
};

// The scale of `table`'s column `column`: ns -> ns/us/ms/s, bytes -> B/kB/MB/GB (powers of
// 1000), the largest unit in which the column's largest magnitude is at least 1.
ColumnScale PickColumnScale(const Table& table, size_t column);

// The header a human sees: the title and the unit ("total ms", "sum %"); a title starting with
// '/' follows the unit ("us/frame").
std::string HumanHeader(const TableColumn& column, const ColumnScale& scale);

// A cell for humans: rescaled, rounded to the scale's decimals; unset cells are "-"; a non-zero
// value that would round to zero is "<0.001" (the smallest step of its decimals), never "0.000".
std::string HumanCell(const TableCell& cell, const ColumnScale& scale);

// A cell for CSV and machines: full precision, base units, unset cells empty, lists "a,b,c".
std::string PreciseCell(const TableCell& cell);

// Whether the column is read as text (left-aligned) rather than numbers (right-aligned).
bool IsTextColumn(const TableColumn& column);

// Whether every row of the column is unset (text writers may leave such a column out).
bool ColumnIsEmpty(const Table& table, size_t column);

}  // namespace gpuroof
