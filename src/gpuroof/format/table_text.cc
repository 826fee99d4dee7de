#include "gpuroof/format/table_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "gpuroof/format/table_cells.h"
#include "gpuroof/model/kernel_names.h"

namespace gpuroof {

namespace {

// The first `width` code points of `text`.
std::string PrefixCodePoints(const std::string& text, size_t width) {
  size_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    bool lead = (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80;
    if (lead && seen++ == width) return text.substr(0, i);
  }
  return text;
}

// The columns in printed order: every non-name column as given, then the name columns.
std::vector<size_t> PrintedOrder(const Table& table, const TextTableOptions& options) {
  std::vector<size_t> first;
  std::vector<size_t> names;
  for (size_t c = 0; c < table.columns().size(); ++c) {
    const TableColumn& column = table.columns()[c];
    if (!column.in_text) continue;
    if (options.hide_empty_columns && column.role == ColumnRole::kValue &&
        ColumnIsEmpty(table, c)) {
      continue;
    }
    (column.unit == ColumnUnit::kName && options.names_last ? names : first).push_back(c);
  }
  first.insert(first.end(), names.begin(), names.end());
  return first;
}

// Shortens the name cells of `columns` to `width`; shortened names that would read the same
// as another full name get " #1", " #2"… in order of appearance (row by row, the columns of a
// row left to right), so that each printed name stands for one full name. The columns are
// numbered together: a full name reads the same in every column of the table (gaps' before and
// after). The numbers are given on the final text: a name cut further to make room for its
// number is grouped again with the names it now reads like. Returns how many cells were
// shortened.
size_t ShortenColumns(std::vector<std::vector<std::string>>& cells,
                      const std::vector<size_t>& columns, size_t width,
                      const TextTableOptions& options) {
  std::vector<std::string*> cell;  // the cells in table order
  for (auto& row : cells)
    for (size_t column : columns)
      cell.push_back(&row[column]);
  const size_t rows = cell.size();
  std::vector<std::string> full(rows);
  std::vector<bool> is_long(rows);
  std::vector<size_t> reserve(rows, 0);  // room kept for the number, grown until it fits
  size_t shortened = 0;
  for (size_t r = 0; r < rows; ++r) {
    full[r] = *cell[r];
    is_long[r] = DisplayWidth(full[r]) > width;
    shortened += is_long[r] ? 1 : 0;
  }
  std::vector<std::string> text(rows);
  std::vector<std::string> suffix(rows);
  for (bool changed = true; changed;) {
    changed = false;
    // Printed text -> the distinct full names printed so, in order of appearance.
    std::map<std::string, std::vector<std::string>> readers;
    for (size_t r = 0; r < rows; ++r) {
      const size_t room = width - std::min(width, reserve[r]);
      text[r] = !is_long[r]            ? full[r]
                : options.shorten_name ? options.shorten_name(full[r], room)
                                       : ShortenNameToFit(full[r], room);
      auto& seen = readers[text[r]];
      if (std::find(seen.begin(), seen.end(), full[r]) == seen.end()) seen.push_back(full[r]);
    }
    for (size_t r = 0; r < rows; ++r) {
      suffix[r].clear();
      const auto& seen = readers[text[r]];
      if (!is_long[r] || seen.size() < 2) continue;
      size_t index = std::find(seen.begin(), seen.end(), full[r]) - seen.begin();
      suffix[r] = fmt::format(" #{}", index + 1);
      // The number must fit too: cut the name further (and group again) when it does not.
      if (DisplayWidth(text[r]) + suffix[r].size() > width && reserve[r] < suffix[r].size() &&
          width > suffix[r].size()) {
        reserve[r] = suffix[r].size();
        changed = true;
      }
    }
  }
  for (size_t r = 0; r < rows; ++r) {
    if (is_long[r]) *cell[r] = text[r] + suffix[r];
  }
  return shortened;
}

// The fewest display columns a name column is shortened to.
constexpr size_t kNameFloor = 16;

// Splits a header of several words at the space that makes its longer line shortest: the first
// words go to `top`, the rest stay in `header` (next to the values).
void SplitHeader(std::string& top, std::string& header) {
  size_t best = std::string::npos;
  size_t best_width = DisplayWidth(header);
  for (size_t space = header.find(' '); space != std::string::npos;
       space = header.find(' ', space + 1)) {
    size_t width =
        std::max(DisplayWidth(header.substr(0, space)), DisplayWidth(header.substr(space + 1)));
    if (width < best_width) {
      best = space;
      best_width = width;
    }
  }
  if (best == std::string::npos) return;
  top = header.substr(0, best);
  header = header.substr(best + 1);
}

}  // namespace

size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string WrapLine(const std::string& line, size_t width) {
  if (DisplayWidth(line) <= width) return line;
  size_t indent = line.find_first_not_of(' ');
  if (indent == std::string::npos) return line;
  std::string continuation(indent + 2, ' ');
  std::string out;
  std::string current = line.substr(0, indent);
  bool current_has_word = false;
  size_t pos = indent;
  std::vector<std::string> words;
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string::npos) end = line.size();
    std::string word = line.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    // A number keeps its unit on its line ("+35847.800 us/step", "12 kernels").
    const bool unit = word.size() <= 10 &&
                      (std::isalpha(static_cast<unsigned char>(word[0])) || word[0] == '%') &&
                      word.find_first_of("0123456789") == std::string::npos;
    if (unit && !words.empty() &&
        std::isdigit(static_cast<unsigned char>(words.back().back())) != 0) {
      words.back() += " " + word;
    } else {
      words.push_back(std::move(word));
    }
  }
  bool first_line = true;
  for (std::string& word : words) {
    // A word no line can hold (a long kernel name or path): both its ends kept, as in captions.
    // The room is the first line's when the line is still empty, else a continuation line's.
    const size_t room =
        width - std::min(width, first_line && !current_has_word ? indent : continuation.size());
    if (room > 4 && DisplayWidth(word) > room) word = ElideLabelsDistinct({word}, room).front();
    if (current_has_word && DisplayWidth(current) + 1 + DisplayWidth(word) > width) {
      out += current + "\n";
      current = continuation;
      current_has_word = false;
      first_line = false;
    }
    current += (current_has_word ? " " : "") + word;
    current_has_word = true;
  }
  return out + current;
}

