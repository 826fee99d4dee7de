// Read-side helpers for the support tests: they inspect built files with the plain sqlite3 C API,
// independently of the code under test.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

namespace gpuroof::testsupport::testing {

using Row = std::vector<std::optional<std::string>>;

// A read-only connection; every query failure is a test failure.
class TestDb {
 public:
  explicit TestDb(const std::filesystem::path& path) {
    const std::string uri = "file:" + path.string() + "?mode=ro";
    if (sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) !=
        SQLITE_OK) {
      ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db_);
    }
  }
  ~TestDb() { sqlite3_close(db_); }
  TestDb(const TestDb&) = delete;
  TestDb& operator=(const TestDb&) = delete;

  // All result rows, every value as text (NULL -> nullopt).
  std::vector<Row> Query(const std::string& sql) {
    std::vector<Row> rows;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
      return rows;
    }
    int rc = SQLITE_OK;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      Row row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* text = sqlite3_column_text(stmt, i);
        row.push_back(text ? std::optional<std::string>(reinterpret_cast<const char*>(text))
                           : std::nullopt);
      }
      rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return rows;
  }

  // The first column of the first row; "<no row>" or "<null>" otherwise.
  std::string Text(const std::string& sql) {
    std::vector<Row> rows = Query(sql);
    if (rows.empty() || rows[0].empty()) return "<no row>";
    return rows[0][0].value_or("<null>");
  }

  int64_t Int(const std::string& sql) { return std::stoll(Text(sql)); }

  std::vector<std::string> Columns(const std::string& table) {
    std::vector<std::string> names;
    for (const Row& row : Query("SELECT name FROM pragma_table_info('" + table + "')")) {
      names.push_back(row[0].value_or(""));
    }
    return names;
  }

  bool NotNull(const std::string& table, const std::string& column) {
    return Text("SELECT \"notnull\" FROM pragma_table_info('" + table + "') WHERE name = '" +
                column + "'") == "1";
  }

  bool HasTable(const std::string& table) {
    return Int("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + table +
               "'") == 1;
  }

 private:
  sqlite3* db_ = nullptr;
};

// A fresh directory per test, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = "gpuroof_support_" + std::string(info->test_suite_name()) + "_" +
                       info->name() + "_" + std::to_string(getpid());
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterized tests have slashes in their names
    }
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace gpuroof::testsupport::testing
