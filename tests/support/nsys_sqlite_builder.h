// Writes SQLite files shaped like `nsys export --type sqlite` output, for tests, benchmarks and
// the bundled example trace. Only the tables gpuroof reads are produced; their column names,
// order and NOT NULL constraints are copied from real exports of each era, so a reader that works
// on these files meets the same schema drift as on real ones.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gpuroof::testsupport {

// Which generation of the nsys export schema to imitate. Each value matches the layout of the
// real exports of that era; the differences are exactly the ones a reader must adapt to.
enum class NsysSchema {
  // 2020.3-style: TARGET_INFO_GPU keyed by `deviceId` (5 columns), no metadata table, no ENUM_*
  // tables, KERNEL without mangledName/sharedMemoryLimitConfig, MEMCPY without
  // migrationCause/virtualAddress.
  k2020,
  // 2021.5.2: TARGET_INFO_GPU keyed by `id` (41 columns), EXPORT_META_DATA (schema 2.7.0), still
  // no ENUM_* tables.
  k2021,
  // 2022.4.2: as k2021 plus ENUM_CUDA_MEMCPY_OPER and ENUM_CUDA_MEM_KIND (schema 3.0.0).
  k2022,
  // 2024.6.2: as k2022 plus `greenContextId` on KERNEL/MEMCPY/MEMSET, metadata in
  // META_DATA_EXPORT (schema 3.16.1).
  k2024,
  // 2025.1.3: as k2024 plus MEMCPY `copyCount` (schema 3.17.2): a cudaMemcpyBatchAsync row may
  // stand for several copies.
  k2025,
};

struct BuilderOptions {
  NsysSchema schema = NsysSchema::k2024;
  // Declares the activity tables (KERNEL, MEMCPY, MEMSET, NVTX_EVENTS) without NOT NULL so that
  // rows with null timestamps can be written, to test how a reader copes with damaged files.
  bool allow_nulls = false;
};

// One CUPTI_ACTIVITY_KIND_KERNEL row. Columns not listed here get plausible constants
// (registersPerThread 32, launchType 1, an increasing gridId, ...).
struct KernelRow {
  std::optional<int64_t> start_ns;  // null only with BuilderOptions::allow_nulls
  std::optional<int64_t> end_ns;
  int32_t device = 0;
  uint32_t context = 1;
  uint32_t stream = 7;
  uint32_t pid = 4242;  // must fit in 24 bits (globalPid encoding)
  uint32_t correlation = 0;
  std::string short_name = "kernel";
  std::string demangled_name;  // empty -> same as short_name
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
};

// One CUPTI_ACTIVITY_KIND_MEMCPY row.
struct MemcpyRow {
  std::optional<int64_t> start_ns;
  std::optional<int64_t> end_ns;
  int32_t device = 0;
  uint32_t context = 1;
  uint32_t stream = 7;
  uint32_t pid = 4242;
  uint32_t correlation = 0;
  // nsys/CUPTI numbering (ENUM_CUDA_MEMCPY_OPER): 0 Unknown, 1 HtoD, 2 DtoH, 3 HtoA, 4 AtoH,
  // 5 AtoA, 6 AtoD, 7 DtoA, 8 DtoD, 9 HtoH, 10 PtoP, 11-13 unified-memory HtoD/DtoH/DtoD.
  int copy_kind = 1;
  uint64_t bytes = 0;
  // nsys ENUM_CUDA_MEM_KIND numbering: 0 Pageable, 1 Pinned, 2 Device, 3 Array, 4 Managed,
  // 5 Device Static, 6 Managed Static, 7 Unknown.
  int src_kind = 0;
  int dst_kind = 2;
  // Peer/cross-device endpoints; when set, the matching src/dstContextId is set to `context`.
  std::optional<int32_t> src_device;
  std::optional<int32_t> dst_device;
  // copyCount (k2025 only): how many batched copies the row stands for; 1 on ordinary copies.
  int64_t copy_count = 1;
};

// One CUPTI_ACTIVITY_KIND_MEMSET row.
struct MemsetRow {
  std::optional<int64_t> start_ns;
  std::optional<int64_t> end_ns;
  int32_t device = 0;
  uint32_t context = 1;
  uint32_t stream = 7;
  uint32_t pid = 4242;
  uint32_t correlation = 0;
  uint64_t bytes = 0;
  int value = 0;     // the fill byte
  int mem_kind = 2;  // ENUM_CUDA_MEM_KIND numbering, see MemcpyRow
};

