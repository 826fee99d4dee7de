#include "gpuroof/readers/nsys_sqlite_reader.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <unordered_map>

#include <fmt/format.h>
#include <sqlite3.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/exact_duplicates.h"
#include "gpuroof/model/parallel_for.h"
#include "gpuroof/model/time_limits.h"
#include "gpuroof/readers/memory_rate_check.h"
#include "gpuroof/readers/nsys_api_calls.h"
#include "gpuroof/readers/nsys_enums.h"
#include "gpuroof/readers/nsys_tables.h"
#include "gpuroof/readers/sqlite_database.h"

namespace gpuroof {

namespace {

// A kernel row's NULL shortName (a damaged export), as its file string id, and its name.
constexpr int64_t kNullNameId = -2;
constexpr std::string_view kUnnamedKernel = "(unnamed kernel)";
// An activity row equal to an earlier one in every column read (model/exact_duplicates.h).
constexpr std::string_view kDuplicateRowReason = "exact duplicate row";
// The name of an NVTX range that has none in the file (neither text nor textId).
constexpr std::string_view kUnnamedRange = "(unnamed range)";

enum class TableKind { kKernel, kMemcpy, kMemset, kGraph };

// NVTX_EVENTS.eventType values that are complete ranges, and the domain-create row.
constexpr int64_t kNvtxPushPopRange = 59;
constexpr int64_t kNvtxStartEndRange = 60;
constexpr int64_t kNvtxtPushPopRange = 70;
constexpr int64_t kNvtxtStartEndRange = 71;
constexpr int64_t kNvtxDomainCreate = 75;

// globalTid/globalPid packing (docs/formats.md, "Inputs"): bits 24-47 are the pid.
constexpr uint64_t kGlobalPidMask = 0xFFFFFFFFFF000000ULL;

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The SELECT list of one activity table, with fixed result positions whatever the nsys version:
// a column the file lacks is selected as a constant.
struct ColumnPlan {
  std::string select_list;
  std::string table;
};

// Column order of every activity SELECT; kernel/copy specific ones follow.
enum Col : int {
  kStart,
  kEnd,
  kDevice,
  kContext,
  kStream,
  kCorrelation,
  kPid,
  kFirstSpecific,
};
// Kernel-specific positions.
enum KernelCol : int {
  kShortName = kFirstSpecific,
  kDemangledName,
  kGridX,
  kGridY,
  kGridZ,
  kBlockX,
  kBlockY,
  kBlockZ,
};
// Copy-specific positions.
enum CopyCol : int {
  kBytes = kFirstSpecific,
  kCopyKind,
  kSrcKind,
  kDstKind,
  kSrcDevice,
  kDstDevice,
  kCopyCount,
};
// Memset-specific positions.
enum MemsetCol : int {
  kMemsetBytes = kFirstSpecific,
  kMemKind,
};

// What a read takes beyond the engine load's columns (see ReadDetail).
struct ColumnSet {
  bool kinds = true;        // memory kinds, peer devices
  bool correlation = true;  // process, context, correlation id (and the API calls)
  bool shapes = true;       // demangled name, grid, block
  bool demangled = true;    // with shapes: the demangled name too
};

ColumnSet ColumnsFor(const NsysReadOptions& options, bool has_nvtx, bool has_api_calls) {
  switch (options.detail) {
    case ReadDetail::kFull:
      break;
    case ReadDetail::kEngineLoad:
      return {false, false, false, false};
    case ReadDetail::kBreakdown:
      // Every API call asked for (the report's findings): they are joined to the ops by
      // correlation id, so the ids come too, NVTX ranges or not -- when the file has calls.
      return {true, has_nvtx || (options.api_calls && options.all_api_calls && has_api_calls),
              false, false};
  }
  return {options.memory_kinds, true, true, options.demangled_names};
}

// Which read needs a column: every one, or one of ColumnSet's groups.
enum class ColumnNeed { kEngineLoad, kKinds, kCorrelation, kShapes, kDemangled };

struct ColumnSpec {
  std::string_view name;
  bool required;  // a file without it cannot be read
  ColumnNeed need;
};

bool Needed(ColumnNeed need, const ColumnSet& set) {
  switch (need) {
    case ColumnNeed::kEngineLoad:
      return true;
    case ColumnNeed::kKinds:
      return set.kinds;
    case ColumnNeed::kCorrelation:
      return set.correlation;
    case ColumnNeed::kShapes:
      return set.shapes;
    case ColumnNeed::kDemangled:
      return set.shapes && set.demangled;
  }
  return true;
}

// The SELECT list, in the fixed positions of Col/KernelCol/CopyCol/MemsetCol. A column the file
// lacks, or one the requested detail does not need, is selected as a constant: SQLite evaluates
// it once per statement, so unneeded columns cost nothing per row.
std::string BuildSelectList(SqliteDatabase& db, std::string_view table,
                            const std::vector<ColumnSpec>& columns, const ColumnSet& set) {
  std::vector<std::string> present = db.ColumnNames(table);
  std::string list;
  for (const ColumnSpec& column : columns) {
    if (!list.empty()) list += ", ";
    bool has = Contains(present, column.name);
    if (!has && column.required) {
      throw InputError(db.source(),
                       fmt::format("table {} lacks the column {}", table, column.name));
    }
    if (has && Needed(column.need, set)) {
      list += fmt::format("\"{}\"", column.name);
    } else {
      list += "NULL";
    }
  }
  return list;
}

std::vector<ColumnSpec> ColumnsOf(TableKind kind) {
  constexpr ColumnNeed kLoad = ColumnNeed::kEngineLoad;
  constexpr ColumnNeed kKinds = ColumnNeed::kKinds;
  constexpr ColumnNeed kIds = ColumnNeed::kCorrelation;
  constexpr ColumnNeed kShape = ColumnNeed::kShapes;
  std::vector<ColumnSpec> columns = {{"start", true, kLoad},    {"end", true, kLoad},
                                     {"deviceId", true, kLoad}, {"contextId", false, kIds},
                                     {"streamId", true, kLoad}, {"correlationId", false, kIds},
                                     {"globalPid", false, kIds}};
  switch (kind) {
    case TableKind::kKernel:
      columns.insert(columns.end(), {{"shortName", true, kLoad},
                                     {"demangledName", false, ColumnNeed::kDemangled},
                                     {"gridX", false, kShape},
                                     {"gridY", false, kShape},
                                     {"gridZ", false, kShape},
                                     {"blockX", false, kShape},
                                     {"blockY", false, kShape},
                                     {"blockZ", false, kShape}});
      break;
    case TableKind::kMemcpy:
      columns.insert(columns.end(), {{"bytes", true, kLoad},
                                     {"copyKind", true, kLoad},
                                     {"srcKind", false, kKinds},
                                     {"dstKind", false, kKinds},
                                     {"srcDeviceId", false, kKinds},
                                     {"dstDeviceId", false, kKinds},
                                     {"copyCount", false, kLoad}});
      break;
    case TableKind::kMemset:
      columns.insert(columns.end(), {{"bytes", true, kLoad}, {"memKind", false, kKinds}});
      break;
    case TableKind::kGraph:
      break;
  }
  return columns;
}

// A signature as read from the file: names are still the file's StringIds.
struct RawSignature {
  Engine engine = Engine::kKernel;
  // The file's StringIds ids; id 0 is a real string in nsys exports, so "none" is -1.
  int64_t short_name = -1;
  int64_t demangled_name = -1;
  std::array<uint32_t, 3> grid = {0, 0, 0};
  std::array<uint32_t, 3> block = {0, 0, 0};
  MemoryKind src_kind = MemoryKind::kUnknown;
  MemoryKind dst_kind = MemoryKind::kUnknown;
  int32_t src_device = -1;
  int32_t dst_device = -1;
  bool operator==(const RawSignature&) const = default;
};

// boost::hash_combine's mixing step.
void HashCombine(size_t& h, uint64_t v) {
  h ^= std::hash<uint64_t>{}(v) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
}

struct RawSignatureHash {
  size_t operator()(const RawSignature& s) const {
    size_t h = std::hash<int64_t>{}(s.short_name);
    auto mix = [&h](uint64_t v) { HashCombine(h, v); };
    mix(static_cast<uint64_t>(s.engine));
    mix(static_cast<uint64_t>(s.demangled_name));
    for (uint32_t v : s.grid)
      mix(v);
    for (uint32_t v : s.block)
      mix(v);
    mix(static_cast<uint64_t>(s.src_kind) << 8 | static_cast<uint64_t>(s.dst_kind));
    mix(static_cast<uint64_t>(static_cast<uint32_t>(s.src_device)));
    mix(static_cast<uint64_t>(static_cast<uint32_t>(s.dst_device)));
    return h;
  }
};

struct StreamInfoHash {
  size_t operator()(const StreamInfo& s) const {
    size_t h = std::hash<uint64_t>{}(s.process_id);
    auto mix = [&h](uint64_t v) { HashCombine(h, v); };
    mix(static_cast<uint64_t>(static_cast<uint32_t>(s.device_id)));
    mix(s.context_id);
    mix(s.stream_id);
    return h;
  }
};

// Interns keys into dense ids. Traces have few distinct streams and op shapes, and consecutive
// rows cycle through a handful of them (round-robin streams, H2D/D2H alternating), so the first
// kSmall keys are found by a linear scan; only traces with more fall back to hashing.
template <typename Key, typename Hash>
class Interner {
 public:
  uint32_t Id(const Key& key) {
    if (last_ < keys_.size() && keys_[last_] == key) return last_;
    size_t small = std::min(keys_.size(), kSmall);
    for (size_t i = 0; i < small; ++i) {
      if (keys_[i] == key) return last_ = static_cast<uint32_t>(i);
    }
    if (keys_.size() < kSmall) {
      keys_.push_back(key);
      return last_ = static_cast<uint32_t>(keys_.size() - 1);
    }
    auto [it, inserted] = ids_.try_emplace(key, static_cast<uint32_t>(keys_.size()));
    if (inserted) keys_.push_back(key);
    return last_ = it->second;
  }
  const std::vector<Key>& keys() const { return keys_; }

