// The record sink's file, read back by gpuroof's own nsys reader: every field the recorder
// writes, the enum conversions, the NVTX pairing, and engine figures computed by hand.
#include "gpuroof/recorder/record_sink.h"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

#include "support/nsys_sqlite_builder.h"

namespace gpuroof::recorder {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kT0 = 1'700'000'000'000'000'000;  // CUPTI timestamps are epoch ns
constexpr uint32_t kPid = 777;
constexpr int64_t kGlobalPid = (int64_t{1} << 48) | (int64_t{kPid} << 24);

class RecordSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpuroof_sink_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // One kernel, an H2D and a D2H copy, a memset, two NVTX ranges, a mark, plus a record without
  // timestamps and a range that never ends.
  SinkStats WriteExample(const fs::path& path) {
    RecordSink sink(path, SinkOptions{kPid, "130001"});
    DeviceRecord gpu;
    gpu.id = 0;
    gpu.name = "NVIDIA H200";
    gpu.uuid = "GPU-01234567-89ab-cdef-0123-456789abcdef";
    gpu.sm_count = 132;
    sink.AddDevice(gpu);

    MemcpyRecord h2d;
    h2d.start_ns = kT0;
    h2d.end_ns = kT0 + 2000;
    h2d.context = 1;
    h2d.stream = 13;
    h2d.correlation = 41;
    h2d.bytes = 4096;
    h2d.copy_kind = 1;       // CUPTI HTOD
    h2d.cupti_src_kind = 2;  // CUPTI PINNED
    h2d.cupti_dst_kind = 3;  // CUPTI DEVICE
    sink.AddMemcpy(h2d);

    KernelRecord kernel;
    kernel.start_ns = kT0 + 1000;
    kernel.end_ns = kT0 + 5000;
    kernel.context = 1;
    kernel.stream = 13;
    kernel.correlation = 42;
    kernel.mangled_name = "_ZN2ns5scaleIfEEvPT_i";
    kernel.grid[0] = 4;
    kernel.grid[1] = 2;
    kernel.block[0] = 256;
    kernel.registers_per_thread = 32;
    sink.AddKernel(kernel);

    MemcpyRecord d2h = h2d;
    d2h.start_ns = kT0 + 6000;
    d2h.end_ns = kT0 + 7000;
    d2h.bytes = 1024;
    d2h.copy_kind = 2;       // CUPTI DTOH
    d2h.cupti_src_kind = 3;  // CUPTI DEVICE
    d2h.cupti_dst_kind = 1;  // CUPTI PAGEABLE
    d2h.copy_count = 3;      // a cudaMemcpyBatchAsync batch of three
    sink.AddMemcpy(d2h);

    MemsetRecord memset;
    memset.start_ns = kT0 + 8000;
    memset.end_ns = kT0 + 8500;
    memset.context = 1;
    memset.stream = 14;
    memset.bytes = 512;
    memset.cupti_memory_kind = 3;  // CUPTI DEVICE
    sink.AddMemset(memset);

    KernelRecord lost = kernel;  // still in flight at exit: no timestamps
    lost.start_ns = 0;
    lost.end_ns = 0;
    sink.AddKernel(lost);

    auto marker = [&](MarkerRecord::Kind kind, int64_t t, uint64_t id, uint32_t tid,
                      std::string name = "", std::string domain = "") {
      MarkerRecord m;
      m.kind = kind;
      m.timestamp_ns = t;
      m.id = id;
      m.pid = kPid;
      m.tid = tid;
      m.name = std::move(name);
      m.domain = std::move(domain);
      sink.AddMarker(m);
    };
    marker(MarkerRecord::Kind::kStart, kT0, 1, 10, "frame");
    marker(MarkerRecord::Kind::kEnd, kT0 + 200, 2, 11);  // before its start: other thread's buffer
    marker(MarkerRecord::Kind::kStart, kT0 + 100, 2, 10, "load", "app");
    marker(MarkerRecord::Kind::kEnd, kT0 + 9000, 1, 10);
    marker(MarkerRecord::Kind::kMark, kT0 + 300, 3, 10, "tick");
    marker(MarkerRecord::Kind::kStart, kT0 + 400, 4, 10, "never ends");
    return sink.Finish(5);
  }

  fs::path dir_;
};

const OpSignature* FindOp(const Trace& trace, Engine engine, int64_t* start, int64_t* end,
                          uint64_t* bytes, uint32_t* stream) {
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.engine[i] != engine) continue;
      *start = block.start_ns[i];
      *end = block.end_ns[i];
      *bytes = block.bytes[i];
      *stream = block.stream[i];
      return &trace.signatures[block.signature[i]];
    }
  }
  return nullptr;
}

