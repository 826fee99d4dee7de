#include "support/nsys_sqlite_builder.h"

#include <array>
#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sqlite3.h>

namespace gpuroof::testsupport {
namespace {

// Every file nsys wrote so far has VM id 1 in bits 48-63 of globalPid/globalTid.
constexpr int64_t kVmId = int64_t{1} << 48;
constexpr uint32_t kMax24Bits = (uint32_t{1} << 24) - 1;

constexpr char kMemcpyOperTable[] = "ENUM_CUDA_MEMCPY_OPER";
constexpr char kMemKindTable[] = "ENUM_CUDA_MEM_KIND";

struct Column {
  const char* name;
  const char* type;
  bool not_null;
};

Column Int(const char* name) {
  return {name, "INTEGER", false};
}
Column IntNN(const char* name) {
  return {name, "INTEGER", true};
}
Column Text(const char* name) {
  return {name, "TEXT", false};
}
Column Real(const char* name) {
  return {name, "REAL", false};
}

bool HasGreenContext(NsysSchema schema) {
  return schema == NsysSchema::k2024 || schema == NsysSchema::k2025;
}
bool IsAtLeast2021(NsysSchema schema) {
  return schema != NsysSchema::k2020;
}
bool HasEnumTables(NsysSchema schema) {
  return schema == NsysSchema::k2022 || schema == NsysSchema::k2024 || schema == NsysSchema::k2025;
}

// Column lists below are copied, in order, from `pragma table_info` of real exports: 2021.5.2
// (saxpy), 2022.4.2 (streams4), 2024.6.2 (sigma), 2025.1.1 for the 2024-era MEMSET, and the
// schema reference for the 2020.3 differences.
std::vector<Column> KernelColumns(NsysSchema schema) {
  std::vector<Column> c = {IntNN("start"), IntNN("end"), IntNN("deviceId"), IntNN("contextId")};
  if (HasGreenContext(schema)) c.push_back(Int("greenContextId"));
  c.insert(c.end(), {IntNN("streamId"), Int("correlationId"), Int("globalPid"),
                     IntNN("demangledName"), IntNN("shortName")});
  if (IsAtLeast2021(schema)) c.push_back(Int("mangledName"));
  c.insert(c.end(),
           {Int("launchType"), Int("cacheConfig"), IntNN("registersPerThread"), IntNN("gridX"),
            IntNN("gridY"), IntNN("gridZ"), IntNN("blockX"), IntNN("blockY"), IntNN("blockZ"),
            IntNN("staticSharedMemory"), IntNN("dynamicSharedMemory"),
            IntNN("localMemoryPerThread"), IntNN("localMemoryTotal"), IntNN("gridId"),
            Int("sharedMemoryExecuted"), Int("graphNodeId")});
  if (IsAtLeast2021(schema)) c.push_back(Int("sharedMemoryLimitConfig"));
  return c;
}

std::vector<Column> MemcpyColumns(NsysSchema schema) {
  std::vector<Column> c = {IntNN("start"), IntNN("end"), IntNN("deviceId"), IntNN("contextId")};
  if (HasGreenContext(schema)) c.push_back(Int("greenContextId"));
  c.insert(c.end(),
           {IntNN("streamId"), Int("correlationId"), Int("globalPid"), IntNN("bytes"),
            IntNN("copyKind"), Int("deprecatedSrcId"), Int("srcKind"), Int("dstKind"),
            Int("srcDeviceId"), Int("srcContextId"), Int("dstDeviceId"), Int("dstContextId")});
  if (IsAtLeast2021(schema)) c.push_back(Int("migrationCause"));
  c.push_back(Int("graphNodeId"));
  if (IsAtLeast2021(schema)) c.push_back(Int("virtualAddress"));
  if (schema == NsysSchema::k2025) c.push_back(Int("copyCount"));
  return c;
}

std::vector<Column> MemsetColumns(NsysSchema schema) {
  std::vector<Column> c = {IntNN("start"), IntNN("end"), IntNN("deviceId"), IntNN("contextId")};
  if (HasGreenContext(schema)) c.push_back(Int("greenContextId"));
  c.insert(c.end(), {IntNN("streamId"), Int("correlationId"), Int("globalPid"), IntNN("value"),
                     IntNN("bytes"), Int("graphNodeId"), Int("memKind")});
  return c;
}

std::vector<Column> NvtxColumns() {
  return {IntNN("start"),      Int("end"),          IntNN("eventType"), Int("rangeId"),
          Int("category"),     Int("color"),        Text("text"),       Int("globalTid"),
          Int("endGlobalTid"), Int("textId"),       Int("domainId"),    Int("uint64Value"),
          Int("int64Value"),   Real("doubleValue"), Int("uint32Value"), Int("int32Value"),
          Real("floatValue"),  Int("jsonTextId"),   Text("jsonText")};
}

std::vector<Column> RuntimeColumns(NsysSchema schema) {
  std::vector<Column> c = {IntNN("start"),      IntNN("end"),         IntNN("eventClass"),
                           IntNN("globalTid"),  Int("correlationId"), IntNN("nameId"),
                           IntNN("returnValue")};
  if (IsAtLeast2021(schema)) c.push_back(Int("callchainId"));
  return c;
}

std::vector<Column> GpuColumns(NsysSchema schema) {
  if (!IsAtLeast2021(schema)) {
    return {IntNN("vmId"), IntNN("deviceId"), Text("name"), Text("busLocation"), Int("isDiscrete")};
  }
  return {IntNN("vmId"),
          IntNN("id"),
          Text("name"),
          Text("busLocation"),
          Int("isDiscrete"),
          Int("l2CacheSize"),
          Int("totalMemory"),
          Int("memoryBandwidth"),
          Int("clockRate"),
          Int("smCount"),
          Int("pwGpuId"),
          Text("uuid"),
          Int("luid"),
          Text("chipName"),
          Int("cuDevice"),
          Text("ctxswDevPath"),
          Text("ctrlDevPath"),
          Int("revision"),
          Int("nodeMask"),
          Int("constantMemory"),
          Int("maxIPC"),
          Int("maxRegistersPerBlock"),
          Int("maxShmemPerBlock"),
          Int("maxShmemPerBlockOptin"),
          Int("maxShmemPerSm"),
          Int("maxRegistersPerSm"),
          Int("threadsPerWarp"),
          Int("asyncEngines"),
          Int("maxWarpsPerSm"),
          Int("maxBlocksPerSm"),
          Int("maxThreadsPerBlock"),
          Int("maxBlockDimX"),
          Int("maxBlockDimY"),
          Int("maxBlockDimZ"),
          Int("maxGridDimX"),
          Int("maxGridDimY"),
          Int("maxGridDimZ"),
          Int("computeMajor"),
          Int("computeMinor"),
          Int("smMajor"),
          Int("smMinor")};
}

std::string CreateTableSql(std::string_view table, const std::vector<Column>& columns,
                           bool drop_not_null) {
  std::string sql = fmt::format("CREATE TABLE {} (\n", table);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const Column& col = columns[i];
    const bool not_null = col.not_null && !drop_not_null;
    sql += fmt::format("    {:<27} {}", col.name, col.type);
    if (not_null) sql += fmt::format("{:>{}}", "NOT NULL", 18 - std::string_view(col.type).size());
    sql += i + 1 < columns.size() ? ",\n" : "\n";
  }
  sql += ");";
  return sql;
}

std::string InsertAllSql(std::string_view table, std::size_t column_count) {
  std::string sql = fmt::format("INSERT INTO {} VALUES (", table);
  for (std::size_t i = 0; i < column_count; ++i)
    sql += i == 0 ? "?" : ", ?";
  sql += ")";
  return sql;
}

const char* TableName(NsysSqliteBuilder::Table table) {
  switch (table) {
    case NsysSqliteBuilder::Table::kKernel:
      return "CUPTI_ACTIVITY_KIND_KERNEL";
    case NsysSqliteBuilder::Table::kMemcpy:
      return "CUPTI_ACTIVITY_KIND_MEMCPY";
    case NsysSqliteBuilder::Table::kMemset:
      return "CUPTI_ACTIVITY_KIND_MEMSET";
    case NsysSqliteBuilder::Table::kNvtx:
      return "NVTX_EVENTS";
    case NsysSqliteBuilder::Table::kRuntime:
      return "CUPTI_ACTIVITY_KIND_RUNTIME";
  }
  throw std::invalid_argument("NsysSqliteBuilder: unknown table");
}

using EnumRows = std::map<int, std::pair<std::string, std::string>>;

// Rows of the real 2022.4 - 2025.1 exports (identical in all of them).
EnumRows DefaultMemcpyOperRows() {
  return {{0, {"CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"}},
          {1, {"CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"}},
          {2, {"CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"}},
          {3, {"CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"}},
          {4, {"CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"}},
          {5, {"CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"}},
          {6, {"CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"}},
          {7, {"CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"}},
          {8, {"CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"}},
          {9, {"CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"}},
          {10, {"CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"}},
          {11, {"CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device"}},
          {12, {"CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host"}},
          {13, {"CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"}}};
}

EnumRows DefaultMemKindRows() {
  return {{0, {"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"}},
          {1, {"CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"}},
          {2, {"CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"}},
          {3, {"CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"}},
          {4, {"CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"}},
          {5, {"CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"}},
          {6, {"CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"}},
          {7, {"CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"}}};
}

struct ExportVersion {
  const char* product;
  const char* date;
  int schema_major;
  int schema_minor;
  int schema_micro;
};

// Product/schema version pairs observed in real exports of each era.
ExportVersion VersionOf(NsysSchema schema) {
  switch (schema) {
    case NsysSchema::k2020:
      break;
    case NsysSchema::k2021:
      return {"2021.5.2.53", "2021.5", 2, 7, 0};
    case NsysSchema::k2022:
      return {"2022.4.2.1", "2022.4", 3, 0, 0};
    case NsysSchema::k2024:
      return {"2024.6.2.0", "2024.6", 3, 16, 1};
    case NsysSchema::k2025:
      return {"2025.1.3.140", "2025.1", 3, 17, 2};
  }
  return {"", "", 0, 0, 0};
}

std::vector<std::pair<std::string, std::string>> DefaultMetadata(NsysSchema schema) {
  if (!IsAtLeast2021(schema)) return {};  // 2020-era exports carry no metadata table
  const ExportVersion v = VersionOf(schema);
  return {{"EXPORT_PRODUCT_NAME", "NVIDIA Nsight Systems"},
          {"EXPORT_PRODUCT_VERSION", v.product},
          {"EXPORT_PRODUCT_DATE", v.date},
          {"EXPORT_SCHEMA_VERSION",
           fmt::format("{}.{}.{}", v.schema_major, v.schema_minor, v.schema_micro)},
          {"EXPORT_SCHEMA_VERSION_MAJOR", std::to_string(v.schema_major)},
          {"EXPORT_SCHEMA_VERSION_MINOR", std::to_string(v.schema_minor)},
          {"EXPORT_SCHEMA_VERSION_MICRO", std::to_string(v.schema_micro)},
          {"EXPORT_PLATFORM", "linux-desktop"}};
}

int64_t GlobalPid(uint32_t pid) {
  return kVmId | (static_cast<int64_t>(pid) << 24);
}

void CheckPid(uint32_t pid, const char* what) {
  if (pid > kMax24Bits) {
    throw std::invalid_argument(fmt::format(
        "NsysSqliteBuilder: {} {} does not fit in the 24 bits nsys reserves for it", what, pid));
  }
}

int64_t CheckedBytes(uint64_t bytes) {
  if (bytes > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    throw std::invalid_argument(
        fmt::format("NsysSqliteBuilder: bytes {} does not fit in an SQLite INTEGER", bytes));
  }
  return static_cast<int64_t>(bytes);
}

struct StmtDeleter {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

struct DbDeleter {
  // close_v2 tolerates statements that are still alive, which can only happen on error paths.
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbDeleter>;

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace

class NsysSqliteBuilder::Impl {
 public:
  Impl(std::filesystem::path output, BuilderOptions options)
      : output_(std::move(output)), options_(options) {
    temp_ = output_;
    temp_ += ".tmp";
    try {
      Open();
    } catch (...) {
      Discard();
      throw;
    }
  }

