#include "gpuroof/format/table_text.h"

#include <algorithm>
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
    (column.unit == ColumnUnit::kName ? names : first).push_back(c);
  }
  first.insert(first.end(), names.begin(), names.end());
  return first;
}

// Shortens the name cells of one column to `width`; shortened names that would read the same
// for different full names get " #1", " #2"… in order of appearance. Returns how many cells
// were shortened.
size_t ShortenColumn(std::vector<std::vector<std::string>>& cells, size_t column, size_t width) {
  size_t shortened = 0;
  std::map<std::string, std::vector<std::string>> originals;  // shortened -> distinct full names
  std::vector<std::string> full(cells.size());
  for (size_t r = 0; r < cells.size(); ++r) {
    full[r] = cells[r][column];
    if (DisplayWidth(full[r]) <= width) continue;
    cells[r][column] = ShortenNameToFit(full[r], width);
    ++shortened;
    auto& seen = originals[cells[r][column]];
    if (std::find(seen.begin(), seen.end(), full[r]) == seen.end()) seen.push_back(full[r]);
  }
  for (size_t r = 0; r < cells.size(); ++r) {
    auto it = originals.find(cells[r][column]);
    if (it == originals.end() || it->second.size() < 2 || cells[r][column] == full[r]) continue;
    size_t index = std::find(it->second.begin(), it->second.end(), full[r]) - it->second.begin();
    std::string suffix = fmt::format(" #{}", index + 1);
    // The number must fit too: cut the shortened name further when it would not.
    std::string name = cells[r][column];
    size_t room = width > suffix.size() ? width - suffix.size() : 1;
    if (DisplayWidth(name) > room) name = PrefixCodePoints(name, room > 1 ? room - 1 : 0) + "…";
    cells[r][column] = name + suffix;
  }
  return shortened;
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
  while (pos < line.size()) {
    size_t end = line.find(' ', pos);
    if (end == std::string::npos) end = line.size();
    std::string word = line.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (current_has_word && DisplayWidth(current) + 1 + DisplayWidth(word) > width) {
      out += current + "\n";
      current = continuation;
      current_has_word = false;
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
  if (DisplayWidth(base) <= width) return base;
  if (width == 0) return "";
  return PrefixCodePoints(base, width - 1) + "…";
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
  std::vector<size_t> widths(order.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) {
    widths[i] = DisplayWidth(header[i]);
    for (const auto& row : cells)
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }

  // Names get the width the other columns leave (at least 16 columns).
  size_t shortened = 0;
  size_t fixed = DisplayWidth(options.indent);
  size_t name_columns = 0;
  for (size_t i = 0; i < order.size(); ++i) {
    bool is_name = table.columns()[order[i]].unit == ColumnUnit::kName;
    name_columns += is_name ? 1 : 0;
    fixed += (is_name ? 0 : widths[i]) + (i > 0 ? 2 : 0);
  }
  if (name_columns > 0) {
    size_t left = options.max_width > fixed ? options.max_width - fixed : 0;
    size_t budget = std::max<size_t>(16, left / name_columns);
    for (size_t i = 0; i < order.size(); ++i) {
      if (table.columns()[order[i]].unit != ColumnUnit::kName) continue;
      if (widths[i] <= budget) continue;
      shortened += ShortenColumn(cells, i, budget);
      widths[i] = DisplayWidth(header[i]);
      for (const auto& row : cells)
        widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
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
  emit(header);
  for (const auto& row : cells)
    emit(row);
  if (shortened > 0) {
    out += fmt::format(
        "{}({} name{} shortened to fit {} columns; --format csv or json has {} "
        "whole)\n",
        options.indent, shortened, shortened == 1 ? "" : "s", options.max_width,
        shortened == 1 ? "it" : "them");
  }
  return out;
}

}  // namespace gpuroof
