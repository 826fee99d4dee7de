#include "gpuroof/campaign/csv_store.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "gpuroof/format/csv_line.h"
#include "gpuroof/format/output_file.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

int CsvTable::Column(std::string_view column) const {
  auto it = std::find(header.begin(), header.end(), column);
  return it == header.end() ? -1 : static_cast<int>(it - header.begin());
}

CsvTable ParseCsv(std::string_view text, const std::string& source) {
  CsvTable table;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  bool field_started = false;
  int line = 1;
  int record_line = 1;
  auto end_record = [&]() {
    record.push_back(std::move(field));
    field.clear();
    field_started = false;
    if (table.header.empty()) {
      table.header = std::move(record);
    } else if (record.size() != table.header.size()) {
      throw InputError(
          fmt::format("{}:{}", source, record_line),
          fmt::format("{} fields where the header has {}", record.size(), table.header.size()));
    } else {
      table.rows.push_back(std::move(record));
    }
    record.clear();
    record_line = line;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      field_started = true;
    } else if (c == '\n') {
      ++line;
      end_record();
    } else if (c != '\r') {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw InputError(fmt::format("{}:{}", source, record_line), "unclosed quote");
  if (field_started || !record.empty()) end_record();
  return table;
}

namespace {

// The file's text; nothing when it is absent. Throws InputError when it cannot be read.
std::optional<std::string> ReadFileText(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CsvTable ReadCsvFile(const std::filesystem::path& path) {
  std::optional<std::string> text = ReadFileText(path);
  return text ? ParseCsv(*text, path.string()) : CsvTable{};
}

namespace {

// Columns are only ever appended to gpuroof's CSV files: a file whose header is a proper prefix
// of `header` was written by an older version and is read as it is (its rows get empty cells
// for the newer columns when merged).
bool IsOlderHeader(const std::vector<std::string>& old_header,
                   const std::vector<std::string>& header) {
  return !old_header.empty() && old_header.size() < header.size() &&
         std::equal(old_header.begin(), old_header.end(), header.begin());
}

void RequireHeader(const std::filesystem::path& path, const CsvTable& table,
                   const std::vector<std::string>& header) {
  if (!table.header.empty() && table.header != header && !IsOlderHeader(table.header, header)) {
    throw InputError(path.string(),
                     "has other columns than this gpuroof writes (an older version?); move it "
                     "away or use another results folder");
  }
}

}  // namespace

void CheckCsvHeader(const std::filesystem::path& path, const std::vector<std::string>& header) {
  RequireHeader(path, ReadCsvFile(path), header);
}

CsvMergeResult MergeCsvRows(const std::filesystem::path& path,
                            const std::vector<std::string>& header, const std::string& key_column,
                            const std::vector<std::vector<std::string>>& rows,
                            const CsvMergeOptions& options) {
  auto key_it = std::find(header.begin(), header.end(), key_column);
  if (key_it == header.end()) throw std::logic_error("MergeCsvRows: key column not in header");
  const size_t key = static_cast<size_t>(key_it - header.begin());
  auto status_it = std::find(header.begin(), header.end(), "status");
  if (options.failures_keep_ok_rows && status_it == header.end())
    throw std::logic_error("MergeCsvRows: failures_keep_ok_rows needs a status column");
  const size_t status = static_cast<size_t>(status_it - header.begin());
  std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  // The CSV is replaced by rename: the lock is on the results folder (output_file.h).
  const FolderLock lock(folder);
  const std::optional<std::string> old_text = ReadFileText(path);
  CsvTable table = old_text ? ParseCsv(*old_text, path.string()) : CsvTable{};
  RequireHeader(path, table, header);
  for (auto& row : table.rows)
    row.resize(header.size());  // an older file's rows: empty cells for the newer columns
  std::set<std::string> replaced;
  for (const auto& row : rows)
    replaced.insert(row.at(key));
  CsvMergeResult result;
  if (options.failures_keep_ok_rows) {
    // A key whose new rows are all failures keeps its existing rows when one of them is ok.
    std::set<std::string> has_new_ok;
    std::set<std::string> has_old_ok;
    for (const auto& row : rows) {
      if (row.at(status) == "ok") has_new_ok.insert(row.at(key));
    }
    for (const auto& row : table.rows) {
      if (row[status] == "ok") has_old_ok.insert(row[key]);
    }
    for (const std::string& name : has_old_ok) {
      if (replaced.count(name) == 0 || has_new_ok.count(name) != 0) continue;
      replaced.erase(name);
      CsvKeptRows kept{name, {}};
      for (const auto& row : table.rows) {
        if (row[key] == name) kept.rows.push_back(row);
      }
      result.kept.push_back(std::move(kept));
    }
  }
  std::vector<std::vector<std::string>> merged;
  for (auto& row : table.rows) {
    if (replaced.count(row[key]) == 0) merged.push_back(std::move(row));
  }
  for (const auto& row : rows) {
    if (replaced.count(row.at(key)) != 0) merged.push_back(row);
  }
  std::stable_sort(merged.begin(), merged.end(),
                   [key](const auto& a, const auto& b) { return a[key] < b[key]; });
  std::string content = CsvLine(header);
  for (const auto& row : merged)
    content += CsvLine(row);
  result.changed = !old_text || *old_text != content;
  WriteFileAtomically(path, content);
  return result;
}

}  // namespace gpuroof