std::string ShortenNameToFit(const std::string& name, size_t width) {
  if (DisplayWidth(name) <= width) return name;
  // Only a C++ signature (parameters, template arguments, namespaces) has a base name; other
  // names (NVTX ranges, copy labels) are cut.
  bool signature =
      name.find_first_of("(<") != std::string::npos || name.find("::") != std::string::npos;
  std::string base = signature ? ShortKernelName(name) : name;
  if (base.empty()) base = name;
  return CutToWidth(base, width);
}

std::string CutToWidth(const std::string& text, size_t width) {
  if (DisplayWidth(text) <= width) return text;
  if (width == 0) return "";
  return PrefixCodePoints(text, width - 1) + "…";
}

std::vector<std::string> ElideLabelsDistinct(const std::vector<std::string>& labels, size_t width) {
  std::vector<std::string> out;
  std::map<std::string, std::vector<std::string>> originals;
  for (const std::string& label : labels) {
    std::string shown = label;
    if (DisplayWidth(label) > width && width > 4) {
      const size_t head = (width - 1) * 3 / 5;
      const size_t tail = width - 1 - head;
      // The last `tail` code points: skip the first total - tail.
      const size_t skip = DisplayWidth(label) - tail;
      size_t i = 0;
      for (size_t seen = 0; i < label.size(); ++i) {
        if ((static_cast<unsigned char>(label[i]) & 0xC0) != 0x80 && seen++ == skip) break;
      }
      shown = PrefixCodePoints(label, head) + "…" + label.substr(i);
    }
    auto& seen = originals[shown];
    if (std::find(seen.begin(), seen.end(), label) == seen.end()) seen.push_back(label);
    out.push_back(shown);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const auto& seen = originals[out[i]];
    if (seen.size() < 2) continue;
    size_t index = std::find(seen.begin(), seen.end(), labels[i]) - seen.begin();
    out[i] += fmt::format(" #{}", index + 1);
  }
  return out;
}

