#pragma once

#include <string>
#include <vector>

namespace gpuroof {

// A plain aligned text table: the first column left-aligned, the others right-aligned (numbers).
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Render(const std::string& indent = "") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// `field` quoted for CSV when it holds a comma, quote or newline (RFC 4180).
std::string CsvField(const std::string& field);

// One CSV record: the fields quoted as needed, joined by commas, ending in a newline.
std::string CsvLine(const std::vector<std::string>& fields);

}  // namespace gpuroof
