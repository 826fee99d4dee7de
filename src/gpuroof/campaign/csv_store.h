#pragma once

#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
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
  // The indices of `columns`, in their order; nullopt when the header lacks any of them (a
  // reader that needs them all refuses the table as a whole).
  template <size_t N>
  std::optional<std::array<int, N>> Columns(const std::string_view (&columns)[N]) const {
    std::array<int, N> indices{};
    for (size_t i = 0; i < N; ++i) {
      indices[i] = Column(columns[i]);
      if (indices[i] < 0) return std::nullopt;
    }
    return indices;
  }
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

// How MergeCsvRows treats a key that already has rows.
struct CsvMergeOptions {
  // New rows whose `status` column is not "ok" (a failed re-run) do not replace existing rows of
  // their key when those include an "ok" row: the existing rows stay and the new rows of that key
  // are not written (CsvMergeResult::kept says so). A key with any new "ok" row is replaced as
  // usual. Needs a "status" column in the header.
  bool failures_keep_ok_rows = false;
};

// The existing rows of one key that stayed instead of a failure (failures_keep_ok_rows).
struct CsvKeptRows {
  std::string key;
  std::vector<std::vector<std::string>> rows;  // as in the file, one cell per header column
};

struct CsvMergeResult {
  std::vector<CsvKeptRows> kept;  // by key; empty unless failures_keep_ok_rows kept rows
  bool changed = true;            // false when the file was rewritten with the same content
};

// Merges `rows` into the CSV at `path`, keyed by `key_column`: existing rows whose key is among
// the new rows' keys are dropped, the new rows are added, and rows are ordered by key (stable, so
// the rows of one key keep their order); `options` may keep earlier good rows instead of a
// failure. The read-merge-write runs under an exclusive flock on the folder, and the file is
// replaced through a temporary file and a rename, so two writers never lose each other's rows and
// an interrupted run leaves the previous file whole. Throws InputError naming `path` when it
// holds a different header (it is never overwritten) or cannot be written. A file with an older
// header (a proper prefix of `header`) is rewritten with `header`, its rows given empty cells for
// the newer columns.
CsvMergeResult MergeCsvRows(const std::filesystem::path& path,
                            const std::vector<std::string>& header, const std::string& key_column,
                            const std::vector<std::vector<std::string>>& rows,
                            const CsvMergeOptions& options = {});

}  // namespace gpuroof