  ~Impl() {
    if (state_ != State::kFinished) Discard();
  }

  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  void AddGpu(int32_t id, const std::string& name) {
    EnsureUsable();
    if (!gpu_insert_) {
      Exec(CreateTableSql("TARGET_INFO_GPU", GpuColumns(options_.schema), false));
      // Only the columns a reader might plausibly use get values; the rest stay NULL, as many
      // do in real files (ctxswDevPath, luid, ...).
      gpu_insert_ = Prepare(
          IsAtLeast2021(options_.schema)
              ? "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, isDiscrete, "
                "l2CacheSize, totalMemory, memoryBandwidth, clockRate, smCount, chipName, "
                "cuDevice, threadsPerWarp, asyncEngines, maxThreadsPerBlock, computeMajor, "
                "computeMinor, smMajor, smMinor) VALUES (?, ?, ?, ?, 1, 52428800, 150323855360, "
                "4800000000000, 1980000000, 132, 'GH100', ?, 32, 2, 1024, 9, 0, 9, 0)"
              : "INSERT INTO TARGET_INFO_GPU (vmId, deviceId, name, busLocation, isDiscrete) "
                "VALUES (?, ?, ?, ?, 1)");
    }
    const std::string bus = fmt::format("0000:{:02x}:00.0", (id + 1) & 0xff);
    Binder b(this, gpu_insert_.get());
    b.Int(kVmId).Int(id).Text(name).Text(bus);
    if (IsAtLeast2021(options_.schema)) b.Int(id);
    b.Step();
  }

