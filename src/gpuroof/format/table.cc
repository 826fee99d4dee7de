#include "gpuroof/format/table.h"

#include <stdexcept>

#include <fmt/format.h>

namespace gpuroof {

TableColumn TableColumn::Role(ColumnRole value) const {
  TableColumn copy = *this;
  copy.role = value;
  return copy;
}

TableColumn TableColumn::JsonOnly() const {
  TableColumn copy = *this;
  copy.in_text = false;
  copy.in_csv = false;
  return copy;
}

TableColumn TableColumn::HumanOnly() const {
  TableColumn copy = *this;
  copy.in_csv = false;
  copy.in_json = false;
  return copy;
}

TableColumn TableColumn::NotInText() const {
  TableColumn copy = *this;
  copy.in_text = false;
  return copy;
}

TableColumn TableColumn::WithJsonKey(std::string key) const {
  TableColumn copy = *this;
  copy.json_key = std::move(key);
  return copy;
}

TableColumn TableColumn::OmitUnsetInJson() const {
  TableColumn copy = *this;
  copy.json_omit_unset = true;
  return copy;
}

TableColumn MakeColumn(std::string name, std::string title, ColumnUnit unit, ColumnRole role) {
  TableColumn column;
  column.name = std::move(name);
  column.title = std::move(title);
  column.unit = unit;
  column.role = role;
  return column;
}

void Table::AddRow(std::vector<TableCell> row) {
  if (row.size() != columns_.size()) {
    throw std::logic_error(
        fmt::format("table row has {} cells for {} columns", row.size(), columns_.size()));
  }
  rows_.push_back(std::move(row));
}

}  // namespace gpuroof
