#include "gpuroof/format/text_table.h"

#include <algorithm>

namespace gpuroof {

namespace {
// Display width: count UTF-8 lead bytes only, so names with non-ASCII characters still align.
size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}
}  // namespace

std::string TextTable::Render(const std::string& indent) const {
  std::vector<size_t> widths(header_.size(), 0);
  auto measure = [&widths](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size() && c < widths.size(); ++c) {
      widths[c] = std::max(widths[c], DisplayWidth(row[c]));
    }
  };
  measure(header_);
  for (const auto& row : rows_)
    measure(row);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line = indent;
    for (size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      size_t pad = widths[c] - DisplayWidth(cell);
      if (c > 0) line += "  ";
      if (c == 0) {
        line += cell + std::string(pad, ' ');
      } else {
        line += std::string(pad, ' ') + cell;
      }
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  };
  emit(header_);
  for (const auto& row : rows_)
    emit(row);
  return out;
}

std::string CsvField(const std::string& field) {
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += "\"";
  return out;
}

std::string CsvLine(const std::vector<std::string>& fields) {
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) line += ',';
    line += CsvField(fields[i]);
  }
  line += '\n';
  return line;
}

}  // namespace gpuroof