  void AddKernel(const KernelRow& row) {
    EnsureUsable();
    CheckTimes(row.start_ns, row.end_ns, "KernelRow");
    CheckPid(row.pid, "KernelRow.pid");
    sqlite3_stmt* stmt = TableInsert(Table::kKernel);
    const int64_t short_id = Intern(row.short_name);
    const int64_t demangled_id = row.demangled_name.empty() ? short_id : Intern(row.demangled_name);
    Binder b(this, stmt);
    BindActivityPrefix(b, row);
    b.Int(demangled_id).Int(short_id);
    if (IsAtLeast2021(options_.schema)) b.Null();  // mangledName: unknown for synthetic kernels
    b.Int(1)                                       // launchType: regular
        .Int(0)                                    // cacheConfig
        .Int(32)                                   // registersPerThread
        .Int(row.grid[0])
        .Int(row.grid[1])
        .Int(row.grid[2])
        .Int(row.block[0])
        .Int(row.block[1])
        .Int(row.block[2])
        .Int(0)  // staticSharedMemory
        .Int(0)  // dynamicSharedMemory
        .Int(0)  // localMemoryPerThread
        .Int(0)  // localMemoryTotal
        .Int(next_grid_id_++)
        .Int(0)                                    // sharedMemoryExecuted
        .Null();                                   // graphNodeId: not a graph launch
    if (IsAtLeast2021(options_.schema)) b.Int(0);  // sharedMemoryLimitConfig: default
    b.Step();
  }