TEST_F(RecordSinkTest, TheNsysReaderReadsEveryField) {
  const fs::path path = dir_ / "rec.sqlite";
  SinkStats stats = WriteExample(path);
  EXPECT_EQ(stats.kernels, 1);
  EXPECT_EQ(stats.memcpys, 2);
  EXPECT_EQ(stats.memsets, 1);
  EXPECT_EQ(stats.nvtx_events, 3);  // two ranges and a mark
  EXPECT_EQ(stats.RecordsWritten(), 7);
  EXPECT_EQ(stats.zero_timestamps, 1);
  EXPECT_EQ(stats.unpaired_markers, 1);
  EXPECT_EQ(stats.dropped, 5);
  EXPECT_FALSE(fs::exists(dir_ / "rec.sqlite.tmp"));

  Trace trace = ReadNsysSqlite(path);
  EXPECT_EQ(trace.metadata["nsys_version"], "gpuroof-recorder 1");
  EXPECT_EQ(trace.metadata["nsys_schema_version"], "3.17.2");
  EXPECT_EQ(trace.diagnostics.records_skipped(), 0) << trace.diagnostics.Summary();
  ASSERT_EQ(trace.activity_count(), 4u);
  ASSERT_EQ(trace.devices.size(), 1u);
  EXPECT_EQ(trace.devices[0].id, 0);
  EXPECT_EQ(trace.devices[0].name, "NVIDIA H200");

  int64_t start = 0, end = 0;
  uint64_t bytes = 0;
  uint32_t stream = 0;
  const OpSignature* k = FindOp(trace, Engine::kKernel, &start, &end, &bytes, &stream);
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(start, kT0 + 1000);
  EXPECT_EQ(end, kT0 + 5000);
  EXPECT_EQ(trace.strings.Get(k->name), "scale");
  EXPECT_EQ(trace.strings.Get(k->detail_name), "void ns::scale<float>(float*, int)");
  EXPECT_EQ(k->grid, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(k->block, (std::array<uint32_t, 3>{256, 1, 1}));
  const StreamInfo& s = trace.streams[stream];
  EXPECT_EQ(s.process_id, static_cast<uint64_t>(kGlobalPid));
  EXPECT_EQ(s.device_id, 0);
  EXPECT_EQ(s.context_id, 1u);
  EXPECT_EQ(s.stream_id, 13u);

  const OpSignature* h2d = FindOp(trace, Engine::kH2D, &start, &end, &bytes, &stream);
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(start, kT0);
  EXPECT_EQ(end, kT0 + 2000);
  EXPECT_EQ(bytes, 4096u);
  EXPECT_EQ(h2d->src_kind, MemoryKind::kPinned);
  EXPECT_EQ(h2d->dst_kind, MemoryKind::kDevice);

  const OpSignature* d2h = FindOp(trace, Engine::kD2H, &start, &end, &bytes, &stream);
  ASSERT_NE(d2h, nullptr);
  EXPECT_EQ(bytes, 1024u);
  EXPECT_EQ(d2h->src_kind, MemoryKind::kDevice);
  EXPECT_EQ(d2h->dst_kind, MemoryKind::kPageable);
  EXPECT_EQ(trace.diagnostics.notes(),
            std::vector<std::string>{"CUPTI_ACTIVITY_KIND_MEMCPY: 1 batched copy row "
                                     "(cudaMemcpyBatchAsync) stands for 3 copies; each row is "
                                     "counted as one op"});

  const OpSignature* memset = FindOp(trace, Engine::kMemset, &start, &end, &bytes, &stream);
  ASSERT_NE(memset, nullptr);
  EXPECT_EQ(start, kT0 + 8000);
  EXPECT_EQ(end, kT0 + 8500);
  EXPECT_EQ(bytes, 512u);
  EXPECT_EQ(memset->src_kind, MemoryKind::kDevice);
  EXPECT_EQ(trace.streams[stream].stream_id, 14u);

  ASSERT_EQ(trace.nvtx_ranges.size(), 2u);
  const NvtxRange& frame = trace.nvtx_ranges[0];
  EXPECT_EQ(trace.strings.Get(frame.name), "frame");
  EXPECT_EQ(frame.start_ns, kT0);
  EXPECT_EQ(frame.end_ns, kT0 + 9000);
  EXPECT_FALSE(frame.start_end);  // ended on the thread that started it
  EXPECT_EQ(frame.thread_id, static_cast<uint64_t>(kGlobalPid | 10));
  const NvtxRange& load = trace.nvtx_ranges[1];
  EXPECT_EQ(trace.strings.Get(load.name), "app:load");
  EXPECT_EQ(load.start_ns, kT0 + 100);
  EXPECT_EQ(load.end_ns, kT0 + 200);
  EXPECT_TRUE(load.start_end);  // ended on another thread
}

TEST_F(RecordSinkTest, EngineFiguresMatchHandComputedOnes) {
  const fs::path path = dir_ / "rec.sqlite";
  WriteExample(path);
  Trace trace = ReadNsysSqlite(path);
  EngineLoadOptions options;
  options.window.kind = WindowSpec::Kind::kAll;
  options.units.kind = UnitsSpec::Kind::kFixed;
  options.units.count = 2;
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  const DeviceLoad& d = loads[0];
  // All: first op start (H2D at T0) to last op end (memset at T0 + 8500).
  EXPECT_EQ(d.window.end_ns - d.window.start_ns, 8500);
  EXPECT_EQ(d.engine(Engine::kKernel).busy_ns, 4000);  // 1000..5000
  EXPECT_EQ(d.engine(Engine::kH2D).busy_ns, 2000);     // 0..2000
  EXPECT_EQ(d.engine(Engine::kH2D).bytes, 4096u);
  EXPECT_EQ(d.engine(Engine::kD2H).busy_ns, 1000);    // 6000..7000
  EXPECT_EQ(d.engine(Engine::kMemset).busy_ns, 500);  // 8000..8500
  // Union: 0..5000 (H2D and kernel overlap) + 6000..7000 + 8000..8500 = 6500.
  EXPECT_EQ(d.any_busy_ns, 6500);
  EXPECT_EQ(d.any_ops, 4);
  ASSERT_TRUE(d.units.has_value());
  EXPECT_EQ(*d.units, 2);
}

std::vector<std::string> Columns(const fs::path& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  std::vector<std::string> names;
  if (sqlite3_prepare_v2(db, ("PRAGMA table_info(" + table + ")").c_str(), -1, &stmt, nullptr) ==
      SQLITE_OK) {
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1)));
    }
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return names;
}

