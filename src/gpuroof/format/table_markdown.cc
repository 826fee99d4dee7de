#include "gpuroof/format/table_markdown.h"

#include "gpuroof/format/table_cells.h"

namespace gpuroof {

namespace {

std::string Escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

std::string RenderTableMarkdown(const Table& table) {
  std::vector<size_t> order;
  for (size_t c = 0; c < table.columns().size(); ++c) {
    if (table.columns()[c].in_text) order.push_back(c);
  }
  std::vector<ColumnScale> scales;
  std::string header = "|";
  std::string rule = "|";
  for (size_t c : order) {
    scales.push_back(PickColumnScale(table, c));
    header += " " + Escape(HumanHeader(table.columns()[c], scales.back())) + " |";
    rule += IsTextColumn(table.columns()[c]) ? " --- |" : " ---: |";
  }
  std::string out = header + "\n" + rule + "\n";
  for (const auto& row : table.rows()) {
    out += "|";
    for (size_t i = 0; i < order.size(); ++i)
      out += " " + Escape(HumanCell(row[order[i]], scales[i])) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace gpuroof
