// Fuzz target: the nsys reader on small nsys-schema databases built from the fuzz bytes. Raw
// bytes rarely make a valid SQLite file, so this target writes one: which tables exist, which of
// their columns are missing or declared with another type, and rows whose values are NULLs, small
// enum-like integers, int64 extremes, text in integer columns, reals and blobs, at sequential or
// huge rowids. Then the reader and every analysis (analyze, kernels, copies, gaps, ranges,
// compare's profile summary) run on it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <sqlite3.h>

#include "gpuroof/readers/nsys_sqlite_reader.h"

#include "fuzz_support.h"

namespace {

// Hands out the fuzz bytes as small decisions; zeros once they run out.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int64_t Int64() {
    uint64_t value = 0;
    for (int i = 0; i < 8; ++i)
      value = value << 8 | Byte();
    return static_cast<int64_t>(value);
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

struct TableShape {
  const char* name;
  std::vector<const char*> columns;
};

// The tables and columns the reader looks at (refs/nsys-sqlite-schema.md).
const std::array<TableShape, 9>& Tables() {
  static const std::array<TableShape, 9> kTables = {{
      {"StringIds", {"id", "value"}},
      {"CUPTI_ACTIVITY_KIND_KERNEL",
       {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid",
        "shortName", "demangledName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"}},
      {"CUPTI_ACTIVITY_KIND_MEMCPY",
       {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes",
        "copyKind", "srcKind", "dstKind", "srcDeviceId", "dstDeviceId"}},
      {"CUPTI_ACTIVITY_KIND_MEMSET",
       {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid", "bytes",
        "memKind"}},
      {"CUPTI_ACTIVITY_KIND_RUNTIME", {"start", "end", "globalTid", "correlationId", "nameId"}},
      {"NVTX_EVENTS",
       {"start", "end", "eventType", "text", "textId", "domainId", "globalTid", "rangeId"}},
      {"TARGET_INFO_GPU", {"id", "name"}},
      {"ENUM_CUDA_MEMCPY_OPER", {"id", "name", "label"}},
      {"CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
       {"start", "end", "deviceId", "contextId", "streamId", "correlationId", "globalPid"}},
  }};
  return kTables;
}

// Integers that select behaviour: enum values, NVTX event types, stream ids, the globalPid
// packing, and the edges of the readers' bounds.
constexpr std::array<int64_t, 24> kInteresting = {
    0,
    1,
    2,
    7,
    8,
    10,
    59,
    60,
    70,
    71,
    75,
    100,
    1000,
    4242,
    (int64_t{1} << 48) | (int64_t{4242} << 24),
    (int64_t{1} << 48) | (int64_t{4242} << 24) | 4242,
    int64_t{1} << 31,
    int64_t{1} << 50,
    (int64_t{1} << 62) - 1,
    int64_t{1} << 62,
    -(int64_t{1} << 62),
    -1,
    std::numeric_limits<int64_t>::max(),
    std::numeric_limits<int64_t>::min(),
};

void BindValue(sqlite3_stmt* stmt, int index, Bytes& in) {
  const uint8_t kind = in.Byte();
  switch (kind % 8) {
    case 0:
      sqlite3_bind_null(stmt, index);
      break;
    case 1:
    case 2:
      sqlite3_bind_int64(stmt, index, kInteresting[in.Byte() % kInteresting.size()]);
      break;
    case 3:
      sqlite3_bind_int64(stmt, index, in.Int64());
      break;
    case 4:
      sqlite3_bind_int64(stmt, index, in.Byte() * 100);
      break;
    case 5: {
      static constexpr std::array<const char*, 4> kTexts = {"abc", "12", "", "k\xff"};
      sqlite3_bind_text(stmt, index, kTexts[in.Byte() % kTexts.size()], -1, SQLITE_STATIC);
      break;
    }
    case 6:
      sqlite3_bind_double(stmt, index, static_cast<double>(in.Int64()) / 7.0);
      break;
    default:
      sqlite3_bind_blob(stmt, index, "\x01\x02", 2, SQLITE_STATIC);
      break;
  }
}

// Writes the database; false when SQLite refused something (the input is then skipped).
bool WriteDatabase(const std::filesystem::path& path, Bytes& in) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) {
    sqlite3_close(db);
    return false;
  }
  bool ok =
      sqlite3_exec(db, "PRAGMA journal_mode=OFF; BEGIN", nullptr, nullptr, nullptr) == SQLITE_OK;
  const uint8_t present = in.Byte();
  for (size_t t = 0; ok && t < Tables().size(); ++t) {
    // StringIds is almost always there: without it the reader stops at its first check.
    if (t > 0 && (present >> (t - 1) & 1) == 0) continue;
    const TableShape& table = Tables()[t];
    std::vector<std::string> columns;
    std::string create = std::string("CREATE TABLE ") + table.name + " (";
    for (const char* column : table.columns) {
      const uint8_t shape = in.Byte();
      if (shape % 16 == 15) continue;  // the column is missing
      if (!columns.empty()) create += ", ";
      create += std::string("\"") + column + "\"" +
                (shape % 16 == 14   ? " TEXT"
                 : shape % 16 == 13 ? ""
                                    : " INTEGER");
      columns.emplace_back(column);
    }
    if (columns.empty()) continue;
    create += ")";
    if (sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) return false;
    std::string insert = std::string("INSERT INTO ") + table.name + " (rowid";
    std::string values = "?1";
    for (size_t c = 0; c < columns.size(); ++c) {
      insert += ", \"" + columns[c] + "\"";
      values += ", ?" + std::to_string(c + 2);
    }
    insert += ") VALUES (" + values + ")";
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, insert.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      sqlite3_finalize(stmt);
      ok = false;
      break;
    }
    const int rows = in.Byte() % 12;
    for (int r = 0; r < rows && !in.empty(); ++r) {
      const uint8_t rowid = in.Byte();
      sqlite3_bind_int64(stmt, 1, rowid == 255 ? in.Int64() : r + 1);
      for (size_t c = 0; c < columns.size(); ++c)
        BindValue(stmt, static_cast<int>(c + 2), in);
      sqlite3_step(stmt);  // a duplicate rowid is refused: the row is simply not there
      sqlite3_reset(stmt);
    }
    sqlite3_finalize(stmt);
  }
  ok = ok && sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path path = gpuroof::fuzz::WriteScratchFile({}, ".sqlite");
  std::filesystem::remove(path);
  Bytes in(data, size);
  if (!WriteDatabase(path, in)) return 0;
  gpuroof::NsysReadOptions options;
  options.threads = 1;
  options.rows_per_chunk = 4;  // several chunks per table, as millions of rows would make
  gpuroof::fuzz::ReadAndAnalyse([&] { return gpuroof::ReadNsysSqlite(path, options); });
  return 0;
}