int64_t QueryInt(const fs::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* stmt = nullptr;
  int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    value = sqlite3_column_int64(stmt, 0);
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return value;
}

// The activity and NVTX tables have the columns, in order, of the test-support builder's 2025
// schema, which was copied from real nsys 2024.6.2 exports plus 2025.1.3's MEMCPY copyCount.
TEST_F(RecordSinkTest, TablesHaveTheNsys2025Columns) {
  const fs::path ours = dir_ / "rec.sqlite";
  WriteExample(ours);
  const fs::path reference = dir_ / "nsys.sqlite";
  {
    testsupport::BuilderOptions options;
    options.schema = testsupport::NsysSchema::k2025;
    testsupport::NsysSqliteBuilder builder(reference, options);
    builder.AddGpu(0, "NVIDIA H200");
    testsupport::KernelRow kernel;
    kernel.start_ns = 1;
    kernel.end_ns = 2;
    builder.AddKernel(kernel);
    testsupport::MemcpyRow copy;
    copy.start_ns = 1;
    copy.end_ns = 2;
    builder.AddMemcpy(copy);
    testsupport::MemsetRow memset;
    memset.start_ns = 1;
    memset.end_ns = 2;
    builder.AddMemset(memset);
    testsupport::NvtxRow range;
    range.start_ns = 1;
    range.end_ns = 2;
    builder.AddNvtx(range);
    builder.Finish();
  }
  for (const char* table : {"StringIds", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                            "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS", "TARGET_INFO_GPU",
                            "ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND"}) {
    EXPECT_EQ(Columns(ours, table), Columns(reference, table)) << table;
  }
}

