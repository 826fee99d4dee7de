#include "gpuroof/readers/sqlite_database.h"

#include <fstream>

#include <sqlite3.h>

#include "gpuroof/model/errors.h"

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
}

SqliteDatabase::~SqliteDatabase() {
  sqlite3_close_v2(db_);
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(other.db_), source_(std::move(other.source_)) {
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

std::string MakeValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    auto c = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    if (c < 0x80) {
      length = 1;
    } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
      length = 2;
    } else if ((c & 0xF0) == 0xE0) {
      length = 3;
    } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
      length = 4;
    }
    bool valid = length > 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
    }
    if (valid && length == 3) {
      auto c1 = static_cast<unsigned char>(text[i + 1]);
      valid = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    } else if (valid && length == 4) {
      auto c1 = static_cast<unsigned char>(text[i + 1]);
      valid = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (valid) {
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
