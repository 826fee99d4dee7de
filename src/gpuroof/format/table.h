#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace gpuroof {

// The neutral table every report is turned into (docs/formats.md, "Tables"): typed columns with
// a unit, rendered by one writer per format. Values are kept in base units (ns, bytes) at full
// precision; only the text and Markdown writers rescale and round.

// What a column's values measure. It picks the text unit (rescaled per column: ns/us/ms/s,
// B/kB/MB/GB) and the decimals.
enum class ColumnUnit {
  kText,     // a label ("H2D pageable->device"), left-aligned
  kName,     // a long name (kernel, range, op): printed last in text, shortened to fit
  kCount,    // a whole number
  kNs,       // a duration or time in ns
  kBytes,    // bytes
  kPercent,  // 0..100
  kRatio,    // a plain ratio (overlap factor)
  kGbps,     // GB/s (1e9 bytes per second)
  kFlag,     // yes or no
  kFigure,   // a value already written for people with its unit ("+1.2% [0.8%, 1.6%]", "12.3
             // ms ± 0.4"): right-aligned in text like a number, never rescaled
};

// What a column is to the rows: a key identifies the row, a value is measured, a label says
// something about the row (a flag, a class).
enum class ColumnRole { kKey, kValue, kLabel };

struct TableColumn {
  std::string name;   // CSV header and JSON key: stable, snake_case, unit in the name ("total_ns")
  std::string title;  // text/Markdown header without the unit ("total"): the writer adds it
  ColumnUnit unit = ColumnUnit::kText;
  ColumnRole role = ColumnRole::kValue;
  // Where the column appears: the full name or raw id columns are for CSV/JSON only, a
  // human-only column (a shortened label) for text/Markdown only.
  bool in_text = true;
  bool in_csv = true;
  bool in_json = true;
  std::string json_key;  // the JSON schema's key when it differs from `name` (compatibility)
  bool json_omit_unset = false;  // an unset cell leaves the key out instead of writing null

  const std::string& JsonKey() const { return json_key.empty() ? name : json_key; }

  // Copies with one property changed, for column lists that read as a table of their own.
  TableColumn Role(ColumnRole value) const;
  TableColumn JsonOnly() const;   // not in text or CSV (a full name, a launch shape)
  TableColumn HumanOnly() const;  // not in CSV or JSON (a label made for reading)
  TableColumn NotInText() const;
  TableColumn WithJsonKey(std::string key) const;
  TableColumn OmitUnsetInJson() const;
};

// A column: its stable name (CSV header, JSON key), its human title and its unit.
TableColumn MakeColumn(std::string name, std::string title, ColumnUnit unit = ColumnUnit::kText,
                       ColumnRole role = ColumnRole::kValue);

// GCC 12 at -O1 and above reports the moves of these variant cells (their std::string and array
// storage) as "maybe uninitialized" when pushed into rows: a false positive of its flow analysis
// on std::variant storage, not a read of uninitialised memory (ASan and UBSan runs are clean).
// Every file that builds or reads tables includes this header, so the warning is off there.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

// Three integers: a launch's grid or block. Fixed size: no allocation per cell.
using Dim3 = std::array<int64_t, 3>;

// One cell: unset (printed "-", CSV empty, JSON null), an integer, a double, a text, a grid or
// block (text and CSV "a,b,c", JSON [a, b, c]), or a flag (text "yes"/"-", CSV "true"/"false").
using TableCell = std::variant<std::monostate, int64_t, double, std::string, Dim3, bool>;

class Table {
 public:
  Table() = default;
  explicit Table(std::vector<TableColumn> columns) : columns_(std::move(columns)) {}

  // Throws std::logic_error when the row's size is not the column count (a report bug).
  void AddRow(std::vector<TableCell> row);

  const std::vector<TableColumn>& columns() const { return columns_; }
  const std::vector<std::vector<TableCell>>& rows() const { return rows_; }
  bool empty() const { return rows_.empty(); }

 private:
  std::vector<TableColumn> columns_;
  std::vector<std::vector<TableCell>> rows_;
};

// Cell helpers: optionals become unset cells.
template <typename T>
TableCell OptionalCell(const T& value) {
  if (!value) return std::monostate{};
  return TableCell(*value);
}

}  // namespace gpuroof