  void AddMemcpy(const MemcpyRow& row) {
    EnsureUsable();
    CheckTimes(row.start_ns, row.end_ns, "MemcpyRow");
    CheckPid(row.pid, "MemcpyRow.pid");
    const int64_t bytes = CheckedBytes(row.bytes);
    sqlite3_stmt* stmt = TableInsert(Table::kMemcpy);
    Binder b(this, stmt);
    BindActivityPrefix(b, row);
    b.Int(bytes)
        .Int(row.copy_kind)
        .Null()  // deprecatedSrcId
        .Int(row.src_kind)
        .Int(row.dst_kind);
    // Endpoint ids are NULL on ordinary copies in real exports; set only for cross-device ones.
    EndpointIds(b, row.src_device, row.context);
    EndpointIds(b, row.dst_device, row.context);
    if (IsAtLeast2021(options_.schema)) b.Null();  // migrationCause
    b.Null();                                      // graphNodeId
    if (IsAtLeast2021(options_.schema)) b.Null();  // virtualAddress
    if (options_.schema == NsysSchema::k2025) b.Int(row.copy_count);
    b.Step();
  }

  void AddMemset(const MemsetRow& row) {
    EnsureUsable();
    CheckTimes(row.start_ns, row.end_ns, "MemsetRow");
    CheckPid(row.pid, "MemsetRow.pid");
    const int64_t bytes = CheckedBytes(row.bytes);
    sqlite3_stmt* stmt = TableInsert(Table::kMemset);
    Binder b(this, stmt);
    BindActivityPrefix(b, row);
    b.Int(row.value)
        .Int(bytes)
        .Null()  // graphNodeId
        .Int(row.mem_kind)
        .Step();
  }

