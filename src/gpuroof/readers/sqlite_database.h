#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/model/non_copyable.h"

struct sqlite3;
struct sqlite3_stmt;

namespace gpuroof {

class SqliteStatement;

// A read-only SQLite connection whose every failure becomes an InputError naming the file.
// One connection per thread: instances are movable but not shareable.
class SqliteDatabase : NonCopyable {
 public:
  // Opens `path` read-only and immutable (no locks, no journal). Throws InputError when the file
  // is missing, a directory, not an SQLite database, or unreadable.
  explicit SqliteDatabase(const std::filesystem::path& path);
  ~SqliteDatabase();
  SqliteDatabase(SqliteDatabase&& other) noexcept;

  // Names of all tables. Throws InputError when the schema cannot be read (corrupt file).
  std::vector<std::string> TableNames();
  // Column names of `table` in declaration order (empty when the table does not exist).
  std::vector<std::string> ColumnNames(std::string_view table);
  // ColumnNames(table), once every one of `required` is among them. Readers check before they
  // build SQL: a query naming a missing column must not reach SQLite. Throws InputError
  // "table <table> lacks the column <name>".
  std::vector<std::string> RequireColumns(std::string_view table,
                                          std::initializer_list<std::string_view> required);
  // Throws InputError naming the file and `sql`'s problem when it does not compile.
  SqliteStatement Prepare(std::string_view sql);

  const std::string& source() const { return source_; }
  // The most rows the file can hold: a row of a table b-tree takes at least 4 bytes of a page
  // (cell pointer, payload size, rowid, record header). Reservations sized by rowids are capped
  // by it, so a sparse or hostile rowid cannot make a small file allocate gigabytes.
  int64_t RowCapacity() const { return file_bytes_ / 4; }
  sqlite3* handle() const { return db_; }
  // Throws InputError "<source>: <what>: <sqlite message>".
  [[noreturn]] void Fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string source_;
  int64_t file_bytes_ = 0;
};

// A prepared statement. Step() returns true while there is a row; errors throw InputError.
class SqliteStatement : NonCopyable {
 public:
  SqliteStatement(SqliteDatabase* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept;

  void BindInt64(int index, int64_t value);  // 1-based, like SQLite
  // `value` is not copied: it must outlive the statement's use (SQLITE_STATIC).
  void BindText(int index, std::string_view value);
  bool Step();
  bool IsNull(int column) const;
  bool IsInteger(int column) const;  // stored as an integer (not text, real, blob or NULL)
  int64_t Int64(int column) const;
  // The value, or `if_null` when the column is NULL. Cheaper than IsNull() + Int64(): SQLite reads
  // NULL as 0, so the type is only looked at for zeros.
  int64_t Int64Or(int column, int64_t if_null) const {
    int64_t value = Int64(column);
    return value == 0 && IsNull(column) ? if_null : value;
  }
  double Double(int column) const;
  // Text read as raw bytes and made valid UTF-8 (invalid bytes become U+FFFD): exports may hold
  // Latin-1 metadata that must not abort a read.
  std::string Text(int column) const;

 private:
  SqliteDatabase* db_;
  sqlite3_stmt* stmt_;
};

// Rows in [first, last] as rowids go, saturated at INT64_MAX: rowids may be anywhere in int64
// (hand-edited files), where a plain `last - first + 1` overflows.
int64_t RowSpan(int64_t first, int64_t last);

// `text` with invalid UTF-8 sequences replaced by U+FFFD. Visible for testing.
std::string MakeValidUtf8(std::string_view text);

}  // namespace gpuroof
