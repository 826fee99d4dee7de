#include "gpuroof/format/table_json.h"

namespace gpuroof {

namespace {

void WriteCell(JsonWriter& json, const TableCell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) {
    json.Null();
  } else if (const auto* i = std::get_if<int64_t>(&cell)) {
    json.Int(*i);
  } else if (const auto* d = std::get_if<double>(&cell)) {
    json.Double(*d);
  } else if (const auto* text = std::get_if<std::string>(&cell)) {
    json.String(*text);
  } else if (const auto* flag = std::get_if<bool>(&cell)) {
    json.Bool(*flag);
  } else {
    json.BeginArray();
    for (int64_t v : std::get<Dim3>(cell))
      json.Int(v);
    json.EndArray();
  }
}

}  // namespace

void WriteTableRowJson(JsonWriter& json, const Table& table, size_t row) {
  json.BeginObject();
  const auto& cells = table.rows().at(row);
  for (size_t c = 0; c < table.columns().size(); ++c) {
    const TableColumn& column = table.columns()[c];
    if (!column.in_json) continue;
    if (column.json_omit_unset && std::holds_alternative<std::monostate>(cells[c])) continue;
    json.Key(column.JsonKey());
    WriteCell(json, cells[c]);
  }
  json.EndObject();
}

void WriteTableRowsJson(JsonWriter& json, const Table& table) {
  json.BeginArray();
  for (size_t r = 0; r < table.rows().size(); ++r)
    WriteTableRowJson(json, table, r);
  json.EndArray();
}

}  // namespace gpuroof