  void AddNvtx(const NvtxRow& row) {
    EnsureUsable();
    CheckPid(row.pid, "NvtxRow.pid");
    CheckPid(row.tid, "NvtxRow.tid");
    sqlite3_stmt* stmt = TableInsert(Table::kNvtx);
    std::optional<int64_t> text_id;
    if (row.registered_text) text_id = Intern(*row.registered_text);
    Binder b(this, stmt);
    b.Int(row.start_ns)
        .OptInt(row.end_ns)
        .Int(row.event_type)
        .OptInt(row.range_id)
        .Null()  // category
        .Null()  // color
        .OptText(row.text)
        .Int(GlobalPid(row.pid) | row.tid)
        .Null()  // endGlobalTid: same thread
        .OptInt(text_id)
        .Int(row.domain_id);
    for (int i = 0; i < 8; ++i)
      b.Null();  // payload union, jsonTextId, jsonText
    b.Step();
  }

  void AddApiCall(const ApiCallRow& row) {
    EnsureUsable();
    CheckPid(row.pid, "ApiCallRow.pid");
    CheckPid(row.tid, "ApiCallRow.tid");
    sqlite3_stmt* stmt = TableInsert(Table::kRuntime);
    const int64_t name_id = Intern(row.name);
    Binder b(this, stmt);
    b.Int(row.start_ns)
        .Int(row.end_ns)
        .Int(row.driver ? 1 : 0)
        .Int(GlobalPid(row.pid) | row.tid)
        .Int(row.correlation)
        .Int(name_id)
        .Int(0);                                   // returnValue: success
    if (IsAtLeast2021(options_.schema)) b.Null();  // callchainId
    b.Step();
  }

  void CreateEmptyTable(Table table) {
    EnsureUsable();
    TableInsert(table);
  }

  void SetEnumRow(std::string_view enum_table, int id, std::string name, std::string label) {
    EnsureUsable();
    if (!HasEnumTables(options_.schema)) {
      throw std::invalid_argument(fmt::format(
          "NsysSqliteBuilder: this schema has no ENUM_* tables (they appeared in 2022.4); "
          "cannot set a row of {}",
          enum_table));
    }
    EnumRows* rows = EnumRowsFor(enum_table);
    (*rows)[id] = {std::move(name), std::move(label)};
  }

  void SetMetadata(std::string name, std::string value) {
    EnsureUsable();
    if (!IsAtLeast2021(options_.schema)) {
      throw std::invalid_argument(
          "NsysSqliteBuilder: 2020-era exports have no metadata table; cannot set " + name);
    }
    for (auto& [key, old_value] : metadata_) {
      if (key == name) {
        old_value = std::move(value);
        return;
      }
    }
    metadata_.emplace_back(std::move(name), std::move(value));
  }

  void Finish() {
    EnsureUsable();
    try {
      WriteMetadata();
      if (HasEnumTables(options_.schema)) {
        WriteEnum(kMemcpyOperTable, "CUDA memcpy operation labels", memcpy_oper_rows_);
        WriteEnum(kMemKindTable, "CUDA memory kind labels", mem_kind_rows_);
      }
      Exec("COMMIT");
      ReleaseStatements();
      sqlite3* db = db_.release();
      if (sqlite3_close(db) != SQLITE_OK) {
        std::string message = sqlite3_errmsg(db);
        sqlite3_close_v2(db);
        throw std::runtime_error(
            fmt::format("NsysSqliteBuilder: closing {}: {}", temp_.string(), message));
      }
      std::error_code ec;
      std::filesystem::rename(temp_, output_, ec);
      if (ec) {
        throw std::runtime_error(fmt::format("NsysSqliteBuilder: renaming {} to {}: {}",
                                             temp_.string(), output_.string(), ec.message()));
      }
      state_ = State::kFinished;
    } catch (...) {
      state_ = State::kFailed;
      throw;
    }
  }

