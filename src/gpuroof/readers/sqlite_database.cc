#include "gpuroof/readers/sqlite_database.h"

#include <algorithm>
#include <cstdint>
#include <fstream>

#include <sqlite3.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/utf8.h"

namespace gpuroof {

namespace {

constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};

// SQLite URIs treat '?', '#' and '%' specially; everything else may stay as it is.
std::string ToSqliteUri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (char c : std::filesystem::absolute(path).string()) {
    switch (c) {
      case '?':
        uri += "%3f";
        break;
      case '#':
        uri += "%23";
        break;
      case '%':
        uri += "%25";
        break;
      default:
        uri += c;
    }
  }
  uri += "?mode=ro&immutable=1";
  return uri;
}

void CheckLooksLikeSqlite(const std::filesystem::path& path, const std::string& source) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(source, "no such file");
  if (std::filesystem::is_directory(status)) {
    throw InputError(source, "is a directory, expected an nsys SQLite export (.sqlite)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(source, "cannot open file for reading");
  char header[16] = {};
  in.read(header, sizeof header);
  if (in.gcount() == 0) throw InputError(source, "file is empty");
  if (in.gcount() < 16 || std::string_view(header, 16) != kSqliteMagic) {
    throw InputError(source,
                     "not an SQLite database (expected an nsys SQLite export; export a .nsys-rep "
                     "with `nsys export --type sqlite`)");
  }
}

}  // namespace

SqliteDatabase::SqliteDatabase(const std::filesystem::path& path) : source_(path.string()) {
  CheckLooksLikeSqlite(path, source_);
  int rc = sqlite3_open_v2(ToSqliteUri(path).c_str(), &db_,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) Fail("cannot open SQLite database");
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(path, ec);
  file_bytes_ = ec ? 0 : static_cast<int64_t>(std::min<uintmax_t>(bytes, INT64_MAX));
#if defined(SQLITE_DBCONFIG_DQS_DML)
  // A double-quoted name the table lacks must be an error, never SQLite's legacy fallback to a
  // string literal ("end" read as the text 'end', i.e. 0): the readers quote column names.
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DQS_DML, 0, nullptr);
  sqlite3_db_config(db_, SQLITE_DBCONFIG_DQS_DDL, 0, nullptr);
#endif
}

SqliteDatabase::~SqliteDatabase() {
  sqlite3_close_v2(db_);
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(other.db_), source_(std::move(other.source_)), file_bytes_(other.file_bytes_) {
  other.db_ = nullptr;
}

void SqliteDatabase::Fail(std::string_view what) const {
  std::string message(what);
  if (db_ != nullptr) {
    message += ": ";
    message += sqlite3_errmsg(db_);
    int code = sqlite3_errcode(db_);
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB || (code & 0xff) == SQLITE_IOERR) {
      message += " (the file is truncated or corrupt)";
    }
  }
  throw InputError(source_, message);
}

std::vector<std::string> SqliteDatabase::TableNames() {
  std::vector<std::string> names;
  SqliteStatement stmt = Prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
  while (stmt.Step())
    names.push_back(stmt.Text(0));
  return names;
}

std::vector<std::string> SqliteDatabase::ColumnNames(std::string_view table) {
  std::vector<std::string> names;
  SqliteStatement stmt = Prepare("SELECT name FROM pragma_table_info(?1)");
  stmt.BindText(1, table);
  while (stmt.Step())
    names.push_back(stmt.Text(0));
  return names;
}

std::vector<std::string> SqliteDatabase::RequireColumns(
    std::string_view table, std::initializer_list<std::string_view> required) {
  std::vector<std::string> names = ColumnNames(table);
  for (std::string_view name : required) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw InputError(source_, std::string("table ") + std::string(table) + " lacks the column " +
                                    std::string(name));
    }
  }
  return names;
}

SqliteStatement SqliteDatabase::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    Fail("cannot read the database");
  }
  return SqliteStatement(this, stmt);
}

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

void SqliteStatement::BindText(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), nullptr) !=
      SQLITE_OK) {
    db_->Fail("cannot bind a value");
  }
}

void SqliteStatement::BindInt64(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->Fail("cannot bind a value");
}

bool SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->Fail("cannot read the database");
}

bool SqliteStatement::IsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

bool SqliteStatement::IsInteger(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_INTEGER;
}

int64_t SqliteStatement::Int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::Double(int column) const {
  return sqlite3_column_double(stmt_, column);
}

std::string SqliteStatement::Text(int column) const {
  const void* blob = sqlite3_column_blob(stmt_, column);
  int size = sqlite3_column_bytes(stmt_, column);
  if (blob == nullptr || size <= 0) return {};
  return MakeValidUtf8(std::string_view(static_cast<const char*>(blob), static_cast<size_t>(size)));
}

int64_t RowSpan(int64_t first, int64_t last) {
  if (last < first) return 0;
  // last - first fits in uint64 whenever last >= first; modular arithmetic computes it exactly.
  const uint64_t difference = static_cast<uint64_t>(last) - static_cast<uint64_t>(first);
  constexpr auto kMax = static_cast<uint64_t>(INT64_MAX);
  return difference >= kMax ? INT64_MAX : static_cast<int64_t>(difference + 1);
}

std::string MakeValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t length = ValidUtf8SequenceLength(text, i);
    if (length > 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace gpuroof
