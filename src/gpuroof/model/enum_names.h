// Names of enum values kept in one table, so that printing a value and parsing a name read the
// same list and cannot drift apart.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>

namespace gpuroof {

// The row of `table` whose member `key` equals `value`; nullptr when none does.
template <typename Row, size_t N, typename Key>
constexpr const Row* FindRow(const std::array<Row, N>& table, Key Row::*key, const Key& value) {
  for (const Row& row : table) {
    if (row.*key == value) return &row;
  }
  return nullptr;
}

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

// The name of `value`; `fallback` for a value the table lacks (one cast from a bad integer).
template <typename Enum, size_t N>
constexpr std::string_view NameOf(const std::array<EnumName<Enum>, N>& names, Enum value,
                                  std::string_view fallback) {
  const EnumName<Enum>* row = FindRow(names, &EnumName<Enum>::value, value);
  return row ? row->name : fallback;
}

// The value called `name` (compared with `equal`, exact by default); nullopt when none is.
template <typename Enum, size_t N, typename Equal = std::equal_to<std::string_view>>
constexpr std::optional<Enum> ValueNamed(const std::array<EnumName<Enum>, N>& names,
                                         std::string_view name, Equal equal = {}) {
  for (const EnumName<Enum>& row : names) {
    if (equal(row.name, name)) return row.value;
  }
  return std::nullopt;
}

}  // namespace gpuroof
