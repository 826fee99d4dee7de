#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gpuroof/format/table.h"

namespace gpuroof {

struct TextTableOptions {
  std::string indent = "  ";
  size_t max_width = 160;  // names are shortened so a line fits (docs/formats.md, "Tables")
  bool hide_empty_columns = false;  // leave out value columns no row has a value in
  bool names_last = true;  // name columns are printed after the others (false: where given)
  // How a name longer than its column's width is shortened; empty: ShortenNameToFit. A table
  // whose names end in what tells rows apart (compare's launch shape, "(report)") keeps that end.
  std::function<std::string(const std::string&, size_t)> shorten_name = nullptr;
  // Where the names are whole, for the line under a table that shortened some.
  std::string whole_names_in = "--format csv or json";
};

// An aligned text table: numbers right, texts left, name columns last, values rescaled per
// column (ColumnScale). Names longer than the width left to them are shortened by
// ShortenNameToFit(); a line under the table then says how many were.
std::string RenderTableText(const Table& table, const TextTableOptions& options = {});

// The rule text tables shorten a name by, when it is longer than `width` display columns: a C++
// signature (it has parameters, template arguments or namespaces) becomes its base name
// (ShortKernelName: no return type, namespaces, template arguments or parameters — the rule
// nsys and gpuroof record use for shortName); a name still too long keeps its first width - 1
// characters and "…". Different names that shorten alike get " #1", " #2"… in table order.
std::string ShortenNameToFit(const std::string& name, size_t width);

// `text` cut to its first width - 1 display columns and "…" when longer than `width`.
std::string CutToWidth(const std::string& text, size_t width);

// Labels cut to `width` display columns keeping both ends ("kernel [void at::na…int, float)]"),
// for one-line captions where a label's end tells it apart; labels that still read alike for
// different texts get " #1", " #2"… in order.
std::vector<std::string> ElideLabelsDistinct(const std::vector<std::string>& labels, size_t width);

// `line` broken at spaces into lines of at most `width` display columns, the continuation lines
// indented by two spaces more than the first; a word longer than a continuation line keeps its
// start and end with "…" between (ElideLabelsDistinct).
std::string WrapLine(const std::string& line, size_t width);

// Display width of UTF-8 text: its code points.
size_t DisplayWidth(const std::string& text);

}  // namespace gpuroof
