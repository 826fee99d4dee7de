#pragma once

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/table.h"

namespace gpuroof {

// The table's rows as a JSON array of objects, one key per JSON column (TableColumn::JsonKey),
// values at full precision in base units; unset cells are null, lists are arrays.
void WriteTableRowsJson(JsonWriter& json, const Table& table);

// One row of it (the object only), for reports that nest rows under their own keys.
void WriteTableRowJson(JsonWriter& json, const Table& table, size_t row);

}  // namespace gpuroof
