#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gpuroof {

// A CSV file as cells: one header line and rows of the same width.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // Index of `column` in the header, or -1.
  int Column(std::string_view column) const;
};

// Parses RFC 4180 CSV (quoted fields may hold commas, quotes and newlines). Throws InputError
// naming `source` and the line for unbalanced quotes or rows of the wrong width.
CsvTable ParseCsv(std::string_view text, const std::string& source);

// Reads `path`; an absent file is an empty table. Throws InputError when it cannot be parsed.
CsvTable ReadCsvFile(const std::filesystem::path& path);

// Throws InputError naming `path` when it exists with another header than `header` (what
// MergeCsvRows would refuse), or cannot be parsed. Campaigns call it before anything runs. A
// header that is a proper prefix of `header` is an older version's and accepted: columns are
// only ever appended.
void CheckCsvHeader(const std::filesystem::path& path, const std::vector<std::string>& header);

// Merges `rows` into the CSV at `path`, keyed by `key_column`: existing rows whose key is among
// the new rows' keys are dropped, the new rows are added, and rows are ordered by key (stable, so
// the rows of one key keep their order). The read-merge-write runs under an exclusive flock on
// `<folder>/.<name>.lock`, and the file is replaced through a temporary file and a rename, so two
// writers never lose each other's rows and an interrupted run leaves the previous file whole.
// Throws InputError naming `path` when it holds a different header (it is never overwritten) or
// cannot be written. A file with an older header (a proper prefix of `header`) is rewritten with
// `header`, its rows given empty cells for the newer columns.
void MergeCsvRows(const std::filesystem::path& path, const std::vector<std::string>& header,
                  const std::string& key_column, const std::vector<std::vector<std::string>>& rows);

}  // namespace gpuroof