std::string RenderTableText(const Table& table, const TextTableOptions& options) {
  std::vector<size_t> order = PrintedOrder(table, options);
  std::vector<ColumnScale> scales;
  std::vector<std::string> header;
  for (size_t c : order) {
    scales.push_back(PickColumnScale(table, c));
    header.push_back(HumanHeader(table.columns()[c], scales.back()));
  }
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : table.rows()) {
    std::vector<std::string> printed;
    for (size_t i = 0; i < order.size(); ++i)
      printed.push_back(HumanCell(row[order[i]], scales[i]));
    cells.push_back(std::move(printed));
  }
  // A table too wide even with its names shortened as far as they go (16 columns), or too wide
  // with none, puts each header on two lines: the columns narrow to their values.
  std::vector<std::string> header_top(order.size());
  auto column_widths = [&]() {
    std::vector<size_t> widths(order.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) {
      widths[i] = std::max(DisplayWidth(header[i]), DisplayWidth(header_top[i]));
      for (const auto& row : cells)
        widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
    return widths;
  };
  std::vector<size_t> widths = column_widths();
  size_t name_columns = 0;
  auto fixed_width = [&]() {
    size_t fixed = DisplayWidth(options.indent);
    name_columns = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      bool is_name = table.columns()[order[i]].unit == ColumnUnit::kName;
      name_columns += is_name ? 1 : 0;
      fixed += (is_name ? 0 : widths[i]) + (i > 0 ? 2 : 0);
    }
    return fixed;
  };
  size_t fixed = fixed_width();
  size_t names_least = 0;  // what the names take when shortened as far as they are
  for (size_t i = 0; i < order.size(); ++i) {
    if (table.columns()[order[i]].unit == ColumnUnit::kName)
      names_least += std::min(widths[i], kNameFloor);
  }
  if (fixed + names_least > options.max_width) {
    for (size_t i = 0; i < order.size(); ++i)
      SplitHeader(header_top[i], header[i]);
    widths = column_widths();
    fixed = fixed_width();
  }

  // Names get the width the other columns leave (at least 16 columns).
  size_t shortened = 0;
  if (name_columns > 0) {
    size_t left = options.max_width > fixed ? options.max_width - fixed : 0;
    size_t budget = std::max<size_t>(kNameFloor, left / name_columns);
    std::vector<size_t> long_columns;
    for (size_t i = 0; i < order.size(); ++i) {
      if (table.columns()[order[i]].unit != ColumnUnit::kName) continue;
      if (widths[i] > budget) long_columns.push_back(i);
    }
    if (!long_columns.empty()) shortened += ShortenColumns(cells, long_columns, budget, options);
    widths = column_widths();
  }

  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line = options.indent;
    for (size_t i = 0; i < order.size(); ++i) {
      size_t pad = widths[i] - std::min(widths[i], DisplayWidth(row[i]));
      if (i > 0) line += "  ";
      if (IsTextColumn(table.columns()[order[i]])) {
        line += row[i] + std::string(pad, ' ');
      } else {
        line += std::string(pad, ' ') + row[i];
      }
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  };
  if (std::any_of(header_top.begin(), header_top.end(),
                  [](const std::string& top) { return !top.empty(); })) {
    emit(header_top);
  }
  emit(header);
  for (const auto& row : cells)
    emit(row);
  if (shortened > 0) {
    out += fmt::format(
        "{}({} name{} shortened to fit {} columns; {} has {} "
        "whole)\n",
        options.indent, shortened, shortened == 1 ? "" : "s", options.max_width,
        options.whole_names_in, shortened == 1 ? "it" : "them");
  }
  return out;
}

}  // namespace gpuroof
