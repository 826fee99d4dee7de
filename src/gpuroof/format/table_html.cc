#include "gpuroof/format/table_html.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuroof/format/table_cells.h"

namespace gpuroof {

namespace {

std::vector<size_t> ShownColumns(const Table& table, const TableHtmlOptions& options) {
  const std::vector<TableColumn>& columns = table.columns();
  std::vector<size_t> shown;
  if (options.columns.empty()) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].in_text) shown.push_back(c);
    }
    return shown;
  }
  for (const std::string& name : options.columns) {
    auto it = std::find_if(columns.begin(), columns.end(),
                           [&name](const TableColumn& column) { return column.name == name; });
    if (it == columns.end()) throw std::logic_error("no table column named " + name);
    shown.push_back(static_cast<size_t>(it - columns.begin()));
  }
  return shown;
}

std::string CellClass(const TableColumn& column, const TableCell& cell) {
  if (column.unit == ColumnUnit::kName) return "name";
  if (column.unit == ColumnUnit::kFlag) {
    const bool* set = std::get_if<bool>(&cell);
    return set != nullptr && *set ? "warn" : "";
  }
  return IsTextColumn(column) ? "" : "num";
}

}  // namespace

std::string HeatStyle(double fraction) {
  return fmt::format("background:rgba(214,39,40,{:.2f})", std::clamp(fraction, 0.0, 1.0) * 0.85);
}

void WriteTableHtml(HtmlWriter& html, const Table& table, std::string_view css_class,
                    const TableHtmlOptions& options) {
  const std::vector<size_t> shown = ShownColumns(table, options);
  std::vector<ColumnScale> scales;
  html.Open("table", {{"class", css_class}}).Open("thead").Open("tr");
  for (size_t c : shown) {
    scales.push_back(PickColumnScale(table, c));
    html.Element("th", HumanHeader(table.columns()[c], scales.back()));
  }
  html.Close("tr").Close("thead").Open("tbody");
  const size_t rows = std::min(options.max_rows, table.rows().size());
  for (size_t r = 0; r < rows; ++r) {
    const std::vector<TableCell>& row = table.rows()[r];
    html.Open("tr");
    for (size_t i = 0; i < shown.size(); ++i) {
      const TableColumn& column = table.columns()[shown[i]];
      const TableCell& cell = row[shown[i]];
      std::string css = CellClass(column, cell);
      std::string style;
      if (column.name == options.heat_column && (!options.heat_row || options.heat_row(r))) {
        const double* percent = std::get_if<double>(&cell);
        style = HeatStyle(percent != nullptr ? *percent / 100.0 : 0.0);
        css += " heat";
      }
      html.Element("td", HumanCell(cell, scales[i]), {{"class", css}, {"style", style}});
    }
    html.Close("tr");
  }
  html.Close("tbody").Close("table");
}

}  // namespace gpuroof