 private:
  enum class State { kOpen, kFailed, kFinished };

  // Binds the parameters of one INSERT left to right, then steps and resets it. Checking the
  // parameter count at Step() catches a row writer that drifted from its column list.
  class Binder {
   public:
    Binder(Impl* impl, sqlite3_stmt* stmt) : impl_(impl), stmt_(stmt) {}
    Binder& Int(int64_t value) {
      impl_->Check(sqlite3_bind_int64(stmt_, ++index_, value), "binding a parameter");
      return *this;
    }
    Binder& OptInt(const std::optional<int64_t>& value) { return value ? Int(*value) : Null(); }
    Binder& Null() {
      impl_->Check(sqlite3_bind_null(stmt_, ++index_), "binding a parameter");
      return *this;
    }
    Binder& Text(std::string_view value) {
      // SQLITE_STATIC is safe: the string outlives Step(), which copies it into the page.
      impl_->Check(sqlite3_bind_text(stmt_, ++index_, value.data(), static_cast<int>(value.size()),
                                     SQLITE_STATIC),
                   "binding a parameter");
      return *this;
    }
    Binder& OptText(const std::optional<std::string>& value) {
      return value ? Text(*value) : Null();
    }
    void Step() {
      if (index_ != sqlite3_bind_parameter_count(stmt_)) {
        throw std::logic_error(fmt::format("NsysSqliteBuilder: bound {} of {} parameters of {}",
                                           index_, sqlite3_bind_parameter_count(stmt_),
                                           sqlite3_sql(stmt_)));
      }
      const int rc = sqlite3_step(stmt_);
      sqlite3_reset(stmt_);
      impl_->Check(rc, "inserting a row");
    }

   private:
    Impl* impl_;
    sqlite3_stmt* stmt_;
    int index_ = 0;
  };

  // The columns a kernel, memcpy or memset row starts with: start, end, deviceId, contextId,
  // greenContextId (0, in schemas that have it), streamId, correlationId, globalPid.
  template <typename Row>
  void BindActivityPrefix(Binder& b, const Row& row) {
    b.OptInt(row.start_ns).OptInt(row.end_ns).Int(row.device).Int(row.context);
    if (HasGreenContext(options_.schema)) b.Int(0);
    b.Int(row.stream).Int(row.correlation).Int(GlobalPid(row.pid));
  }

  void Open() {
    std::error_code ec;
    std::filesystem::remove(temp_, ec);  // a stale file from a crashed run; open reports errors
    sqlite3* raw = nullptr;
    // NOMUTEX: one builder, one thread; SQLite's per-call locking is measurable at 10M rows.
    const int rc =
        sqlite3_open_v2(temp_.c_str(), &raw,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    db_.reset(raw);
    if (rc != SQLITE_OK) {
      throw std::runtime_error(fmt::format("NsysSqliteBuilder: cannot create {}: {}",
                                           temp_.string(),
                                           raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)));
    }
    // The file is scratch until renamed, so durability is worthless: no journal, no fsync, and
    // one transaction for everything keeps 10M-row files well under a minute.
    Exec(
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; "
        "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-65536; BEGIN");
    Exec(
        "CREATE TABLE StringIds (\n"
        "    -- Consolidation of repetitive string values.\n"
        "    id                          INTEGER   NOT NULL   PRIMARY KEY,\n"
        "    value                       TEXT      NOT NULL\n"
        ");");
    string_insert_ = Prepare("INSERT INTO StringIds (id, value) VALUES (?, ?)");
    metadata_ = DefaultMetadata(options_.schema);
    if (HasEnumTables(options_.schema)) {
      memcpy_oper_rows_ = DefaultMemcpyOperRows();
      mem_kind_rows_ = DefaultMemKindRows();
    }
  }