TEST_F(RecordSinkTest, EnumTablesUseNsysNumberingAndStatsAreStored) {
  const fs::path path = dir_ / "rec.sqlite";
  WriteExample(path);
  EXPECT_EQ(QueryInt(path,
                     "SELECT id FROM ENUM_CUDA_MEM_KIND WHERE name = "
                     "'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN'"),
            7);
  EXPECT_EQ(QueryInt(path,
                     "SELECT id FROM ENUM_CUDA_MEM_KIND WHERE name = "
                     "'CUDA_MEMOPR_MEMORY_KIND_PINNED'"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT srcKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 1"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE copyKind = 2"), 0);
  EXPECT_EQ(QueryInt(path, "SELECT memKind FROM CUPTI_ACTIVITY_KIND_MEMSET"), 2);
  EXPECT_EQ(QueryInt(path, "SELECT value FROM RECORDER_STATS WHERE name = 'dropped'"), 5);
  EXPECT_EQ(QueryInt(path, "SELECT value FROM RECORDER_STATS WHERE name = 'zero_timestamps'"), 1);
  EXPECT_EQ(QueryInt(path,
                     "SELECT count(*) FROM META_DATA_EXPORT WHERE name = "
                     "'EXPORT_PRODUCT_NAME' AND value = 'gpuroof record'"),
            1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34"), 1);
  // Kernel names: one StringIds row per distinct string (mangled, demangled, short).
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM StringIds"), 3);
}

TEST_F(RecordSinkTest, UnfinishedSinkLeavesNoFile) {
  const fs::path path = dir_ / "rec.sqlite";
  {
    RecordSink sink(path, SinkOptions{kPid, ""});
    KernelRecord kernel;
    kernel.start_ns = kT0;
    kernel.end_ns = kT0 + 1;
    kernel.mangled_name = "k";
    sink.AddKernel(kernel);
    EXPECT_TRUE(fs::exists(dir_ / "rec.sqlite.tmp"));
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(fs::exists(dir_ / "rec.sqlite.tmp"));
}

TEST_F(RecordSinkTest, UnwritableFolderThrowsNamingTheFile) {
  const fs::path path = dir_ / "missing" / "rec.sqlite";
  try {
    RecordSink sink(path, SinkOptions{kPid, ""});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/rec.sqlite.tmp"), std::string::npos) << e.what();
  }
}

// Only start or only end set, or an end before the start: as unusable as no timestamp at all
// (the nsys reader would reject the row as end-before-start). Counted, not written.
TEST_F(RecordSinkTest, RecordsWithOnlyOneTimestampAreCountedNotWritten) {
  const fs::path path = dir_ / "rec.sqlite";
  SinkStats stats;
  {
    RecordSink sink(path, SinkOptions{kPid, ""});
    KernelRecord kernel;
    kernel.mangled_name = "k";
    kernel.start_ns = kT0;
    kernel.end_ns = kT0 + 10;
    sink.AddKernel(kernel);  // the one good record
    kernel.end_ns = 0;       // start only
    sink.AddKernel(kernel);
    MemcpyRecord copy;
    copy.start_ns = 0;  // end only
    copy.end_ns = kT0;
    sink.AddMemcpy(copy);
    MemsetRecord memset;
    memset.start_ns = kT0 + 10;  // end before start
    memset.end_ns = kT0;
    sink.AddMemset(memset);
    stats = sink.Finish(0, 3);
  }
  EXPECT_EQ(stats.zero_timestamps, 3);
  EXPECT_EQ(stats.RecordsWritten(), 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), 0);
  EXPECT_EQ(QueryInt(path, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"), 0);
  EXPECT_EQ(QueryInt(path, "SELECT value FROM RECORDER_STATS WHERE name = 'zero_timestamps'"), 3);
  // Failed buffer requests are their own row, not added to the dropped records.
  EXPECT_EQ(QueryInt(path, "SELECT value FROM RECORDER_STATS WHERE name = 'dropped'"), 0);
  EXPECT_EQ(
      QueryInt(path, "SELECT value FROM RECORDER_STATS WHERE name = 'failed_buffer_requests'"), 3);
}

TEST_F(RecordSinkTest, GraphNodeIdsKeepAll64Bits) {
  const fs::path path = dir_ / "rec.sqlite";
  constexpr uint64_t kNode = (uint64_t{5} << 32) | 7;  // the high half must survive
  {
    RecordSink sink(path, SinkOptions{kPid, ""});
    KernelRecord kernel;
    kernel.mangled_name = "k";
    kernel.start_ns = kT0;
    kernel.end_ns = kT0 + 10;
    kernel.graph_node_id = kNode;
    sink.AddKernel(kernel);
    MemcpyRecord copy;
    copy.start_ns = kT0;
    copy.end_ns = kT0 + 10;
    copy.graph_node_id = kNode + 1;
    sink.AddMemcpy(copy);
    MemsetRecord memset;
    memset.start_ns = kT0;
    memset.end_ns = kT0 + 10;
    memset.graph_node_id = kNode + 2;
    sink.AddMemset(memset);
    sink.Finish(0);
  }
  EXPECT_EQ(QueryInt(path, "SELECT graphNodeId FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            static_cast<int64_t>(kNode));
  EXPECT_EQ(QueryInt(path, "SELECT graphNodeId FROM CUPTI_ACTIVITY_KIND_MEMCPY"),
            static_cast<int64_t>(kNode + 1));
  EXPECT_EQ(QueryInt(path, "SELECT graphNodeId FROM CUPTI_ACTIVITY_KIND_MEMSET"),
            static_cast<int64_t>(kNode + 2));
}

}  // namespace
}  // namespace gpuroof::recorder
