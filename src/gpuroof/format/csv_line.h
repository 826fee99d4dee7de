#pragma once

#include <string>
#include <vector>

namespace gpuroof {

// `field` quoted for CSV when it holds a comma, quote or newline (RFC 4180).
std::string CsvField(const std::string& field);

// One CSV record: the fields quoted as needed, joined by commas, ending in a newline.
std::string CsvLine(const std::vector<std::string>& fields);

}  // namespace gpuroof