// One NVTX_EVENTS row.
struct NvtxRow {
  int64_t start_ns = 0;
  std::optional<int64_t> end_ns;  // null for marks and domain creation
  // ENUM_NSYS_EVENT_TYPE: 59 push/pop range, 60 start/end range, 34 mark, 75 domain create.
  int event_type = 59;
  std::optional<std::string> text;             // inline NVTX_EVENTS.text
  std::optional<std::string> registered_text;  // interned in StringIds, row gets textId
  uint32_t domain_id = 0;
  uint32_t pid = 4242;  // 24 bits, like tid
  uint32_t tid = 4242;
  std::optional<int64_t> range_id;
};

// One CUPTI_ACTIVITY_KIND_RUNTIME row: a CUDA runtime (or driver) API call on a CPU thread.
struct ApiCallRow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t pid = 4242;  // 24 bits, like tid; globalTid = globalPid | tid
  uint32_t tid = 4242;
  uint32_t correlation = 0;  // names the GPU ops it launched (same process)
  std::string name = "cudaLaunchKernel_v7000";
  bool driver = false;  // eventClass 1 (driver) instead of 0 (runtime)
};

// Builds one nsys-style SQLite file. Rows are written as they are added, inside a single
// transaction with journaling off, so millions of rows stay cheap. The file is written under
// `output` + ".tmp" and only renamed to `output` by Finish(), so an interrupted or failed build
// never leaves a partial file where a reader would find it.
//
// Errors: SQLite failures throw std::runtime_error (message names the file and SQLite's error);
// after one, the builder refuses further calls. Invalid arguments (pid wider than 24 bits, a null
// timestamp without allow_nulls, an enum table the schema lacks) throw std::invalid_argument and
// leave the builder usable. Calls after Finish() throw std::logic_error.
class NsysSqliteBuilder {
 public:
  // Opens `output` + ".tmp" (replacing any stale one), creates StringIds and begins the
  // transaction. Nothing appears at `output` until Finish().
  explicit NsysSqliteBuilder(std::filesystem::path output, BuilderOptions options = {});
  // If Finish() was not called (or failed), removes the temporary file. Never throws.
  ~NsysSqliteBuilder();

  // Movable; a moved-from builder may only be destroyed or assigned to.
  NsysSqliteBuilder(const NsysSqliteBuilder&) = delete;
  NsysSqliteBuilder& operator=(const NsysSqliteBuilder&) = delete;
  NsysSqliteBuilder(NsysSqliteBuilder&&) noexcept;
  NsysSqliteBuilder& operator=(NsysSqliteBuilder&&) noexcept;

  // Adds a TARGET_INFO_GPU row (key column `deviceId` for k2020, `id` later) with the given name
  // and fixed plausible properties (discrete, 2 async engines, 32 threads per warp, ...).
  void AddGpu(int32_t id, std::string name);
  // Adds an NVTX domain-creation row (eventType 75, start 0, text = name) on the main thread of
  // `pid`; NVTX rows with the same domain_id and pid are then shown as "name:<text>".
  void AddDomain(uint32_t domain_id, std::string name, uint32_t pid = 4242);
  // Add one activity row each, creating the table on first use. globalPid is
  // (1 << 48) | (pid << 24); NVTX globalTid is globalPid | tid.
  void AddKernel(const KernelRow& row);
  void AddMemcpy(const MemcpyRow& row);
  void AddMemset(const MemsetRow& row);
  void AddNvtx(const NvtxRow& row);
  void AddApiCall(const ApiCallRow& row);

  enum class Table { kKernel, kMemcpy, kMemset, kNvtx, kRuntime };
  // Creates `table` even if it never gets a row. nsys creates tables lazily, so an empty table
  // is normally absent; this produces the unusual present-but-empty case. Idempotent.
  void CreateEmptyTable(Table table);

  // Overrides or adds a row of ENUM_CUDA_MEMCPY_OPER or ENUM_CUDA_MEM_KIND (k2022 and later only;
  // std::invalid_argument otherwise), so tests can check that a reader honours the file's own
  // enum rather than a built-in copy. Written by Finish().
  void SetEnumRow(std::string_view enum_table, int id, std::string name, std::string label);
  // Overrides or adds a metadata row (EXPORT_META_DATA for k2021/k2022, META_DATA_EXPORT for
  // k2024; std::invalid_argument for k2020, which has no metadata table). Written by Finish().
  void SetMetadata(std::string name, std::string value);

  // Writes metadata and enum tables, commits, closes, and renames the file to `output`
  // atomically (replacing an existing file). No other call is allowed afterwards.
  void Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuroof::testsupport
