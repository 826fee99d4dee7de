#include "gpuroof/format/table_cells.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuroof/format/number_format.h"

namespace gpuroof {

namespace {

double Magnitude(const TableCell& cell) {
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::fabs(static_cast<double>(*i));
  if (const auto* d = std::get_if<double>(&cell)) return std::isfinite(*d) ? std::fabs(*d) : 0.0;
  return 0.0;
}

// `value` in the column's unit and decimals (FixedDouble: a non-zero value never prints as zero).
std::string ScaledNumber(double value, const ColumnScale& scale) {
  return FixedDouble(value / scale.divisor, scale.decimals);
}

std::string JoinList(const Dim3& values) {
  return fmt::format("{}", fmt::join(values, ","));
}

}  // namespace

ColumnScale PickColumnScale(const Table& table, size_t column) {
  const TableColumn& spec = table.columns().at(column);
  double largest = 0.0;
  for (const auto& row : table.rows())
    largest = std::max(largest, Magnitude(row[column]));
  switch (spec.unit) {
    case ColumnUnit::kNs:
      if (largest >= 1e9) return {"s", 1e9, 3};
      if (largest >= 1e6) return {"ms", 1e6, 3};
      if (largest >= 1e3) return {"us", 1e3, 3};
      return {"ns", 1.0, 0};
    case ColumnUnit::kBytes:
      if (largest >= 1e9) return {"GB", 1e9, 2};
      if (largest >= 1e6) return {"MB", 1e6, 2};
      if (largest >= 1e3) return {"kB", 1e3, 2};
      return {"B", 1.0, 0};
    case ColumnUnit::kPercent:
      return {"%", 1.0, 2};
    case ColumnUnit::kRatio:
      return {"", 1.0, 2};
    case ColumnUnit::kGbps:
      return {"GB/s", 1.0, 2};
    case ColumnUnit::kCount:
    case ColumnUnit::kFlag:
    case ColumnUnit::kText:
    case ColumnUnit::kName:
    case ColumnUnit::kFigure:
      return {"", 1.0, 0};
  }
  return {};
}

std::string HumanHeader(const TableColumn& column, const ColumnScale& scale) {
  if (scale.unit.empty()) return column.title;
  if (column.title.starts_with("/")) return scale.unit + column.title;  // "us/frame"
  if (column.title.empty()) return scale.unit;
  return column.title + " " + scale.unit;
}

std::string HumanCell(const TableCell& cell, const ColumnScale& scale) {
  if (std::holds_alternative<std::monostate>(cell)) return "-";
  if (const auto* flag = std::get_if<bool>(&cell)) return *flag ? "yes" : "-";
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  if (const auto* list = std::get_if<Dim3>(&cell)) return JoinList(*list);
  if (const auto* i = std::get_if<int64_t>(&cell)) {
    if (scale.divisor == 1.0 && scale.decimals == 0) return std::to_string(*i);
    return ScaledNumber(static_cast<double>(*i), scale);
  }
  return ScaledNumber(std::get<double>(cell), scale);
}

std::string PreciseCell(const TableCell& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return "";
  if (const auto* flag = std::get_if<bool>(&cell)) return *flag ? "true" : "false";
  if (const auto* text = std::get_if<std::string>(&cell)) return *text;
  if (const auto* list = std::get_if<Dim3>(&cell)) return JoinList(*list);
  if (const auto* i = std::get_if<int64_t>(&cell)) return std::to_string(*i);
  return ShortestDouble(std::get<double>(cell));
}

bool IsTextColumn(const TableColumn& column) {
  return column.unit == ColumnUnit::kText || column.unit == ColumnUnit::kName;
}

bool ColumnIsEmpty(const Table& table, size_t column) {
  return std::all_of(table.rows().begin(), table.rows().end(), [column](const auto& row) {
    return std::holds_alternative<std::monostate>(row[column]);
  });
}

}  // namespace gpuroof