  // Closes the database and deletes the temporary file; used on every path that does not end in
  // a successful Finish(), so it must not throw.
  void Discard() noexcept {
    ReleaseStatements();
    db_.reset();
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }

  void ReleaseStatements() noexcept {
    string_insert_.reset();
    gpu_insert_.reset();
    for (Stmt& stmt : table_inserts_)
      stmt.reset();
  }

  void EnsureUsable() const {
    if (state_ == State::kFinished) {
      throw std::logic_error("NsysSqliteBuilder: called after Finish()");
    }
    if (state_ == State::kFailed) {
      throw std::logic_error(
          "NsysSqliteBuilder: an earlier SQLite error left the builder unusable");
    }
  }

  void Check(int rc, std::string_view what) {
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return;
    state_ = State::kFailed;
    throw std::runtime_error(fmt::format("NsysSqliteBuilder: {} in {}: {}", what, temp_.string(),
                                         db_ ? sqlite3_errmsg(db_.get()) : sqlite3_errstr(rc)));
  }

  void Exec(const std::string& sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, &error);
    if (rc != SQLITE_OK) {
      std::string message = error ? error : sqlite3_errstr(rc);
      sqlite3_free(error);
      state_ = State::kFailed;
      throw std::runtime_error(
          fmt::format("NsysSqliteBuilder: `{}` in {}: {}", sql, temp_.string(), message));
    }
  }

  Stmt Prepare(const std::string& sql) {
    sqlite3_stmt* raw = nullptr;
    Check(sqlite3_prepare_v2(db_.get(), sql.c_str(), -1, &raw, nullptr), "preparing " + sql);
    return Stmt(raw);
  }

  void CheckTimes(const std::optional<int64_t>& start, const std::optional<int64_t>& end,
                  const char* what) const {
    if (options_.allow_nulls || (start && end)) return;
    throw std::invalid_argument(
        fmt::format("NsysSqliteBuilder: {}.{} is null; set BuilderOptions::allow_nulls to write "
                    "null timestamps",
                    what, start ? "end_ns" : "start_ns"));
  }

  // Creates the table on first use (nsys creates tables lazily) and returns its INSERT.
  sqlite3_stmt* TableInsert(Table table) {
    Stmt& stmt = table_inserts_[static_cast<std::size_t>(table)];
    if (stmt) return stmt.get();
    std::vector<Column> columns;
    switch (table) {
      case Table::kKernel:
        columns = KernelColumns(options_.schema);
        break;
      case Table::kMemcpy:
        columns = MemcpyColumns(options_.schema);
        break;
      case Table::kMemset:
        columns = MemsetColumns(options_.schema);
        break;
      case Table::kNvtx:
        columns = NvtxColumns();
        break;
      case Table::kRuntime:
        columns = RuntimeColumns(options_.schema);
        break;
    }
    Exec(CreateTableSql(TableName(table), columns, options_.allow_nulls));
    stmt = Prepare(InsertAllSql(TableName(table), columns.size()));
    return stmt.get();
  }

  int64_t Intern(std::string_view value) {
    if (auto it = strings_.find(value); it != strings_.end()) return it->second;
    const int64_t id = next_string_id_++;
    Binder(this, string_insert_.get()).Int(id).Text(value).Step();
    strings_.emplace(std::string(value), id);
    return id;
  }

  static void EndpointIds(Binder& b, const std::optional<int32_t>& device, uint32_t context) {
    if (device) {
      b.Int(*device).Int(context);
    } else {
      b.Null().Null();
    }
  }

  EnumRows* EnumRowsFor(std::string_view enum_table) {
    if (enum_table == kMemcpyOperTable) return &memcpy_oper_rows_;
    if (enum_table == kMemKindTable) return &mem_kind_rows_;
    throw std::invalid_argument(
        fmt::format("NsysSqliteBuilder: unsupported enum table '{}' (expected {} or {})",
                    enum_table, kMemcpyOperTable, kMemKindTable));
  }