 private:
  static constexpr size_t kSmall = 16;
  std::unordered_map<Key, uint32_t, Hash> ids_;  // keys from kSmall on
  std::vector<Key> keys_;
  uint32_t last_ = 0;  // the previous answer: runs of one stream or shape cost one comparison
};

// One rowid range of one activity table, read by one thread into one block.
struct ChunkTask {
  TableKind kind;
  std::string table;
  std::string select_list;
  int64_t rowid_first = 0;
  int64_t rowid_last = 0;
  ColumnSet columns;  // what is read beyond the engine-load columns
};

struct ChunkResult {
  std::string table;  // the task's
  ActivityBlock block;
  Interner<StreamInfo, StreamInfoHash> streams;
  Interner<RawSignature, RawSignatureHash> signatures;
  Diagnostics diagnostics;
  // Copy rows that stand for several copies of a cudaMemcpyBatchAsync (copyCount > 1, nsys
  // 2025.1.3+), and how many copies they stand for: each row is still one op.
  int64_t batched_rows = 0;
  int64_t batched_copies = 0;
  // The faster-than-memory and far-outlying checks on the chunk's rows, run on its thread.
  OpChecks checks;
};

uint32_t ToU32(int64_t value) {
  return static_cast<uint32_t>(value);
}

template <typename Row>
std::array<uint32_t, 3> Dims(const Row& row, int first) {
  return {ToU32(row.Int64(first)), ToU32(row.Int64(first + 1)), ToU32(row.Int64(first + 2))};
}

// A result row seen through sqlite3_value pointers: the arguments of the row function below.
struct ValueRow {
  sqlite3_value** values;
  bool IsNull(int column) const { return sqlite3_value_type(values[column]) == SQLITE_NULL; }
  bool IsInteger(int column) const { return sqlite3_value_type(values[column]) == SQLITE_INTEGER; }
  int64_t Int64(int column) const { return sqlite3_value_int64(values[column]); }
  int64_t Int64Or(int column, int64_t if_null) const {
    int64_t value = Int64(column);
    return value == 0 && IsNull(column) ? if_null : value;
  }
};

// A copy's or memset's byte count; false (counted) when it is not a non-negative integer or is
// beyond any device's memory (docs/reliability.md, "Resource limits").
template <typename Row>
bool ReadBytes(const Row& row, int column, const ChunkTask& task, ChunkResult& out,
               uint64_t* bytes) {
  int64_t value = row.Int64(column);
  if (!row.IsInteger(column) || value < 0) {
    out.diagnostics.Skip(task.table, "bytes not a non-negative integer", Severity::kDataLoss);
    return false;
  }
  if (static_cast<uint64_t>(value) > kByteCountLimit) {
    out.diagnostics.Skip(task.table, "implausible byte count", Severity::kDataLoss);
    return false;
  }
  *bytes = static_cast<uint64_t>(value);
  return true;
}

// The memory kind in `column`, through the file's enum; an id the file's table lacks but the
// built-in one knows, and an id neither knows, are counted in notes (docs/formats.md). NULL (or
// a column the file lacks) is Unknown without a note: older exports leave it out.
template <typename Row>
MemoryKind MemoryOf(const Row& row, int column, const NsysEnums& enums, ChunkResult& out) {
  const int64_t id = row.Int64Or(column, -1);
  if (id == -1 && row.IsNull(column)) return MemoryKind::kUnknown;
  switch (enums.MemorySource(id)) {
    case NsysEnums::Source::kTable:
      break;
    case NsysEnums::Source::kBuiltIn:
      out.diagnostics.CountNote(
          "memory kind(s) of copies and memsets that the file's ENUM_CUDA_MEM_KIND lacks, read "
          "by the built-in table (a partial enum table)");
      break;
    case NsysEnums::Source::kNone:
      out.diagnostics.CountNote(
          "memory kind(s) of copies and memsets in neither the file's ENUM_CUDA_MEM_KIND nor the "
          "built-in table (or renumbered by the file): shown as Unknown");
      break;
  }
  return enums.Memory(id);
}

// Appends one row to the chunk's block; false when the row is skipped (counted in diagnostics).
template <typename Row>
bool HandleRow(const Row& row, const ChunkTask& task, const NsysEnums& enums, ChunkResult& out) {
  // The columns every figure rests on must be integers: SQLite would silently read text as 0
  // and 250.7 as 250.
  if (!row.IsInteger(kStart) || !row.IsInteger(kEnd)) {
    bool null = row.IsNull(kStart) || row.IsNull(kEnd);
    out.diagnostics.Skip(task.table, null ? "null timestamp" : "non-integer timestamp",
                         Severity::kDataLoss);
    return false;
  }
  if (!row.IsInteger(kDevice) || !row.IsInteger(kStream)) {
    out.diagnostics.Skip(task.table, "missing or non-integer device or stream",
                         Severity::kDataLoss);
    return false;
  }
  // An id the model cannot hold would be cut to one it can, and merge two devices or streams.
  const int64_t device_id = row.Int64(kDevice);
  const int64_t stream_id = row.Int64(kStream);
  if (device_id < 0 || device_id > std::numeric_limits<int32_t>::max() || stream_id < 0 ||
      stream_id > std::numeric_limits<uint32_t>::max()) {
    out.diagnostics.Skip(task.table, "device or stream id out of range", Severity::kDataLoss);
    return false;
  }
  int64_t start = row.Int64(kStart);
  int64_t end = row.Int64(kEnd);
  // CUPTI's "timestamps could not be collected" (a device buffer ran out, work in flight at
  // exit): an op at the session's first instant would stretch every window back to it.
  if (start == 0 && end == 0) {
    out.diagnostics.Skip(task.table, "no timestamp (start = end = 0)", Severity::kDataLoss);
    return false;
  }
  // Bounded times keep every later difference and sum in int64 (model/time_limits.h).
  if (std::string_view problem = IntervalProblem(start, end); !problem.empty()) {
    out.diagnostics.Skip(task.table, problem, Severity::kError);
    return false;
  }
  RawSignature signature;
  uint64_t bytes = 0;
  switch (task.kind) {
    case TableKind::kKernel:
      signature.engine = Engine::kKernel;
      signature.short_name = row.Int64(kShortName);
      if (signature.short_name == 0 && row.IsNull(kShortName)) {  // damaged: said, not silent
        // Not string id 0: that is a real, unrelated string in many exports ("GpuMetrics").
        signature.short_name = kNullNameId;
        out.diagnostics.CountNote(
            fmt::format("kernel row(s) with a NULL shortName: shown as \"{}\" (docs/formats.md)",
                        kUnnamedKernel));
      }
      if (task.columns.shapes) {
        signature.demangled_name = row.Int64Or(kDemangledName, -1);
        signature.grid = Dims(row, kGridX);
        signature.block = Dims(row, kBlockX);
      }
      break;
    case TableKind::kMemcpy: {
      if (row.IsNull(kCopyKind)) {  // not kind 0 ("unknown"): the field is missing
        out.diagnostics.Skip(task.table, "null copyKind", Severity::kDataLoss);
        return false;
      }
      int64_t copy_kind = row.Int64(kCopyKind);
      std::optional<Engine> engine = enums.CopyEngine(copy_kind);
      if (engine && enums.CopySource(copy_kind) == NsysEnums::Source::kBuiltIn) {
        out.diagnostics.CountNote(
            "copy row(s) of a copy kind the file's ENUM_CUDA_MEMCPY_OPER lacks, read by the "
            "built-in table (a partial enum table)");
      }
      if (!engine) {
        // A built-in id that the file's table lacks while naming its meaning under another id
        // (renumbered) is not guessed: said in the reason.
        const auto& conflicting = enums.conflicting_copy_ids();
        const bool renumbered =
            std::find(conflicting.begin(), conflicting.end(), copy_kind) != conflicting.end();
        out.diagnostics.Skip(
            task.table,
            fmt::format("unknown copy kind {}{}", copy_kind,
                        renumbered ? " (the file's ENUM_CUDA_MEMCPY_OPER lacks it and names its "
                                     "built-in meaning under another id)"
                                   : ""),
            Severity::kDataLoss);
        return false;
      }
      signature.engine = *engine;
      if (!ReadBytes(row, kBytes, task, out, &bytes)) return false;
      if (const int64_t copies = row.Int64Or(kCopyCount, 1); copies > 1) {
        ++out.batched_rows;
        out.batched_copies = SaturatingAdd(out.batched_copies, copies);
      } else if (copies < 1) {
        out.diagnostics.CountNote(
            "copy row(s) with copyCount 0 or negative: each counted as one copy");
      }
      if (!task.columns.kinds) break;
      signature.src_kind = MemoryOf(row, kSrcKind, enums, out);
      signature.dst_kind = MemoryOf(row, kDstKind, enums, out);
      if (*engine == Engine::kP2P) {
        signature.src_device = static_cast<int32_t>(row.Int64Or(kSrcDevice, -1));
        signature.dst_device = static_cast<int32_t>(row.Int64Or(kDstDevice, -1));
      }
      break;
    }
    case TableKind::kMemset:
      signature.engine = Engine::kMemset;
      if (!ReadBytes(row, kMemsetBytes, task, out, &bytes)) return false;
      if (task.columns.kinds) signature.src_kind = MemoryOf(row, kMemKind, enums, out);
      break;
    case TableKind::kGraph:
      signature.engine = Engine::kGraph;
      break;
  }
  StreamInfo stream;
  stream.device_id = static_cast<int32_t>(device_id);
  stream.stream_id = static_cast<uint32_t>(stream_id);
  if (task.columns.correlation) {
    stream.process_id = static_cast<uint64_t>(row.Int64(kPid)) & kGlobalPidMask;
    stream.context_id = ToU32(row.Int64(kContext));
    out.block.correlation.push_back(ToU32(row.Int64(kCorrelation)));
  }

  out.block.start_ns.push_back(start);
  out.block.end_ns.push_back(end);
  out.block.bytes.push_back(bytes);
  out.block.signature.push_back(out.signatures.Id(signature));
  out.block.stream.push_back(out.streams.Id(stream));
  out.block.engine.push_back(signature.engine);
  return true;
}

// State of the row function: SQLite calls it once per row, inside its own VM, which spares the
// per-column sqlite3_column_* calls of stepping a result row (about half of SQLite's time).
struct RowSink {
  const ChunkTask* task;
  const NsysEnums* enums;
  ChunkResult* out;
  int64_t read = 0;
  int64_t used = 0;
  std::exception_ptr error;
};

void RowFunction(sqlite3_context* context, int /*argc*/, sqlite3_value** values) {
  auto* sink = static_cast<RowSink*>(sqlite3_user_data(context));
  try {
    ++sink->read;
    if (HandleRow(ValueRow{values}, *sink->task, *sink->enums, *sink->out)) ++sink->used;
  } catch (...) {
    // Exceptions must not cross SQLite's C frames: park it, stop the statement, rethrow below.
    sink->error = std::current_exception();
    sqlite3_result_error(context, "row handler failed", -1);
  }
}

void ReadChunk(const std::filesystem::path& path, const ChunkTask& task, const NsysEnums& enums,
               ChunkResult& out) {
  out.table = task.table;
  SqliteDatabase db(path);
  RowSink sink{&task, &enums, &out, 0, 0, {}};
  if (sqlite3_create_function_v2(db.handle(), "gpuroof_row", -1, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                 &sink, RowFunction, nullptr, nullptr, nullptr) != SQLITE_OK) {
    db.Fail("cannot register the row function");
  }
  SqliteStatement row =
      db.Prepare(fmt::format("SELECT count(gpuroof_row({})) FROM {} WHERE rowid BETWEEN ?1 AND ?2",
                             task.select_list, task.table));
  row.BindInt64(1, task.rowid_first);
  row.BindInt64(2, task.rowid_last);
  // nsys numbers rows densely, so the rowid span is the row count and the columns never
  // reallocate. A file with sparse rowids (edited by hand) must not reserve for rows it lacks:
  // the reservation is capped by the rows the file can hold, and by a fixed 2^24.
  constexpr int64_t kMaxReserve = int64_t{1} << 24;
  out.block.Reserve(static_cast<size_t>(std::min({RowSpan(task.rowid_first, task.rowid_last),
                                                  db.RowCapacity(), kMaxReserve})),
                    task.columns.correlation);
  try {
    row.Step();
  } catch (...) {
    if (sink.error) std::rethrow_exception(sink.error);
    throw;
  }
  out.block.ShrinkToFit();
  out.block.SortByStart();
  // Exact duplicate rows (a concatenated or merged export), dropped as the Kineto reader drops
  // duplicate events; those of two chunks in MergeChunks.
  const auto duplicates = static_cast<int64_t>(DropExactDuplicates(out.block));
  out.diagnostics.CountRead(sink.read);
  out.diagnostics.CountUsed(sink.used - duplicates);
  if (duplicates > 0) {
    out.diagnostics.Skip(task.table, kDuplicateRowReason, Severity::kInfo, duplicates);
  }
  out.checks.AddBlock(out.block, out.streams.keys());
}

// StringIds as a lookup from the file's id to its text. A NULL value (a damaged or hand-edited
// export) is taken as a missing id: shown as "<string ID>" and counted, so that the names it
// stands for stay apart instead of merging into one empty name.
class FileStrings {
 public:
  void Load(SqliteDatabase& db) {
    SqliteStatement row = db.Prepare("SELECT id, value FROM StringIds");
    while (row.Step()) {
      if (!row.IsNull(1)) strings_.emplace(row.Int64(0), row.Text(1));
    }
  }
  const std::string* Find(int64_t id) const {
    auto it = strings_.find(id);
    return it == strings_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<int64_t, std::string> strings_;
};

// Name ids a row referred to that StringIds lacks (a damaged or hand-edited export). Their names
// are shown as "<string ID>", and the trace says how many, where (docs/formats.md, "Inputs").
struct MissingStrings {
  std::set<int64_t> op_names;  // kernel short and demangled names
  std::set<int64_t> nvtx_names;
  std::set<int64_t> api_names;
};

// The text of `id`, or "<string ID>" (remembered in `missing`) when the file has no such id.
std::string StringOrPlaceholder(const FileStrings& strings, int64_t id,
                                std::set<int64_t>& missing) {
  const std::string* text = strings.Find(id);
  if (text != nullptr) return *text;
  missing.insert(id);
  return fmt::format("<string {}>", id);
}

void NoteMissingStrings(const MissingStrings& missing, Diagnostics& diagnostics) {
  std::vector<std::string> parts;
  std::set<int64_t> all;
  auto add = [&](const std::set<int64_t>& ids, std::string_view what) {
    if (ids.empty()) return;
    parts.push_back(fmt::format("{} {}{}", ids.size(), what, ids.size() == 1 ? "" : "s"));
    all.insert(ids.begin(), ids.end());
  };
  add(missing.op_names, "kernel name");
  add(missing.nvtx_names, "NVTX range name");
  add(missing.api_names, "API function name");
  if (all.empty()) return;
  // A few ids are enough to find the rows; a file missing thousands would flood the line.
  constexpr size_t kIdsShown = 5;
  std::vector<int64_t> shown(
      all.begin(),
      std::next(all.begin(), static_cast<std::ptrdiff_t>(std::min(all.size(), kIdsShown))));
  const bool one = all.size() == 1;
  diagnostics.Note(fmt::format(
      "StringIds: {} name id{} the file refers to {} missing ({}); those names are shown as "
      "\"<string ID>\" (id{} {}{})",
      all.size(), one ? "" : "s", one ? "is" : "are", fmt::join(parts, ", "), one ? "" : "s",
      fmt::join(shown, ", "), all.size() > shown.size() ? ", ..." : ""));
}

struct NvtxResult {
  std::vector<NvtxRange> ranges;
  std::vector<std::string> names;  // parallel to ranges; interned after the threads join
  std::set<int64_t> missing_names;
  Diagnostics diagnostics;
};

// NVTX ranges with their display names (docs/formats.md, "Inputs"): coalesce(text,
// StringIds[textId]), prefixed with "<domain>:" when the range's domain was created in the same
// process.
void ReadNvtx(const std::filesystem::path& path, const FileStrings& strings, NvtxResult& out) {
  SqliteDatabase db(path);
  std::vector<std::string> present =
      db.RequireColumns(nsys_tables::kNvtx, {"start", "end", "eventType"});
  auto column = [&present](std::string_view name) {
    return Contains(present, name) ? fmt::format("\"{}\"", name) : std::string("NULL");
  };
  SqliteStatement row = db.Prepare(fmt::format(
      "SELECT start, \"end\", eventType, {}, {}, {}, {} FROM NVTX_EVENTS WHERE eventType IN "
      "({}, {}, {}, {}, {}) ORDER BY eventType = {} DESC, start",
      column("text"), column("textId"), column("domainId"), column("globalTid"), kNvtxPushPopRange,
      kNvtxStartEndRange, kNvtxtPushPopRange, kNvtxtStartEndRange, kNvtxDomainCreate,
      kNvtxDomainCreate));
  std::map<std::pair<uint64_t, int64_t>, std::string> domains;  // (pid key, domainId) -> name
  int64_t read = 0;
  int64_t used = 0;
  int64_t unnamed = 0;
  while (row.Step()) {
    ++read;
    int64_t event_type = row.Int64(2);
    uint64_t thread = static_cast<uint64_t>(row.Int64(6));
    int64_t domain_id = row.IsNull(5) ? 0 : row.Int64(5);
    if (event_type == kNvtxDomainCreate) {
      domains[{thread & kGlobalPidMask, domain_id}] = row.Text(3);
      ++used;
      continue;
    }
    if (row.IsNull(0) || row.IsNull(1)) {
      out.diagnostics.Skip(nsys_tables::kNvtx, "range without end", Severity::kInfo);
      continue;
    }
    // The checks activity rows get: integers (SQLite reads text as 0), bounded times.
    if (!row.IsInteger(0) || !row.IsInteger(1)) {
      out.diagnostics.Skip(nsys_tables::kNvtx, "non-integer timestamp", Severity::kDataLoss);
      continue;
    }
    NvtxRange range;
    range.start_ns = row.Int64(0);
    range.end_ns = row.Int64(1);
    if (std::string_view problem = IntervalProblem(range.start_ns, range.end_ns);
        !problem.empty()) {
      out.diagnostics.Skip(nsys_tables::kNvtx, problem, Severity::kError);
      continue;
    }
    range.thread_id = thread;
    range.process_id = thread & kGlobalPidMask;
    range.start_end = event_type == kNvtxStartEndRange || event_type == kNvtxtStartEndRange;
    std::string name;
    if (!row.IsNull(3)) {
      name = row.Text(3);
    } else if (!row.IsNull(4)) {
      name = StringOrPlaceholder(strings, row.Int64(4), out.missing_names);
    } else {
      name = std::string(kUnnamedRange);
      ++unnamed;
    }
    if (domain_id != 0) {
      auto it = domains.find({thread & kGlobalPidMask, domain_id});
      if (it != domains.end()) name = it->second + ":" + name;
    }
    out.ranges.push_back(range);
    out.names.push_back(std::move(name));
    ++used;
  }
  out.diagnostics.CountRead(read);
  out.diagnostics.CountUsed(used);
  if (unnamed > 0) {
    out.diagnostics.Note(fmt::format(
        "{}: {} range{} {} no name (text and textId NULL); shown as \"{}\"", nsys_tables::kNvtx,
        unnamed, unnamed == 1 ? "" : "s", unnamed == 1 ? "has" : "have", kUnnamedRange));
  }
}

std::unordered_map<int64_t, std::string> ReadEnum(SqliteDatabase& db, std::string_view table) {
  std::unordered_map<int64_t, std::string> values;
  SqliteStatement row = db.Prepare(fmt::format("SELECT id, name FROM {}", table));
  while (row.Step())
    values[row.Int64(0)] = row.Text(1);
  return values;
}

// The MPI rank and world size from the profiled process's environment, which nsys 2023.3+
// exports in META_DATA_CAPTURE ("PROCESS_0:ENVIRONMENT_VARIABLE", `NAME="VALUE"`). Only these
// variables are read: the environment is private and never kept whole.
void ReadRankFromEnvironment(SqliteDatabase& db, const std::vector<std::string>& tables,
                             Trace& trace) {
  if (!Contains(tables, "META_DATA_CAPTURE")) return;
  // In order of preference: the launcher's own variable first.
  static constexpr std::pair<std::string_view, std::string_view> kVariables[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMIX_RANK", "PMIX_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"SLURM_PROCID", "SLURM_NTASKS"},
      {"RANK", "WORLD_SIZE"},
  };
  std::map<std::string, std::string> found;
  SqliteStatement row = db.Prepare(
      "SELECT value FROM META_DATA_CAPTURE WHERE name LIKE '%ENVIRONMENT_VARIABLE' AND ("
      "value LIKE 'OMPI_COMM_WORLD_%' OR value LIKE 'PMI%' OR value LIKE 'SLURM_PROCID=%' OR "
      "value LIKE 'SLURM_NTASKS=%' OR value LIKE 'RANK=%' OR value LIKE 'WORLD_SIZE=%')");
  while (row.Step()) {
    std::string text = row.Text(0);
    size_t equals = text.find('=');
    if (equals == std::string::npos) continue;
    std::string value = text.substr(equals + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    bool digits =
        !value.empty() && value.size() < 10 &&
        std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (digits) found.emplace(text.substr(0, equals), value);
  }
  auto take = [&](std::string_view rank, std::string_view size) {
    trace.metadata["distributed_rank"] = found.at(std::string(rank));
    trace.metadata["distributed_rank_origin"] = std::string(rank);
    auto world = found.find(std::string(size));
    if (world != found.end()) trace.metadata["distributed_world_size"] = world->second;
  };
  auto number = [&](std::string_view name) -> std::optional<int64_t> {
    auto it = found.find(std::string(name));
    if (it == found.end()) return std::nullopt;
    return std::stoll(it->second);
  };
  for (const auto& [rank, size] : kVariables) {
    if (!found.count(std::string(rank))) continue;
    // A launcher that started one task per node (srun or mpirun, then torchrun per node) gives
    // every worker of a node the same rank: when the framework's WORLD_SIZE is larger than the
    // launcher's task count, its RANK is the worker's own.
    const std::optional<int64_t> tasks = number(size);
    const std::optional<int64_t> world = number("WORLD_SIZE");
    // A launcher that does not say its size (sbatch's own step, SLURM_PROCID without
    // SLURM_NTASKS) is taken as per node too when the framework's world is larger than one.
    if (rank != "RANK" && number("RANK") && world && (tasks ? *world > *tasks : *world > 1)) {
      take("RANK", "WORLD_SIZE");
    } else {
      take(rank, size);
    }
    return;
  }
}

void ReadMetadata(SqliteDatabase& db, const std::vector<std::string>& tables, Trace& trace) {
  ReadRankFromEnvironment(db, tables, trace);
  for (std::string_view table : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (!Contains(tables, table)) continue;
    SqliteStatement row = db.Prepare(
        fmt::format("SELECT name, value FROM {} WHERE name IN ('EXPORT_PRODUCT_VERSION', "
                    "'EXPORT_SCHEMA_VERSION')",
                    table));
    while (row.Step()) {
      std::string name = row.Text(0);
      trace.metadata[name == "EXPORT_PRODUCT_VERSION" ? "nsys_version" : "nsys_schema_version"] =
          row.Text(1);
    }
    return;
  }
  trace.metadata["nsys_version"] = "before 2021.5 (no export metadata table)";
}

void ReadDevices(SqliteDatabase& db, const std::vector<std::string>& tables, Trace& trace) {
  if (!Contains(tables, "TARGET_INFO_GPU")) return;
  std::vector<std::string> columns = db.ColumnNames("TARGET_INFO_GPU");
  // The key column is `deviceId` in 2020.x exports and `id` from 2021.x on.
  std::string key = Contains(columns, "id")         ? "id"
                    : Contains(columns, "deviceId") ? "deviceId"
                                                    : "";
  if (key.empty()) return;
  std::string name = Contains(columns, "name") ? "name" : "NULL";
  // In bytes per second (2021.x on; 2020.x keeps CUDA properties in another table, not read).
  std::string bandwidth = Contains(columns, "memoryBandwidth") ? "memoryBandwidth" : "NULL";
  SqliteStatement row = db.Prepare(
      fmt::format("SELECT \"{}\", {}, {} FROM TARGET_INFO_GPU ORDER BY 1", key, name, bandwidth));
  while (row.Step()) {
    DeviceInfo device{static_cast<int32_t>(row.Int64(0)), row.Text(1)};
    device.memory_bandwidth_bytes_per_s = std::max<int64_t>(row.Int64(2), 0);
    trace.devices.push_back(std::move(device));
  }
}

std::vector<ChunkTask> PlanChunks(SqliteDatabase& db, const std::vector<std::string>& tables,
                                  const NsysReadOptions& options, const ColumnSet& columns,
                                  int threads, Diagnostics& diagnostics) {
  struct TableSpan {
    TableKind kind;
    std::string_view table;
    std::string select_list;
    int64_t first;
    int64_t last;
  };
  std::vector<TableSpan> spans;
  int64_t total_rows = 0;
  const std::pair<TableKind, std::string_view> kTables[] = {
      {TableKind::kKernel, nsys_tables::kKernel},
      {TableKind::kMemcpy, nsys_tables::kMemcpy},
      {TableKind::kMemset, nsys_tables::kMemset},
      {TableKind::kGraph, nsys_tables::kGraph}};
  for (const auto& [kind, table] : kTables) {
    if (!Contains(tables, table)) continue;
    // Not a note: the command that asked says what it compares (compare: "kernel-level
    // metrics only"), and a note per table and file would repeat it for every run of a set.
    if (options.kernels_only && kind != TableKind::kKernel) continue;
    std::string select_list = BuildSelectList(db, table, ColumnsOf(kind), columns);
    // Two subqueries, one b-tree descent each; nsys never deletes rows, so the span is the count.
    // (One query with both min() and max() is a full table scan: SQLite's min/max optimization
    // only applies to a lone min() or max(), see EXPLAIN QUERY PLAN.)
    SqliteStatement bounds = db.Prepare(
        fmt::format("SELECT (SELECT min(rowid) FROM {0}), (SELECT max(rowid) FROM {0})", table));
    if (!bounds.Step() || bounds.IsNull(0)) continue;  // an empty table
    if (kind == TableKind::kGraph) {
      diagnostics.Note(
          "graph-level CUDA graph launches (CUPTI_ACTIVITY_KIND_GRAPH_TRACE) are "
          "counted on the 'graph' engine: their kernels and copies are not traced "
          "one by one");
    }
    spans.push_back({kind, table, std::move(select_list), bounds.Int64(0), bounds.Int64(1)});
    total_rows = SaturatingAdd(total_rows, RowSpan(bounds.Int64(0), bounds.Int64(1)));
  }
  // A few chunks per thread balance tables of different sizes; tiny traces stay one chunk each.
  int64_t chunk = options.rows_per_chunk > 0
                      ? options.rows_per_chunk
                      : std::max<int64_t>(total_rows / (3 * std::max(threads, 1)) + 1, 65'536);
  // Whole 2 MiB huge pages per column (2^19 rows fill 2 MiB of uint32, 4 MiB of int64): only the
  // last chunk of a table leaves a partly used huge page behind.
  if (options.rows_per_chunk <= 0) chunk = (chunk + (int64_t{1} << 19) - 1) >> 19 << 19;
  std::vector<ChunkTask> tasks;
  for (const TableSpan& span : spans) {
    // Rowids are not a row count in a hand-edited file (a row at rowid 2^62): a table is never
    // cut into more than kMaxChunksPerTable chunks, whatever its rowid span.
    constexpr int64_t kMaxChunksPerTable = 64;
    const int64_t table_chunk =
        std::max(chunk, RowSpan(span.first, span.last) / kMaxChunksPerTable + 1);
    for (int64_t lo = span.first; lo <= span.last;) {
      int64_t hi = RowSpan(lo, span.last) <= table_chunk ? span.last : lo + table_chunk - 1;
      tasks.push_back(
          ChunkTask{span.kind, std::string(span.table), span.select_list, lo, hi, columns});
      if (hi == span.last) break;
      lo = hi + 1;
    }
  }
  // Largest first, so the pool finishes together.
  std::stable_sort(tasks.begin(), tasks.end(), [](const ChunkTask& a, const ChunkTask& b) {
    return RowSpan(a.rowid_first, a.rowid_last) > RowSpan(b.rowid_first, b.rowid_last);
  });
  return tasks;
}

void RunInParallel(std::vector<std::function<void()>>& jobs, int threads) {
  // One connection per thread is safe only when SQLite was built thread-safe (Debian's is).
  const unsigned count =
      sqlite3_threadsafe() == 0 ? 1u : static_cast<unsigned>(std::max(1, threads));
  ParallelFor(
      jobs.size(), [&](size_t i) { jobs[i](); }, count);
}

// Joins the per-chunk stream and signature tables into the trace's, renumbering each block.
// Returns whether ops were dropped as copies of ops of other chunks.
bool MergeChunks(std::vector<ChunkResult>& chunks, const FileStrings& strings,
                 std::set<int64_t>& missing_names, Trace& trace) {
  Interner<StreamInfo, StreamInfoHash> streams;
  std::unordered_map<int64_t, uint32_t> interned_names;
  auto intern = [&](int64_t file_id) -> uint32_t {
    if (file_id == kNullNameId) return trace.strings.Intern(kUnnamedKernel);
    if (file_id < 0) return 0;
    auto it = interned_names.find(file_id);
    if (it != interned_names.end()) return it->second;
    uint32_t id = trace.strings.Intern(StringOrPlaceholder(strings, file_id, missing_names));
    interned_names.emplace(file_id, id);
    return id;
  };
  std::unordered_map<RawSignature, uint32_t, RawSignatureHash> signature_ids;
  int64_t batched_rows = 0;
  int64_t batched_copies = 0;
  std::vector<std::string> block_tables;  // each block's table, for its duplicates' count
  for (ChunkResult& chunk : chunks) {
    batched_rows += chunk.batched_rows;
    batched_copies = SaturatingAdd(batched_copies, chunk.batched_copies);
    std::vector<uint32_t> stream_map;
    for (const StreamInfo& stream : chunk.streams.keys())
      stream_map.push_back(streams.Id(stream));
    std::vector<uint32_t> signature_map;
    for (const RawSignature& raw : chunk.signatures.keys()) {
      auto [it, inserted] =
          signature_ids.try_emplace(raw, static_cast<uint32_t>(trace.signatures.size()));
      if (inserted) {
        OpSignature signature;
        signature.engine = raw.engine;
        signature.name = intern(raw.short_name);
        signature.detail_name = intern(raw.demangled_name);
        signature.grid = raw.grid;
        signature.block = raw.block;
        signature.src_kind = raw.src_kind;
        signature.dst_kind = raw.dst_kind;
        signature.src_device = raw.src_device;
        signature.dst_device = raw.dst_device;
        trace.signatures.push_back(signature);
      }
      signature_map.push_back(it->second);
    }
    for (uint32_t& s : chunk.block.stream)
      s = stream_map[s];
    for (uint32_t& s : chunk.block.signature)
      s = signature_map[s];
    trace.diagnostics.Merge(chunk.diagnostics);
    if (chunk.block.size() > 0) {
      trace.blocks.push_back(std::move(chunk.block));
      block_tables.push_back(chunk.table);
    }
  }
  trace.streams = streams.keys();
  // Duplicates in two chunks (a table appended to itself puts each copy in another rowid range):
  // found now that the chunks share one numbering of streams and signatures.
  const std::vector<size_t> duplicates = DropExactDuplicatesAcrossBlocks(trace.blocks);
  for (size_t b = 0; b < duplicates.size(); ++b) {
    if (duplicates[b] == 0) continue;
    const auto n = static_cast<int64_t>(duplicates[b]);
    trace.diagnostics.CountUsed(-n);
    trace.diagnostics.Skip(block_tables[b], kDuplicateRowReason, Severity::kInfo, n);
  }
  std::erase_if(trace.blocks, [](const ActivityBlock& block) { return block.size() == 0; });
  const bool dropped_across =
      std::any_of(duplicates.begin(), duplicates.end(), [](size_t n) { return n > 0; });
  if (batched_rows > 0) {
    // Bytes and time are the batch's, so busy time and bandwidth are right; only op counts (and
    // figures per op) see one op where the program asked for several (docs/formats.md).
    trace.diagnostics.Note(fmt::format(
        "{}: {} batched copy {} (cudaMemcpyBatchAsync) stand{} for {} copies; each row is "
        "counted as one op",
        nsys_tables::kMemcpy, batched_rows, batched_rows == 1 ? "row" : "rows",
        batched_rows == 1 ? "s" : "", batched_copies));
  }
  return dropped_across;
}

// Replaces each call's file nameId by the trace's interned name (distinct names are few).
// nsys names runtime functions with their API version ("cudaLaunchKernel_v7000"); its reports
// print the function ("cudaLaunchKernel") where the suffix is "_v" + 4 digits, and keep a 5-digit
// one ("cudaLaunchKernelExC_v11060": its cuda_api_sum cuts the last 6 characters only when they
// start with "_v"). Shorter suffixes are part of a driver function's own name (cuMemAlloc_v2).
std::string_view ApiFunctionName(std::string_view name) {
  const size_t at = name.rfind("_v");
  if (at == std::string_view::npos || at == 0) return name;
  const std::string_view digits = name.substr(at + 2);
  if (digits.size() != 4) return name;
  for (char c : digits) {
    if (c < '0' || c > '9') return name;
  }
  return name.substr(0, at);
}

void InternApiCallNames(const FileStrings& strings, std::vector<ApiCall>& calls,
                        std::set<int64_t>& missing_names, StringTable& table) {
  std::unordered_map<uint32_t, uint32_t> interned;
  for (ApiCall& call : calls) {
    if (call.name == kNoApiCallName) {
      call.name = 0;
      continue;
    }
    auto [it, inserted] = interned.try_emplace(call.name, 0);
    if (inserted) {
      it->second =
          table.Intern(ApiFunctionName(StringOrPlaceholder(strings, call.name, missing_names)));
    }
    call.name = it->second;
  }
}

int ThreadCount(const NsysReadOptions& options) {
  if (options.threads > 0) return options.threads;
  unsigned hardware = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hardware, 1u, 8u));
}

}  // namespace

Trace ReadNsysSqlite(const std::filesystem::path& path, const NsysReadOptions& options) {
  SqliteDatabase db(path);
  Trace trace;
  trace.source = path.string();
  trace.format = "nsys-sqlite";
  std::vector<std::string> tables = db.TableNames();
  if (!Contains(tables, nsys_tables::kStrings)) {
    if (Contains(tables, "StringTable") ||
        Contains(tables, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL")) {
      throw InputError(trace.source,
                       "looks like an nvprof export, not an Nsight Systems one (no StringIds "
                       "table); profile with nsys and run `nsys export --type sqlite`");
    }
    throw InputError(trace.source,
                     "SQLite database without nsys tables (no StringIds or "
                     "CUPTI_ACTIVITY_KIND_* tables); expected `nsys export --type sqlite` output");
  }
  ReadMetadata(db, tables, trace);
  ReadDevices(db, tables, trace);

  NsysEnums enums;
  if (Contains(tables, "ENUM_CUDA_MEMCPY_OPER")) {
    enums.SetCopyKinds(ReadEnum(db, "ENUM_CUDA_MEMCPY_OPER"));
  }
  if (Contains(tables, "ENUM_CUDA_MEM_KIND"))
    enums.SetMemoryKinds(ReadEnum(db, "ENUM_CUDA_MEM_KIND"));

  FileStrings strings;
  strings.Load(db);

  int threads = ThreadCount(options);
  const bool has_nvtx = Contains(tables, nsys_tables::kNvtx);
  const bool has_api_calls = Contains(tables, nsys_tables::kRuntime);
  const ColumnSet columns = ColumnsFor(options, has_nvtx, has_api_calls);
  std::vector<ChunkTask> tasks =
      PlanChunks(db, tables, options, columns, threads, trace.diagnostics);
  std::vector<ChunkResult> chunks(tasks.size());
  for (ChunkResult& chunk : chunks)
    chunk.checks = OpChecks(trace.devices);
  std::vector<std::function<void()>> jobs;
  for (size_t i = 0; i < tasks.size(); ++i) {
    jobs.emplace_back([&, i]() { ReadChunk(path, tasks[i], enums, chunks[i]); });
  }
  NvtxResult nvtx;
  if (has_nvtx) jobs.emplace_back([&]() { ReadNvtx(path, strings, nvtx); });
  // API calls only matter for attributing work to NVTX ranges; engine-load reads skip them.
  NsysApiCalls api_calls;
  const bool read_api_calls = columns.correlation && options.api_calls && has_api_calls;
  if (read_api_calls)
    jobs.emplace_back([&]() { api_calls = ReadNsysApiCalls(path, options.all_api_calls); });
  RunInParallel(jobs, threads);

  MissingStrings missing;
  const bool dropped_across_chunks = MergeChunks(chunks, strings, missing.op_names, trace);
  if (has_nvtx) {
    for (size_t i = 0; i < nvtx.ranges.size(); ++i) {
      nvtx.ranges[i].name = trace.strings.Intern(nvtx.names[i]);
    }
    trace.nvtx_ranges = std::move(nvtx.ranges);
    std::stable_sort(
        trace.nvtx_ranges.begin(), trace.nvtx_ranges.end(),
        [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
    trace.diagnostics.Merge(nvtx.diagnostics);
    missing.nvtx_names = std::move(nvtx.missing_names);
  }
  if (read_api_calls) {
    if (options.launch_ends_only && !options.all_api_calls) {
      trace.launch_ends = LaunchEndsOf(api_calls.calls);
    } else {
      InternApiCallNames(strings, api_calls.calls, missing.api_names, trace.strings);
      trace.api_calls = std::move(api_calls.calls);
    }
    trace.diagnostics.Merge(api_calls.diagnostics);
  }
  NoteMissingStrings(missing, trace.diagnostics);
  ClassifyCollectiveKernels(trace);
  // NoteOpsFasterThanMemory and NoteFarOutlyingOps, their passes over the ops made by the reading
  // threads (ReadChunk). Collective kernels, found above, are kernels there: they move no bytes.
  // Ops dropped as copies of another chunk's were in those passes: then one pass over the ops
  // kept (rare: a file merged with itself).
  OpChecks checks(trace.devices);
  if (dropped_across_chunks) {
    for (const ActivityBlock& block : trace.blocks)
      checks.AddBlock(block, trace.streams);
  } else {
    for (const ChunkResult& chunk : chunks)
      checks.Merge(chunk.checks);
  }
  checks.NoteFasterThanMemory(trace.diagnostics);
  checks.NoteFarOutlying(trace.diagnostics);
  return trace;
}

}  // namespace gpuroof
