#include "gpuroof/recorder/record_sink.h"

#include <map>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <sqlite3.h>

#include "gpuroof/model/kernel_names.h"
#include "gpuroof/recorder/enum_conversion.h"
#include "gpuroof/recorder/nvtx_pairing.h"

namespace gpuroof::recorder {
namespace {

// Column lists follow an nsys 2025.1.3 export (schema 3.17.2: 2024.6.2's tables plus MEMCPY's
// `copyCount`), in order; the recorder fills what CUPTI activity records carry and leaves the rest
// NULL, as nsys does for absent data.
constexpr std::string_view kSchema = R"sql(
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER,
  launchType INTEGER, cacheConfig INTEGER, registersPerThread INTEGER NOT NULL,
  gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL,
  blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL,
  localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL,
  gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER,
  sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL,
  copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER,
  srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER,
  migrationCause INTEGER, graphNodeId INTEGER, virtualAddress INTEGER, copyCount INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, greenContextId INTEGER,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL,
  bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
CREATE TABLE TARGET_INFO_GPU (vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT,
  busLocation TEXT, isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER,
  memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, pwGpuId INTEGER, uuid TEXT,
  luid INTEGER, chipName TEXT, cuDevice INTEGER, ctxswDevPath TEXT, ctrlDevPath TEXT,
  revision INTEGER, nodeMask INTEGER, constantMemory INTEGER, maxIPC INTEGER,
  maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, maxShmemPerBlockOptin INTEGER,
  maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER,
  asyncEngines INTEGER, maxWarpsPerSm INTEGER, maxBlocksPerSm INTEGER,
  maxThreadsPerBlock INTEGER, maxBlockDimX INTEGER, maxBlockDimY INTEGER,
  maxBlockDimZ INTEGER, maxGridDimX INTEGER, maxGridDimY INTEGER, maxGridDimZ INTEGER,
  computeMajor INTEGER, computeMinor INTEGER, smMajor INTEGER, smMinor INTEGER);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL,
  label TEXT NOT NULL);
CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL,
  label TEXT NOT NULL);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (id INTEGER NOT NULL PRIMARY KEY, name TEXT NOT NULL,
  label TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE RECORDER_STATS (name TEXT NOT NULL PRIMARY KEY, value INTEGER NOT NULL);
)sql";

struct EnumRow {
  int id;
  const char* name;
  const char* label;
};