  void WriteMetadata() {
    if (!IsAtLeast2021(options_.schema)) return;
    // nsys 2023.3 renamed the table; the columns stayed the same.
    const char* table =
        options_.schema >= NsysSchema::k2024 ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
    Exec(
        fmt::format("CREATE TABLE {} (\n"
                    "    -- information about nsys export process\n\n"
                    "    name                        TEXT      NOT NULL,\n"
                    "    value                       TEXT\n"
                    ");",
                    table));
    Stmt insert = Prepare(fmt::format("INSERT INTO {} (name, value) VALUES (?, ?)", table));
    for (const auto& [name, value] : metadata_) {
      Binder(this, insert.get()).Text(name).Text(value).Step();
    }
  }

  void WriteEnum(const char* table, const char* description, const EnumRows& rows) {
    Exec(
        fmt::format("CREATE TABLE {} (\n"
                    "    -- {}\n\n"
                    "    id                          INTEGER   NOT NULL   PRIMARY KEY,\n"
                    "    name                        TEXT,\n"
                    "    label                       TEXT\n"
                    ");",
                    table, description));
    Stmt insert = Prepare(fmt::format("INSERT INTO {} (id, name, label) VALUES (?, ?, ?)", table));
    for (const auto& [id, name_label] : rows) {
      Binder(this, insert.get()).Int(id).Text(name_label.first).Text(name_label.second).Step();
    }
  }

  std::filesystem::path output_;
  std::filesystem::path temp_;
  BuilderOptions options_;
  State state_ = State::kOpen;
  // Declared before the statements so that they are finalized before the database closes.
  Db db_;
  Stmt string_insert_;
  Stmt gpu_insert_;
  std::array<Stmt, 5> table_inserts_;
  std::unordered_map<std::string, int64_t, StringHash, std::equal_to<>> strings_;
  int64_t next_string_id_ = 0;  // real exports number StringIds from 0
  int64_t next_grid_id_ = 1;
  std::vector<std::pair<std::string, std::string>> metadata_;
  EnumRows memcpy_oper_rows_;
  EnumRows mem_kind_rows_;
};

NsysSqliteBuilder::NsysSqliteBuilder(std::filesystem::path output, BuilderOptions options)
    : impl_(std::make_unique<Impl>(std::move(output), options)) {}

NsysSqliteBuilder::~NsysSqliteBuilder() = default;
NsysSqliteBuilder::NsysSqliteBuilder(NsysSqliteBuilder&&) noexcept = default;
NsysSqliteBuilder& NsysSqliteBuilder::operator=(NsysSqliteBuilder&&) noexcept = default;

void NsysSqliteBuilder::AddGpu(int32_t id, std::string name) {
  impl_->AddGpu(id, name);
}

void NsysSqliteBuilder::AddDomain(uint32_t domain_id, std::string name, uint32_t pid) {
  NvtxRow row;
  row.start_ns = 0;
  row.event_type = 75;  // NvtxDomainCreate
  row.text = std::move(name);
  row.domain_id = domain_id;
  row.pid = pid;
  row.tid = pid;
  impl_->AddNvtx(row);
}

void NsysSqliteBuilder::AddKernel(const KernelRow& row) {
  impl_->AddKernel(row);
}
void NsysSqliteBuilder::AddMemcpy(const MemcpyRow& row) {
  impl_->AddMemcpy(row);
}
void NsysSqliteBuilder::AddMemset(const MemsetRow& row) {
  impl_->AddMemset(row);
}
void NsysSqliteBuilder::AddNvtx(const NvtxRow& row) {
  impl_->AddNvtx(row);
}

void NsysSqliteBuilder::AddApiCall(const ApiCallRow& row) {
  impl_->AddApiCall(row);
}
void NsysSqliteBuilder::CreateEmptyTable(Table table) {
  impl_->CreateEmptyTable(table);
}

void NsysSqliteBuilder::SetEnumRow(std::string_view enum_table, int id, std::string name,
                                   std::string label) {
  impl_->SetEnumRow(enum_table, id, std::move(name), std::move(label));
}

void NsysSqliteBuilder::SetMetadata(std::string name, std::string value) {
  impl_->SetMetadata(std::move(name), std::move(value));
}

void NsysSqliteBuilder::Finish() {
  impl_->Finish();
}

}  // namespace gpuroof::testsupport
