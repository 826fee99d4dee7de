#include "gpuroof/format/table_markdown.h"

#include <cctype>
#include <string_view>

#include "gpuroof/format/table_cells.h"

namespace gpuroof {

namespace {

bool IsAlnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

std::string EscapeMarkdown(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool in_word =
        i > 0 && i + 1 < text.size() && IsAlnum(text[i - 1]) && IsAlnum(text[i + 1]);
    if (std::string_view("|\\<>*~`[]").find(c) != std::string_view::npos || (c == '_' && !in_word))
      out += '\\';
    out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out;
}

std::string RenderTableMarkdown(const Table& table, bool hide_empty_columns) {
  std::vector<size_t> order;
  for (size_t c = 0; c < table.columns().size(); ++c) {
    if (!table.columns()[c].in_text) continue;
    if (hide_empty_columns && table.columns()[c].role == ColumnRole::kValue &&
        ColumnIsEmpty(table, c)) {
      continue;
    }
    order.push_back(c);
  }
  std::vector<ColumnScale> scales;
  std::string header = "|";
  std::string rule = "|";
  for (size_t c : order) {
    scales.push_back(PickColumnScale(table, c));
    header += " " + EscapeMarkdown(HumanHeader(table.columns()[c], scales.back())) + " |";
    rule += IsTextColumn(table.columns()[c]) ? " --- |" : " ---: |";
  }
  std::string out = header + "\n" + rule + "\n";
  for (const auto& row : table.rows()) {
    out += "|";
    for (size_t i = 0; i < order.size(); ++i)
      out += " " + EscapeMarkdown(HumanCell(row[order[i]], scales[i])) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace gpuroof