constexpr EnumRow kCopyKinds[] = {{0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"},
                                  {1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
                                  {2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"},
                                  {3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array"},
                                  {4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host"},
                                  {5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array"},
                                  {6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device"},
                                  {7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array"},
                                  {8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
                                  {9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host"},
                                  {10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"}};

constexpr EnumRow kMemoryKinds[] = {{0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
                                    {1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned"},
                                    {2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
                                    {3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array"},
                                    {4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed"},
                                    {5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
                                    {6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static"},
                                    {7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"}};

constexpr EnumRow kEventTypes[] = {{34, "NVTX_MARK", "NVTX Mark"},
                                   {59, "NVTX_PUSHPOP_RANGE", "NVTX PushPop Range"},
                                   {60, "NVTX_STARTEND_RANGE", "NVTX StartEnd Range"},
                                   {75, "NVTX_DOMAIN_CREATE", "NVTX Domain Create"}};

constexpr int kNvtxDomainCreate = 75;

struct StmtDeleter {
  void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

// CUPTI leaves start or end 0 for a record still on the GPU at exit or lost in a too-small
// device buffer; an end before its start is as unusable. Such a record is counted, not written:
// readers would reject it (end before start) or place it at the epoch.
bool HasTimestamp(int64_t start_ns, int64_t end_ns) {
  return start_ns != 0 && end_ns != 0 && end_ns >= start_ns;
}

}  // namespace

class RecordSink::Impl {
 public:
  Impl(std::filesystem::path final_path, SinkOptions options)
      : final_(std::move(final_path)), options_(std::move(options)) {
    temp_ = final_;
    temp_ += ".tmp";
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);  // a stale file from a killed run
    try {
      Open();
    } catch (...) {
      Discard();
      throw;
    }
  }

  ~Impl() {
    if (!finished_) Discard();
  }

  void AddKernel(const KernelRecord& r) {
    if (!HasTimestamp(r.start_ns, r.end_ns)) {
      ++stats_.zero_timestamps;
      return;
    }
    const KernelNames& names = NamesOf(r.mangled_name);
    Bind b(this, kernel_.get());
    BindActivity(b, r);
    b.Int(names.demangled).Int(names.short_name).Int(names.mangled);
    b.Int(r.launch_type).Int(r.cache_config).Int(r.registers_per_thread);
    for (int32_t g : r.grid)
      b.Int(g);
    for (int32_t k : r.block)
      b.Int(k);
    b.Int(r.static_shared_memory).Int(r.dynamic_shared_memory).Int(r.local_memory_per_thread);
    b.Int(static_cast<int64_t>(r.local_memory_total)).Int(r.grid_id).Null();
    b.OptionalId(r.graph_node_id).Null();
    b.Step();
    ++stats_.kernels;
  }

  void AddMemcpy(const MemcpyRecord& r) {
    if (!HasTimestamp(r.start_ns, r.end_ns)) {
      ++stats_.zero_timestamps;
      return;
    }
    Bind b(this, memcpy_.get());
    BindActivity(b, r);
    b.Bytes(r.bytes).Int(NsysCopyKind(r.copy_kind)).Null();
    b.Int(NsysMemoryKind(r.cupti_src_kind)).Int(NsysMemoryKind(r.cupti_dst_kind));
    b.OptionalInt(r.src_device).OptionalInt(r.src_context);
    b.OptionalInt(r.dst_device).OptionalInt(r.dst_context);
    b.Null().OptionalId(r.graph_node_id).Null();
    b.Bytes(r.copy_count);
    b.Step();
    ++stats_.memcpys;
  }

  void AddMemset(const MemsetRecord& r) {
    if (!HasTimestamp(r.start_ns, r.end_ns)) {
      ++stats_.zero_timestamps;
      return;
    }
    Bind b(this, memset_.get());
    BindActivity(b, r);
    b.Int(r.value).Bytes(r.bytes);
    b.OptionalId(r.graph_node_id).Int(NsysMemoryKind(r.cupti_memory_kind));
    b.Step();
    ++stats_.memsets;
  }

  void AddMarker(const MarkerRecord& record) {
    std::optional<NvtxEvent> event = nvtx_.Add(record);
    if (!event) return;
    const int64_t domain_id = DomainId(event->domain, event->pid, event->tid);
    Bind b(this, nvtx_insert_.get());
    b.Int(event->start_ns);
    if (event->end_ns) {
      b.Int(*event->end_ns);
    } else {
      b.Null();
    }
    b.Int(event->event_type).Null().Null().Null().Text(event->text);
    b.Int(NsysGlobalTid(event->pid, event->tid));
    b.Int(NsysGlobalTid(event->pid, event->end_tid)).Null();
    if (domain_id == 0) {
      b.Null();
    } else {
      b.Int(domain_id);
    }
    b.Step();
    ++stats_.nvtx_events;
  }

  void AddDevice(const DeviceRecord& record) { devices_.insert_or_assign(record.id, record); }

  const SinkStats& Stats() {
    stats_.unpaired_markers = nvtx_.Unpaired();
    return stats_;
  }

  SinkStats Finish(int64_t dropped, int64_t failed_buffer_requests) {
    stats_.dropped = dropped;
    stats_.failed_buffer_requests = failed_buffer_requests;
    stats_.unpaired_markers = nvtx_.Unpaired();
    WriteDevices();
    WriteEnum("ENUM_CUDA_MEMCPY_OPER", kCopyKinds);
    WriteEnum("ENUM_CUDA_MEM_KIND", kMemoryKinds);
    WriteEnum("ENUM_NSYS_EVENT_TYPE", kEventTypes);
    WriteMetadata();
    WriteStats();
    Exec("COMMIT");
    // Indexes after the rows: one sort at the end instead of a B-tree update per insert.
    kernel_.reset();
    memcpy_.reset();
    memset_.reset();
    nvtx_insert_.reset();
    string_insert_.reset();
    Exec("CREATE INDEX recorder_kernel_start ON CUPTI_ACTIVITY_KIND_KERNEL (start)");
    if (sqlite3_close(db_) != SQLITE_OK) Fail("closing the file");
    db_ = nullptr;
    std::error_code error;
    std::filesystem::rename(temp_, final_, error);
    if (error) {
      throw std::runtime_error(final_.string() + ": cannot rename " + temp_.string() +
                               " into place: " + error.message());
    }
    finished_ = true;
    return stats_;
  }

 private:
  struct KernelNames {
    int64_t mangled;
    int64_t demangled;
    int64_t short_name;
  };

  // Binds one INSERT's parameters left to right, then steps and resets it.
  class Bind {
   public:
    Bind(Impl* sink, sqlite3_stmt* stmt) : sink_(sink), stmt_(stmt) {}
    Bind& Int(int64_t value) { return Check(sqlite3_bind_int64(stmt_, ++index_, value)); }
    Bind& Null() { return Check(sqlite3_bind_null(stmt_, ++index_)); }
    Bind& Text(const std::string& value) {
      return Check(sqlite3_bind_text(stmt_, ++index_, value.data(), static_cast<int>(value.size()),
                                     SQLITE_TRANSIENT));
    }
    // SQLite integers are signed; larger byte counts cannot come from one CUDA operation.
    Bind& Bytes(uint64_t value) { return Int(static_cast<int64_t>(value & ~(uint64_t{1} << 63))); }
    Bind& OptionalInt(int64_t value) { return value < 0 ? Null() : Int(value); }
    // Graph node ids are 64-bit; above INT64_MAX they keep their bits as a negative integer.
    Bind& OptionalId(uint64_t value) {
      return value == 0 ? Null() : Int(static_cast<int64_t>(value));
    }
    void Step() {
      if (sqlite3_step(stmt_) != SQLITE_DONE) sink_->Fail("writing a row");
      sqlite3_reset(stmt_);
    }

   private:
    Bind& Check(int rc) {
      if (rc != SQLITE_OK) sink_->Fail("binding a value");
      return *this;
    }
    Impl* sink_;
    sqlite3_stmt* stmt_;
    int index_ = 0;
  };

  // The columns every activity table starts with: start, end, deviceId, contextId,
  // greenContextId (none outside green contexts), streamId, correlationId, globalPid.
  void BindActivity(Bind& b, const GpuActivity& r) {
    b.Int(r.start_ns).Int(r.end_ns).Int(r.device).Int(r.context).Null().Int(r.stream);
    b.Int(r.correlation).Int(NsysGlobalPid(options_.pid));
  }

  void Open() {
    if (sqlite3_open_v2(temp_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
        SQLITE_OK) {
      Fail("creating the file");
    }
    // A scratch file renamed into place at the end: no journal or fsync is worth its cost.
    Exec("PRAGMA journal_mode=OFF");
    Exec("PRAGMA synchronous=OFF");
    Exec(std::string(kSchema));
    Exec("BEGIN");
    kernel_ = Prepare("CUPTI_ACTIVITY_KIND_KERNEL", 28);
    memcpy_ = Prepare("CUPTI_ACTIVITY_KIND_MEMCPY", 21);
    memset_ = Prepare("CUPTI_ACTIVITY_KIND_MEMSET", 12);
    nvtx_insert_ = Prepare("NVTX_EVENTS", 11,
                           "start, end, eventType, rangeId, category, "
                           "color, text, globalTid, endGlobalTid, textId, "
                           "domainId");
    string_insert_ = PrepareSql("INSERT INTO StringIds (id, value) VALUES (?, ?)");
  }

  Stmt Prepare(std::string_view table, int columns, std::string_view names = {}) {
    std::string sql = "INSERT INTO " + std::string(table);
    if (!names.empty()) sql += " (" + std::string(names) + ")";
    sql += " VALUES (";
    for (int i = 0; i < columns; ++i)
      sql += i == 0 ? "?" : ", ?";
    return PrepareSql(sql + ")");
  }

  Stmt PrepareSql(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      Fail("preparing a statement");
    }
    return Stmt(stmt);
  }

  void Exec(const std::string& sql) {
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
      Fail("running SQL");
    }
  }

  [[noreturn]] void Fail(std::string_view what) {
    std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    throw std::runtime_error(temp_.string() + ": " + std::string(what) + ": " + message);
  }

  void Discard() noexcept {
    kernel_.reset();
    memcpy_.reset();
    memset_.reset();
    nvtx_insert_.reset();
    string_insert_.reset();
    if (db_ != nullptr) sqlite3_close_v2(db_);
    db_ = nullptr;
    std::error_code ignored;
    std::filesystem::remove(temp_, ignored);
  }

  // StringIds is interned by content, ids from 1, like nsys's.
  int64_t Intern(const std::string& value) {
    auto [it, inserted] = strings_.try_emplace(value, static_cast<int64_t>(strings_.size()) + 1);
    if (inserted) {
      Bind b(this, string_insert_.get());
      b.Int(it->second).Text(value).Step();
    }
    return it->second;
  }

  // Demangling costs microseconds; a trace launches the same few kernels millions of times.
  const KernelNames& NamesOf(const std::string& mangled) {
    auto it = kernel_names_.find(mangled);
    if (it != kernel_names_.end()) return it->second;
    std::string demangled = DemangleKernelName(mangled);
    KernelNames names{Intern(mangled), Intern(demangled), Intern(ShortKernelName(demangled))};
    return kernel_names_.emplace(mangled, names).first->second;
  }

  // Domains get ids from 1 in order of appearance; each gets the domain-create row (event type
  // 75) readers use to show "domain:range".
  int64_t DomainId(const std::string& domain, uint32_t pid, uint32_t tid) {
    if (domain.empty()) return 0;
    auto [it, inserted] = domains_.try_emplace(domain, static_cast<int64_t>(domains_.size()) + 1);
    if (inserted) {
      Bind b(this, nvtx_insert_.get());
      b.Int(0).Null().Int(kNvtxDomainCreate).Null().Null().Null().Text(domain);
      b.Int(NsysGlobalTid(pid, tid)).Null().Null().Int(it->second).Step();
    }
    return it->second;
  }

  void WriteDevices() {
    Stmt insert = PrepareSql(
        "INSERT INTO TARGET_INFO_GPU (vmId, id, name, l2CacheSize, totalMemory, "
        "memoryBandwidth, clockRate, smCount, uuid, cuDevice, threadsPerWarp, asyncEngines, "
        "computeMajor, computeMinor, smMajor, smMinor) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?)");
    for (const auto& [id, d] : devices_) {
      Bind b(this, insert.get());
      b.Int(id).Text(d.name).Int(d.l2_cache_bytes).Bytes(d.total_memory_bytes);
      b.Bytes(d.memory_bandwidth_bytes_per_s).Bytes(d.clock_rate_hz).Int(d.sm_count);
      b.Text(d.uuid).Int(id).Int(d.threads_per_warp).Int(d.async_engines);
      b.Int(d.compute_major).Int(d.compute_minor).Int(d.compute_major).Int(d.compute_minor);
      b.Step();
    }
  }

  template <size_t N>
  void WriteEnum(const std::string& table, const EnumRow (&rows)[N]) {
    Stmt insert = PrepareSql("INSERT INTO " + table + " (id, name, label) VALUES (?, ?, ?)");
    for (const EnumRow& row : rows) {
      Bind(this, insert.get()).Int(row.id).Text(row.name).Text(row.label).Step();
    }
  }

  void WriteMetadata() {
    const std::vector<std::pair<std::string, std::string>> rows = {
        {"EXPORT_PRODUCT_NAME", "gpuroof record"},
        {"EXPORT_PRODUCT_VERSION", "gpuroof-recorder 1"},
        // The nsys schema whose names and columns this file follows, for the subset it holds.
        {"EXPORT_SCHEMA_VERSION", "3.17.2"},
        {"EXPORT_PLATFORM", "linux"},
        // Timestamps are CUPTI's: CLOCK_REALTIME ns since the epoch, not relative to a start.
        {"TIME_BASE", "CLOCK_REALTIME"},
        {"CUPTI_VERSION", options_.cupti_version}};
    Stmt insert = PrepareSql("INSERT INTO META_DATA_EXPORT (name, value) VALUES (?, ?)");
    for (const auto& [name, value] : rows) {
      Bind(this, insert.get()).Text(name).Text(value).Step();
    }
  }

  void WriteStats() {
    const std::pair<const char*, int64_t> rows[] = {
        {"kernels", stats_.kernels},
        {"memcpys", stats_.memcpys},
        {"memsets", stats_.memsets},
        {"nvtx_events", stats_.nvtx_events},
        {"records_written", stats_.RecordsWritten()},
        {"zero_timestamps", stats_.zero_timestamps},
        {"unpaired_markers", stats_.unpaired_markers},
        {"dropped", stats_.dropped},
        {"failed_buffer_requests", stats_.failed_buffer_requests}};
    Stmt insert = PrepareSql("INSERT INTO RECORDER_STATS (name, value) VALUES (?, ?)");
    for (const auto& [name, value] : rows) {
      Bind(this, insert.get()).Text(name).Int(value).Step();
    }
  }

  std::filesystem::path final_;
  std::filesystem::path temp_;
  SinkOptions options_;
  sqlite3* db_ = nullptr;
  Stmt kernel_, memcpy_, memset_, nvtx_insert_, string_insert_;
  std::unordered_map<std::string, int64_t> strings_;
  std::unordered_map<std::string, KernelNames> kernel_names_;
  std::unordered_map<std::string, int64_t> domains_;
  std::map<uint32_t, DeviceRecord> devices_;
  NvtxPairing nvtx_;
  SinkStats stats_;
  bool finished_ = false;
};

RecordSink::RecordSink(std::filesystem::path final_path, SinkOptions options)
    : impl_(std::make_unique<Impl>(std::move(final_path), std::move(options))) {}
RecordSink::~RecordSink() = default;

void RecordSink::AddKernel(const KernelRecord& record) {
  impl_->AddKernel(record);
}
void RecordSink::AddMemcpy(const MemcpyRecord& record) {
  impl_->AddMemcpy(record);
}
void RecordSink::AddMemset(const MemsetRecord& record) {
  impl_->AddMemset(record);
}
void RecordSink::AddMarker(const MarkerRecord& record) {
  impl_->AddMarker(record);
}
void RecordSink::AddDevice(const DeviceRecord& record) {
  impl_->AddDevice(record);
}
const SinkStats& RecordSink::Stats() const {
  return impl_->Stats();
}
SinkStats RecordSink::Finish(int64_t dropped_records, int64_t failed_buffer_requests) {
  return impl_->Finish(dropped_records, failed_buffer_requests);
}

}  // namespace gpuroof::recorder
