// The nsys reader against files written by the test-support builder: every version flavour,
// every skip reason, the file's own enum tables, NVTX naming, chunked parallel reads.
#include "gpuroof/readers/nsys_sqlite_reader.h"

#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/nsys_enums.h"
#include "gpuroof/readers/sqlite_database.h"

#include "support/nsys_sqlite_builder.h"

namespace gpuroof {
namespace {

using testsupport::BuilderOptions;
using testsupport::KernelRow;
using testsupport::MemcpyRow;
using testsupport::MemsetRow;
using testsupport::NsysSchema;
using testsupport::NsysSqliteBuilder;
using testsupport::NvtxRow;

class ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("gpuroof_reader_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path Path(const std::string& name) const { return dir_ / name; }

  std::filesystem::path dir_;
};

KernelRow Kernel(int64_t start, int64_t end, uint32_t stream = 7, std::string name = "k") {
  KernelRow row;
  row.start_ns = start;
  row.end_ns = end;
  row.stream = stream;
  row.short_name = std::move(name);
  return row;
}

MemcpyRow Copy(int64_t start, int64_t end, int kind, uint64_t bytes) {
  MemcpyRow row;
  row.start_ns = start;
  row.end_ns = end;
  row.copy_kind = kind;
  row.bytes = bytes;
  return row;
}

// Runs `sql` on a built file, as a hand edit (or a fuzzer) would change it.
void Edit(const std::filesystem::path& file, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

// Appends each of `tables` to itself: every row gets an exact duplicate, as in a concatenated
// or merged export.
void AppendToItself(const std::filesystem::path& file,
                    std::initializer_list<std::string_view> tables) {
  std::string sql;
  for (std::string_view table : tables)
    sql += fmt::format("INSERT INTO {0} SELECT * FROM {0};", table);
  Edit(file, sql.c_str());
}

const std::map<Engine, int64_t> EngineOps(const Trace& trace) {
  std::map<Engine, int64_t> ops;
  for (const ActivityBlock& block : trace.blocks) {
    for (Engine e : block.engine)
      ++ops[e];
  }
  return ops;
}

TEST_F(ReaderTest, ReadsEverySchemaFlavour) {
  for (NsysSchema schema : {NsysSchema::k2020, NsysSchema::k2021, NsysSchema::k2022,
                            NsysSchema::k2024, NsysSchema::k2025}) {
    SCOPED_TRACE(static_cast<int>(schema));
    std::filesystem::path file = Path("flavour.sqlite");
    {
      BuilderOptions options;
      options.schema = schema;
      NsysSqliteBuilder builder(file, options);
      builder.AddGpu(0, "GPU Zero");
      builder.AddGpu(3, "GPU Three");
      KernelRow k = Kernel(100, 200);
      k.device = 3;
      k.grid = {8, 2, 1};
      k.block = {256, 1, 1};
      k.demangled_name = "void k<float>(float*)";
      builder.AddKernel(k);
      MemcpyRow c = Copy(0, 50, 1, 4096);
      c.device = 3;
      c.src_kind = 1;
      builder.AddMemcpy(c);
      MemsetRow m;
      m.start_ns = 60;
      m.end_ns = 70;
      m.bytes = 512;
      m.device = 3;
      builder.AddMemset(m);
      builder.Finish();
    }
    Trace trace = ReadNsysSqlite(file);
    EXPECT_EQ(trace.activity_count(), 3u);
    EXPECT_EQ(trace.ActiveDeviceIds(), std::vector<int32_t>{3});
    EXPECT_EQ(trace.DeviceName(3), "GPU Three");
    std::map<Engine, int64_t> ops = EngineOps(trace);
    EXPECT_EQ(ops[Engine::kKernel], 1);
    EXPECT_EQ(ops[Engine::kH2D], 1);
    EXPECT_EQ(ops[Engine::kMemset], 1);
    for (const OpSignature& s : trace.signatures) {
      if (s.engine == Engine::kKernel) {
        EXPECT_EQ(trace.strings.Get(s.name), "k");
        EXPECT_EQ(trace.strings.Get(s.detail_name), "void k<float>(float*)");
        EXPECT_EQ(s.grid, (std::array<uint32_t, 3>{8, 2, 1}));
        EXPECT_EQ(s.block, (std::array<uint32_t, 3>{256, 1, 1}));
      } else if (s.engine == Engine::kH2D) {
        EXPECT_EQ(s.src_kind, MemoryKind::kPinned);
        EXPECT_EQ(s.dst_kind, MemoryKind::kDevice);
      } else {
        EXPECT_EQ(s.src_kind, MemoryKind::kDevice);
      }
    }
    EXPECT_FALSE(trace.metadata["nsys_version"].empty());
    EXPECT_EQ(trace.diagnostics.records_skipped(), 0);
  }
}

TEST_F(ReaderTest, CountsEverySkippedRecordByReason) {
  std::filesystem::path file = Path("damaged.sqlite");
  {
    BuilderOptions options;
    options.allow_nulls = true;
    NsysSqliteBuilder builder(file, options);
    builder.AddKernel(Kernel(0, 10));
    KernelRow null_start = Kernel(0, 10);
    null_start.start_ns.reset();
    builder.AddKernel(null_start);
    builder.AddKernel(Kernel(50, 40));        // end before start
    builder.AddKernel(Kernel(0, 0));          // CUPTI collected no timestamp
    builder.AddMemcpy(Copy(0, 10, 0, 100));   // unknown copy kind
    builder.AddMemcpy(Copy(0, 10, 99, 100));  // not in any enum table
    builder.AddMemcpy(Copy(0, 10, 2, 100));
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  const Diagnostics& d = trace.diagnostics;
  EXPECT_EQ(d.records_read(), 7);
  EXPECT_EQ(d.records_used(), 2);
  EXPECT_EQ(d.records_skipped(), 5);
  EXPECT_EQ(d.records_read(), d.records_used() + d.records_skipped());
  EXPECT_TRUE(d.has_data_loss());
  std::map<std::string, int64_t> reasons;
  for (const SkipCount& skip : d.skips())
    reasons[skip.reason] += skip.count;
  EXPECT_EQ(reasons["null timestamp"], 1);
  EXPECT_EQ(reasons["end before start"], 1);
  EXPECT_EQ(reasons["no timestamp (start = end = 0)"], 1);
  EXPECT_EQ(reasons["unknown copy kind 0"], 1);
  EXPECT_EQ(reasons["unknown copy kind 99"], 1);
  EXPECT_NE(d.Summary().find("skipped 5"), std::string::npos);
}

TEST_F(ReaderTest, HonoursTheFilesOwnEnumTables) {
  std::filesystem::path file = Path("renumbered.sqlite");
  {
    NsysSqliteBuilder builder(file);
    // This file says copy kind 1 is device-to-host and memory kind 0 is pinned.
    builder.SetEnumRow("ENUM_CUDA_MEMCPY_OPER", 1, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host");
    builder.SetEnumRow("ENUM_CUDA_MEM_KIND", 0, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned");
    MemcpyRow c = Copy(0, 10, 1, 64);
    c.src_kind = 0;
    builder.AddMemcpy(c);
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  ASSERT_EQ(trace.activity_count(), 1u);
  EXPECT_EQ(trace.blocks[0].engine[0], Engine::kD2H);
  EXPECT_EQ(trace.signatures[trace.blocks[0].signature[0]].src_kind, MemoryKind::kPinned);
}

TEST_F(ReaderTest, MapsEveryCopyKindToItsEngine) {
  std::filesystem::path file = Path("kinds.sqlite");
  {
    BuilderOptions options;
    options.schema = NsysSchema::k2021;  // no enum tables: the built-in table decides
    NsysSqliteBuilder builder(file, options);
    for (int kind = 1; kind <= 13; ++kind)
      builder.AddMemcpy(Copy(kind * 10, kind * 10 + 5, kind, 8));
    builder.Finish();
  }
  std::map<Engine, int64_t> ops = EngineOps(ReadNsysSqlite(file));
  EXPECT_EQ(ops[Engine::kH2D], 2);  // HtoD, HtoA
  EXPECT_EQ(ops[Engine::kD2H], 2);  // DtoH, AtoH
  EXPECT_EQ(ops[Engine::kD2D], 4);  // AtoA, AtoD, DtoA, DtoD
  EXPECT_EQ(ops[Engine::kH2H], 1);
  EXPECT_EQ(ops[Engine::kP2P], 1);
  EXPECT_EQ(ops[Engine::kUvmH2D], 1);
  EXPECT_EQ(ops[Engine::kUvmD2H], 1);
  EXPECT_EQ(ops[Engine::kUvmD2D], 1);
}

// nsys 2025.1.3+ writes one MEMCPY row for a cudaMemcpyBatchAsync batch (copyCount > 1): the
// row's bytes and time are the batch's, so it stays one op, and the trace says so with counts.
TEST_F(ReaderTest, BatchedCopyRowsAreOneOpEachAndSaySo) {
  std::filesystem::path file = Path("batched.sqlite");
  {
    BuilderOptions options;
    options.schema = NsysSchema::k2025;
    NsysSqliteBuilder builder(file, options);
    MemcpyRow batch = Copy(0, 100, 1, 3 << 20);
    batch.copy_count = 3;
    builder.AddMemcpy(batch);
    batch = Copy(200, 300, 2, 4 << 20);
    batch.copy_count = 4;
    builder.AddMemcpy(batch);
    builder.AddMemcpy(Copy(400, 450, 1, 1 << 20));  // an ordinary copy: copyCount 1
    builder.Finish();
  }
  for (ReadDetail detail : {ReadDetail::kFull, ReadDetail::kEngineLoad}) {
    NsysReadOptions read;
    read.detail = detail;
    Trace trace = ReadNsysSqlite(file, read);
    std::map<Engine, int64_t> ops = EngineOps(trace);
    EXPECT_EQ(ops[Engine::kH2D], 2);
    EXPECT_EQ(ops[Engine::kD2H], 1);
    ASSERT_EQ(trace.diagnostics.notes().size(), 1u);
    EXPECT_EQ(trace.diagnostics.notes()[0],
              "CUPTI_ACTIVITY_KIND_MEMCPY: 2 batched copy rows (cudaMemcpyBatchAsync) stand for 7 "
              "copies; each row is counted as one op");
  }
}

// The builder's GPUs have a memory bandwidth of 4.8 TB/s (4800 bytes per ns): a 4 MB memset of
// 100 ns (41943 bytes per ns) cannot have moved its bytes in that time; a host-to-host copy is
// not bound by it, a zero-duration one has no rate, and a 2020 export gives no bandwidth.
TEST_F(ReaderTest, OpsFasterThanTheDevicesMemoryAreSaid) {
  for (NsysSchema schema : {NsysSchema::k2020, NsysSchema::k2024}) {
    std::filesystem::path file = Path("fast.sqlite");
    {
      BuilderOptions options;
      options.schema = schema;
      NsysSqliteBuilder builder(file, options);
      builder.AddGpu(0, "GPU Zero");
      builder.AddKernel(Kernel(0, 1000));
      for (int64_t start : {1000, 2000}) {
        MemsetRow m;
        m.start_ns = start;
        m.end_ns = start + 100;
        m.bytes = 4 << 20;
        builder.AddMemset(m);
      }
      builder.AddMemcpy(Copy(3000, 4000, 1, 1 << 20));  // 1048 bytes per ns: plausible
      builder.AddMemcpy(Copy(4000, 4000, 1, 1 << 20));  // no time: no rate
      MemcpyRow host = Copy(5000, 5001, 1, 1 << 20);
      host.copy_kind = 9;  // host to host
      builder.AddMemcpy(host);
      builder.Finish();
    }
    const Trace trace = ReadNsysSqlite(file);
    std::vector<std::string> fast;
    for (const std::string& note : trace.diagnostics.notes()) {
      if (note.find("faster than the device's memory bandwidth") != std::string::npos)
        fast.push_back(note);
    }
    if (schema == NsysSchema::k2020) {
      EXPECT_TRUE(fast.empty());
      continue;
    }
    ASSERT_EQ(fast.size(), 1u);
    EXPECT_EQ(fast[0],
              "device 0: 2 memset op(s) moved bytes faster than the device's memory bandwidth "
              "(4800.0 GB/s; fastest 41943.0 GB/s): their recorded times do not cover their work, "
              "so their GB/s are not transfer rates");
  }
}

TEST_F(ReaderTest, PeerCopiesKeepTheirEndpoints) {
  std::filesystem::path file = Path("peer.sqlite");
  {
    NsysSqliteBuilder builder(file);
    MemcpyRow c = Copy(0, 10, 10, 1 << 20);
    c.src_device = 0;
    c.dst_device = 1;
    c.src_kind = 2;
    builder.AddMemcpy(c);
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  const OpSignature& s = trace.signatures.at(0);
  EXPECT_EQ(s.engine, Engine::kP2P);
  EXPECT_EQ(s.src_device, 0);
  EXPECT_EQ(s.dst_device, 1);
}

// A peer copy counts once, on the P2P engine of the device of the row (its stream's device,
// where it was issued: CUPTI's deviceId), neither on its source nor on its destination as such
// (docs/metrics.md, "Engines"). A push (issued on device 0, 0 -> 1, 100 ns) and a pull (issued
// on device 1, 0 -> 1, 300 ns): by source device 0 would carry both, by destination device 1.
TEST_F(ReaderTest, APeerCopyCountsOnTheDeviceOfItsStream) {
  std::filesystem::path file = Path("peer_devices.sqlite");
  {
    NsysSqliteBuilder builder(file);
    MemcpyRow push = Copy(0, 100, 10, 1 << 20);
    push.device = 0;
    push.src_device = 0;
    push.dst_device = 1;
    builder.AddMemcpy(push);
    MemcpyRow pull = Copy(200, 500, 10, 1 << 20);
    pull.device = 1;
    pull.src_device = 0;
    pull.dst_device = 1;
    builder.AddMemcpy(pull);
    builder.Finish();
  }
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(ReadNsysSqlite(file), options);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_EQ(loads[0].device_id, 0);
  EXPECT_EQ(loads[0].engine(Engine::kP2P).ops, 1);
  EXPECT_EQ(loads[0].engine(Engine::kP2P).busy_ns, 100);
  EXPECT_EQ(loads[1].device_id, 1);
  EXPECT_EQ(loads[1].engine(Engine::kP2P).ops, 1);
  EXPECT_EQ(loads[1].engine(Engine::kP2P).busy_ns, 300);
  EXPECT_EQ(loads[0].any_busy_ns + loads[1].any_busy_ns, 400);
}

// kBreakdown reads what report's tables need: memory kinds always, launch correlation (and the
// API calls) only when there are NVTX ranges to attribute work to, kernel shapes never.
TEST_F(ReaderTest, BreakdownDetailReadsCorrelationOnlyWithNvtxRanges) {
  auto write = [this](const std::string& name, bool with_nvtx) {
    std::filesystem::path file = Path(name);
    NsysSqliteBuilder builder(file);
    KernelRow k = Kernel(0, 10);
    k.correlation = 5;
    k.grid = {4, 1, 1};
    builder.AddKernel(k);
    MemcpyRow c = Copy(20, 30, 1, 64);
    c.correlation = 6;
    c.src_kind = 1;
    c.dst_kind = 2;
    builder.AddMemcpy(c);
    testsupport::ApiCallRow call;
    call.start_ns = -5;
    call.end_ns = -4;
    call.correlation = 5;
    builder.AddApiCall(call);
    if (with_nvtx) {
      NvtxRow range;
      range.start_ns = -10;
      range.end_ns = 40;
      range.text = "step";
      builder.AddNvtx(range);
    }
    builder.Finish();
    return file;
  };
  NsysReadOptions options;
  options.detail = ReadDetail::kBreakdown;
  for (bool with_nvtx : {false, true}) {
    SCOPED_TRACE(with_nvtx ? "with NVTX" : "without NVTX");
    const Trace trace =
        ReadNsysSqlite(write(with_nvtx ? "n.sqlite" : "p.sqlite", with_nvtx), options);
    bool saw_copy = false;
    for (const OpSignature& s : trace.signatures) {
      if (s.engine == Engine::kKernel) {
        EXPECT_EQ(s.grid[0], 0u);  // shapes are not read
      }
      if (s.engine != Engine::kH2D) continue;
      saw_copy = true;
      EXPECT_EQ(s.src_kind, MemoryKind::kPinned);
      EXPECT_EQ(s.dst_kind, MemoryKind::kDevice);
    }
    EXPECT_TRUE(saw_copy);
    size_t correlations = 0;
    for (const ActivityBlock& block : trace.blocks)
      correlations += block.correlation.size();
    EXPECT_EQ(correlations, with_nvtx ? 2u : 0u);
    EXPECT_EQ(trace.api_calls.size(), with_nvtx ? 1u : 0u);
  }
}

// compare's read: kFull without memory kinds or demangled names keeps correlation and shapes.
TEST_F(ReaderTest, KindsAndDemangledNamesCanBeLeftUnread) {
  std::filesystem::path file = Path("lean.sqlite");
  {
    NsysSqliteBuilder builder(file);
    KernelRow k = Kernel(0, 10);
    k.correlation = 5;
    k.grid = {4, 2, 1};
    k.demangled_name = "void k<float>(float*)";
    builder.AddKernel(k);
    MemcpyRow c = Copy(20, 30, 1, 64);
    c.correlation = 6;
    c.src_kind = 1;
    builder.AddMemcpy(c);
    builder.Finish();
  }
  NsysReadOptions options;
  options.memory_kinds = false;
  options.demangled_names = false;
  const Trace trace = ReadNsysSqlite(file, options);
  bool saw_kernel = false;
  bool saw_copy = false;
  for (const OpSignature& s : trace.signatures) {
    if (s.engine == Engine::kKernel) {
      saw_kernel = true;
      EXPECT_EQ(s.grid, (std::array<uint32_t, 3>{4, 2, 1}));
      EXPECT_EQ(s.detail_name, 0u);
    } else if (s.engine == Engine::kH2D) {
      saw_copy = true;
      EXPECT_NE(s.src_kind, MemoryKind::kPinned);
    }
  }
  EXPECT_TRUE(saw_kernel);
  EXPECT_TRUE(saw_copy);
  size_t correlations = 0;
  for (const ActivityBlock& block : trace.blocks)
    correlations += block.correlation.size();
  EXPECT_EQ(correlations, 2u);
}

TEST_F(ReaderTest, NvtxNamesFollowTheDomainRule) {
  std::filesystem::path file = Path("nvtx.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddKernel(Kernel(0, 10));
    builder.AddDomain(1, "TensorRT");
    builder.AddDomain(1, "OtherProcessDomain", 77);
    NvtxRow inline_text;
    inline_text.start_ns = 5;
    inline_text.end_ns = 50;
    inline_text.text = "epoch";
    builder.AddNvtx(inline_text);
    NvtxRow registered;
    registered.start_ns = 10;
    registered.end_ns = 20;
    registered.registered_text = "conv1";
    registered.domain_id = 1;
    builder.AddNvtx(registered);
    NvtxRow start_end;
    start_end.start_ns = -30;
    start_end.end_ns = 40;
    start_end.event_type = 60;
    start_end.text = "io";
    start_end.range_id = 9;
    builder.AddNvtx(start_end);
    NvtxRow mark;
    mark.start_ns = 7;
    mark.event_type = 34;
    mark.text = "a mark";
    builder.AddNvtx(mark);
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  ASSERT_EQ(trace.nvtx_ranges.size(), 3u);  // marks are not ranges
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[0].name), "io");
  EXPECT_TRUE(trace.nvtx_ranges[0].start_end);
  EXPECT_EQ(trace.nvtx_ranges[0].start_ns, -30);
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[1].name), "epoch");
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[2].name), "TensorRT:conv1");
  EXPECT_FALSE(trace.nvtx_ranges[2].start_end);
}

TEST_F(ReaderTest, ChunkedParallelReadsGiveTheSameAnswer) {
  std::filesystem::path file = Path("chunks.sqlite");
  {
    NsysSqliteBuilder builder(file);
    // Rows written out of start order, on two processes that reuse the same stream id.
    for (int i = 99; i >= 0; --i) {
      KernelRow k = Kernel(i * 100, i * 100 + 150, 13 + static_cast<uint32_t>(i % 2));
      k.pid = i % 3 == 0 ? 4242 : 5151;
      builder.AddKernel(k);
      builder.AddMemcpy(Copy(i * 100 + 10, i * 100 + 60, 1 + i % 2, 1000));
    }
    builder.Finish();
  }
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  NsysReadOptions one_chunk;
  one_chunk.threads = 1;
  one_chunk.rows_per_chunk = 1'000'000;
  Trace whole = ReadNsysSqlite(file, one_chunk);
  NsysReadOptions chunked;
  chunked.threads = 3;
  chunked.rows_per_chunk = 7;
  Trace split = ReadNsysSqlite(file, chunked);
  EXPECT_GT(split.blocks.size(), whole.blocks.size());
  for (const ActivityBlock& block : split.blocks)
    EXPECT_TRUE(block.IsSortedByStart());
  // Kernels: (pid 4242 | 5151) x (stream 13 | 14); copies: pid 4242, stream 7.
  EXPECT_EQ(whole.streams.size(), 5u);
  EXPECT_EQ(split.streams.size(), 5u);
  DeviceLoad a = ComputeEngineLoad(whole, options)[0];
  DeviceLoad b = ComputeEngineLoad(split, options)[0];
  for (Engine e : kAllEngines) {
    EXPECT_EQ(a.engine(e).ops, b.engine(e).ops);
    EXPECT_EQ(a.engine(e).busy_ns, b.engine(e).busy_ns);
    EXPECT_EQ(a.engine(e).sum_ns, b.engine(e).sum_ns);
  }
  // Kernels overlap their neighbour by 50 ns: union = 99 * 100 + 150.
  EXPECT_EQ(a.engine(Engine::kKernel).busy_ns, 99 * 100 + 150);
  EXPECT_EQ(a.engine(Engine::kKernel).sum_ns, 100 * 150);
}

// The faster-than-memory and far-outlying checks run per chunk, on the reading threads, and are
// merged: chunks of 3 rows (the outliers and the fast memsets in different chunks, tables and
// threads) must say what one chunk says. Two devices, so a chunk holds ops of both.
TEST_F(ReaderTest, ChunkedReadsSayTheSameOutlyingAndTooFastOps) {
  std::filesystem::path file = Path("checks.sqlite");
  {
    BuilderOptions options;
    options.schema = NsysSchema::k2024;
    NsysSqliteBuilder builder(file, options);
    builder.AddGpu(0, "GPU Zero");
    builder.AddGpu(1, "GPU One");
    constexpr int64_t kRest = 1'000'000'000'000;  // the rest of the ops, 4 us long on each device
    for (int32_t device : {0, 1}) {
      KernelRow lead = Kernel(1000, 1100);  // about 1000 s before the rest: a far outlier
      lead.device = device;
      builder.AddKernel(lead);
      for (int i = 0; i < 40; ++i) {
        KernelRow k = Kernel(kRest + i * 100, kRest + i * 100 + 80);
        k.device = device;
        builder.AddKernel(k);
        if (i % 10 == 0) {  // 4 MB in 100 ns: faster than 4.8 TB/s
          MemsetRow m;
          m.device = device;
          m.start_ns = kRest + i * 100;
          m.end_ns = kRest + i * 100 + 100;
          m.bytes = 4 << 20;
          builder.AddMemset(m);
        }
      }
      KernelRow tail = Kernel(2 * kRest, 2 * kRest + 10);  // and one far after
      tail.device = device;
      builder.AddKernel(tail);
    }
    builder.Finish();
  }
  NsysReadOptions one_chunk;
  one_chunk.threads = 1;
  one_chunk.rows_per_chunk = 1'000'000;
  const Trace whole = ReadNsysSqlite(file, one_chunk);
  NsysReadOptions chunked;
  chunked.threads = 3;
  chunked.rows_per_chunk = 3;
  const Trace split = ReadNsysSqlite(file, chunked);
  EXPECT_GT(split.blocks.size(), 10u);
  EXPECT_EQ(split.diagnostics.notes(), whole.diagnostics.notes());
  auto count = [&](std::string_view text) {
    return std::count_if(
        whole.diagnostics.notes().begin(), whole.diagnostics.notes().end(),
        [&](const std::string& note) { return note.find(text) != std::string::npos; });
  };
  EXPECT_EQ(count("device 0: 4 memset op(s) moved bytes faster than the device's memory "
                  "bandwidth (4800.0 GB/s; fastest 41943.0 GB/s)"),
            1);
  EXPECT_EQ(count("device 1: 4 memset op(s) moved bytes faster"), 1);
  EXPECT_EQ(count("device 0: 1 GPU op lies 999.999999 s before the other 44 ops on it"), 1);
  EXPECT_EQ(count("device 1: 1 GPU op lies 999.999996 s after the other 44 ops on it"), 1);
  EXPECT_EQ(count("GPU op lies"), 4);
  // Review finding (d055253 F1): the tables appended to themselves, so that copies lie in other
  // chunks: the checks see the ops kept, not the copies dropped across chunks.
  const std::filesystem::path doubled = Path("checks_doubled.sqlite");
  std::filesystem::copy_file(file, doubled);
  AppendToItself(doubled, {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMSET"});
  for (const NsysReadOptions& options : {one_chunk, chunked}) {
    const Trace read = ReadNsysSqlite(doubled, options);
    EXPECT_EQ(read.activity_count(), whole.activity_count());
    EXPECT_EQ(read.diagnostics.notes(), whole.diagnostics.notes());
  }
}

TEST_F(ReaderTest, SparseRowidsReadEveryRowWithoutReservingForTheGaps) {
  std::filesystem::path file = Path("sparse.sqlite");
  {
    NsysSqliteBuilder builder(file);
    for (int i = 0; i < 10; ++i)
      builder.AddKernel(Kernel(i * 10, i * 10 + 5));
    builder.Finish();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db,
                   "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 1000000000000 WHERE rowid = "
                   "(SELECT max(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  Trace trace = ReadNsysSqlite(file);
  EXPECT_EQ(trace.activity_count(), 10u);
  EXPECT_EQ(trace.diagnostics.records_read(), 10);
}

TEST_F(ReaderTest, NonIntegerValuesAreSkippedNotGuessed) {
  std::filesystem::path file = Path("typed.sqlite");
  {
    NsysSqliteBuilder builder(file);
    for (int i = 0; i < 4; ++i)
      builder.AddKernel(Kernel(i * 100, i * 100 + 50));
    builder.AddMemcpy(Copy(0, 10, 1, 64));
    builder.AddMemcpy(Copy(20, 30, 1, 64));
    builder.AddMemcpy(Copy(40, 50, 1, 64));
    builder.AddMemcpy(Copy(60, 70, 1, 64));
    builder.Finish();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = 'abc' WHERE rowid = 1;"
                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET \"end\" = 250.7 WHERE rowid = 2;"
                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start = -5000000000000000000 "
                         "WHERE rowid = 3;"
                         "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = -5 WHERE rowid = 1;"
                         // Cut to 32 bits, these would read as device 0 and stream 7.
                         "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET deviceId = 4294967296 "
                         "WHERE rowid = 3;"
                         "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET streamId = 4294967303 "
                         "WHERE rowid = 4;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Trace trace = ReadNsysSqlite(file);
  std::map<std::string, int64_t> reasons;
  for (const SkipCount& skip : trace.diagnostics.skips())
    reasons[skip.reason] += skip.count;
  EXPECT_EQ(reasons["non-integer timestamp"], 2);
  EXPECT_EQ(reasons["implausible timestamp"], 1);
  EXPECT_EQ(reasons["bytes not a non-negative integer"], 1);
  EXPECT_EQ(reasons["device or stream id out of range"], 2);
  EXPECT_EQ(trace.activity_count(), 2u);
  EXPECT_EQ(trace.diagnostics.records_read(),
            trace.diagnostics.records_used() + trace.diagnostics.records_skipped());
}

TEST_F(ReaderTest, ExportWithoutActivityTablesReadsAsEmpty) {
  std::filesystem::path file = Path("nvtx_only.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.CreateEmptyTable(NsysSqliteBuilder::Table::kKernel);
    NvtxRow range;
    range.start_ns = 0;
    range.end_ns = 5;
    range.text = "phase";
    builder.AddNvtx(range);
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  EXPECT_EQ(trace.activity_count(), 0u);
  EXPECT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_THROW(ComputeEngineLoad(trace, {}), InputError);
}

NvtxRow Range(int64_t start, int64_t end, std::string text) {
  NvtxRow row;
  row.start_ns = start;
  row.end_ns = end;
  row.text = std::move(text);
  return row;
}

// A name id StringIds lacks is shown as "<string ID>" and counted in a note, per kind of name,
// never silently.
TEST_F(ReaderTest, NameIdsMissingFromStringIdsAreShownAndCounted) {
  std::filesystem::path file = Path("missing_strings.sqlite");
  {
    NsysSqliteBuilder builder(file);
    KernelRow kernel;
    kernel.start_ns = 0;
    kernel.end_ns = 10;
    kernel.short_name = "lost_kernel";
    kernel.demangled_name = "void lost_kernel(float*)";
    builder.AddKernel(kernel);
    KernelRow kept = kernel;
    kept.start_ns = 20;
    kept.end_ns = 30;
    kept.short_name = "kept_kernel";
    kept.demangled_name = "void kept_kernel(float*)";
    builder.AddKernel(kept);
    NvtxRow range = Range(0, 40, "");
    range.text.reset();
    range.registered_text = "lost_range";
    builder.AddNvtx(range);
    builder.Finish();
  }
  Edit(file,
       "DELETE FROM StringIds WHERE value IN ('lost_kernel', 'void lost_kernel(float*)', "
       "'lost_range')");
  Trace trace = ReadNsysSqlite(file);
  std::vector<std::string> names;
  for (const OpSignature& signature : trace.signatures)
    names.push_back(std::string(trace.strings.Get(signature.name)));
  EXPECT_NE(std::find(names.begin(), names.end(), "kept_kernel"), names.end());
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[0].name).substr(0, 8), "<string ");
  std::string note;
  for (const std::string& n : trace.diagnostics.notes())
    if (n.rfind("StringIds:", 0) == 0) note = n;
  EXPECT_NE(note.find("3 name ids the file refers to are missing (2 kernel names, 1 NVTX range "
                      "name); those names are shown as \"<string ID>\" (ids "),
            std::string::npos)
      << note;
  int placeholders = 0;
  for (const std::string& name : names)
    placeholders += name.rfind("<string ", 0) == 0 ? 1 : 0;
  EXPECT_EQ(placeholders, 1);
}

// A NULL StringIds value is a missing name too: two kernels whose names are NULL stay two,
// shown as "<string ID>" and counted, instead of merging into one kernel named "". An NVTX
// range with neither text nor textId is named "(unnamed range)" and counted.
TEST_F(ReaderTest, NullNamesStayApartAndAreCounted) {
  std::filesystem::path file = Path("null_strings.sqlite");
  {
    NsysSqliteBuilder builder(file);
    KernelRow first;
    first.start_ns = 0;
    first.end_ns = 10;
    first.short_name = "first_kernel";
    first.demangled_name = "void first_kernel(float*)";
    builder.AddKernel(first);
    KernelRow second = first;
    second.start_ns = 20;
    second.end_ns = 30;
    second.short_name = "second_kernel";
    second.demangled_name = "void second_kernel(float*)";
    builder.AddKernel(second);
    NvtxRow range = Range(0, 40, "");
    range.text.reset();
    builder.AddNvtx(range);
    builder.Finish();
  }
  // nsys declares the column NOT NULL; a damaged or hand-made file need not.
  Edit(file,
       "CREATE TABLE loose AS SELECT * FROM StringIds; DROP TABLE StringIds; "
       "ALTER TABLE loose RENAME TO StringIds; "
       "UPDATE StringIds SET value = NULL WHERE value LIKE '%_kernel%'");
  Trace trace = ReadNsysSqlite(file);
  std::set<std::string> names;
  for (const OpSignature& signature : trace.signatures)
    names.insert(std::string(trace.strings.Get(signature.name)));
  EXPECT_EQ(names.size(), 2u);
  for (const std::string& name : names)
    EXPECT_EQ(name.rfind("<string ", 0), 0u) << name;
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[0].name), "(unnamed range)");
  std::string notes;
  for (const std::string& n : trace.diagnostics.notes())
    notes += n + "\n";
  EXPECT_NE(notes.find("StringIds: 4 name ids the file refers to are missing (4 kernel names)"),
            std::string::npos)
      << notes;
  EXPECT_NE(notes.find("NVTX_EVENTS: 1 range has no name (text and textId NULL); shown as "
                       "\"(unnamed range)\""),
            std::string::npos)
      << notes;
}

TEST_F(ReaderTest, AnExportWithEveryNameHasNoMissingNameNote) {
  std::filesystem::path file = Path("all_strings.sqlite");
  {
    NsysSqliteBuilder builder(file);
    KernelRow kernel;
    kernel.start_ns = 0;
    kernel.end_ns = 10;
    builder.AddKernel(kernel);
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  for (const std::string& n : trace.diagnostics.notes())
    EXPECT_EQ(n.find("StringIds"), std::string::npos) << n;
}

std::map<std::string, int64_t> SkipReasons(const Trace& trace) {
  std::map<std::string, int64_t> reasons;
  for (const SkipCount& skip : trace.diagnostics.skips())
    reasons[skip.reason] += skip.count;
  return reasons;
}

// A byte count beyond any device's memory is corrupt: skipped and counted, never summed.
TEST_F(ReaderTest, AnImplausibleByteCountIsSkippedAndCounted) {
  std::filesystem::path file = Path("bytes.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddMemcpy(Copy(0, 10, 1, 64));
    builder.AddMemcpy(Copy(20, 30, 1, 64));
    builder.Finish();
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET bytes = 9223372036854775807 "
                         "WHERE rowid = 1;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Trace trace = ReadNsysSqlite(file);
  EXPECT_EQ(SkipReasons(trace)["implausible byte count"], 1);
  EXPECT_EQ(trace.activity_count(), 1u);
}

// A kernel launched by one runtime call, inside one NVTX range: what `ranges` reads.
void WriteLaunchedKernel(const std::filesystem::path& file, const BuilderOptions& options = {}) {
  NsysSqliteBuilder builder(file, options);
  KernelRow kernel = Kernel(1000, 2000);
  kernel.correlation = 5;
  builder.AddKernel(kernel);
  testsupport::ApiCallRow call;
  call.start_ns = 100;
  call.end_ns = 200;
  call.correlation = 5;
  builder.AddApiCall(call);
  builder.AddNvtx(Range(0, 500, "step"));
  builder.Finish();
}

// Finding 1: the API-call read reserved max(rowid) entries; one call at a large rowid died with
// std::bad_alloc.
TEST_F(ReaderTest, ApiCallAtAHugeRowidDoesNotReserveForTheGap) {
  std::filesystem::path file = Path("rowid.sqlite");
  WriteLaunchedKernel(file);
  Edit(file, "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET rowid = 4611686018427387904");
  Trace trace = ReadNsysSqlite(file);
  ASSERT_EQ(trace.api_calls.size(), 1u);
  EXPECT_EQ(trace.api_calls[0].correlation, 5u);
  // Where overcommit lets the old 2^31-entry reservation succeed, it still shows in the capacity.
  EXPECT_LE(trace.api_calls.capacity(), std::filesystem::file_size(file) / 4);
}

// `ranks` asks for the launches' ends only: the same call, cut down, and no ApiCall kept.
TEST_F(ReaderTest, LaunchEndsOnlyKeepTheLaunchCutDown) {
  std::filesystem::path file = Path("launch_ends.sqlite");
  WriteLaunchedKernel(file);
  Trace calls = ReadNsysSqlite(file);
  NsysReadOptions slim;
  slim.launch_ends_only = true;
  Trace ends = ReadNsysSqlite(file, slim);
  EXPECT_TRUE(ends.api_calls.empty());
  ASSERT_EQ(calls.api_calls.size(), 1u);
  ASSERT_EQ(ends.launch_ends.size(), 1u);
  EXPECT_EQ(ends.launch_ends[0].end_ns, 200);
  EXPECT_EQ(ends.launch_ends[0].correlation, 5u);
  EXPECT_EQ(ends.launch_ends[0].process_id, calls.api_calls[0].process_id);
}

// Found by the nsys_schema fuzz target: with small chunks, a row at rowid 2^62 planned 2^60
// chunks (a hang, then out of memory). A table is cut into at most 64 chunks.
TEST_F(ReaderTest, SparseRowidsNeverPlanMoreChunksThanATableNeeds) {
  std::filesystem::path file = Path("chunks.sqlite");
  {
    NsysSqliteBuilder builder(file);
    for (int i = 0; i < 10; ++i)
      builder.AddKernel(Kernel(i * 10, i * 10 + 5));
    builder.Finish();
  }
  Edit(file, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET rowid = 4611686018427387904 WHERE rowid = 10");
  NsysReadOptions options;
  options.rows_per_chunk = 4;
  Trace trace = ReadNsysSqlite(file, options);
  EXPECT_EQ(trace.activity_count(), 10u);
}

TEST_F(ReaderTest, RowCapacityBoundsReservationsByTheFileSize) {
  std::filesystem::path file = Path("capacity.sqlite");
  WriteLaunchedKernel(file);
  SqliteDatabase db(file);
  EXPECT_GT(db.RowCapacity(), 0);
  EXPECT_LE(db.RowCapacity(), static_cast<int64_t>(std::filesystem::file_size(file)) / 4);
  EXPECT_EQ(RowSpan(1, 0), 0);
  EXPECT_EQ(RowSpan(INT64_MIN, INT64_MAX), INT64_MAX);
}

// Finding 2: NVTX ranges skipped none of the checks activity rows get (integer type, timestamp
// bound), and `ranges` printed negative durations.
TEST_F(ReaderTest, NvtxRangesGetTheActivityChecks) {
  std::filesystem::path file = Path("nvtx_checks.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddKernel(Kernel(0, 10));
    for (int i = 0; i < 5; ++i)
      builder.AddNvtx(Range(i * 100, i * 100 + 50, "r"));
    builder.Finish();
  }
  Edit(file,
       "UPDATE NVTX_EVENTS SET start = 'abc' WHERE start = 0;"
       "UPDATE NVTX_EVENTS SET \"end\" = 150.5 WHERE start = 100;"
       "UPDATE NVTX_EVENTS SET start = -9223372036854775807 WHERE start = 200;"
       "UPDATE NVTX_EVENTS SET \"end\" = 9223372036854775807 WHERE start = 300;");
  Trace trace = ReadNsysSqlite(file);
  std::map<std::string, int64_t> reasons = SkipReasons(trace);
  EXPECT_EQ(reasons["non-integer timestamp"], 2);
  EXPECT_EQ(reasons["implausible timestamp"], 2);
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_EQ(trace.nvtx_ranges[0].start_ns, 400);
  for (const NvtxRange& range : trace.nvtx_ranges)
    EXPECT_GE(range.end_ns - range.start_ns, 0);
}

// Finding 6 (reader side): an op lasting ~2^63 ns passed the ±2^62 bound; durations are now
// bounded too, so sums of kept ops cannot run away.
TEST_F(ReaderTest, ImplausibleDurationsAreSkippedAndCounted) {
  std::filesystem::path file = Path("duration.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddKernel(Kernel(0, 10));
    builder.AddKernel(Kernel(-4611686018427387000, 4611686018427387000));
    builder.Finish();
  }
  Trace trace = ReadNsysSqlite(file);
  EXPECT_EQ(trace.activity_count(), 1u);
  EXPECT_EQ(SkipReasons(trace)["implausible duration"], 1);
}

// Finding 5: a missing `end` column fell back to SQLite's double-quoted string literal 'end'
// (read as 0), and ranges that exist nowhere in the file appeared.
TEST_F(ReaderTest, AMissingEndColumnIsAnErrorNotAStringLiteral) {
  for (const char* table : {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"}) {
    std::filesystem::path file = Path(std::string(table) + ".sqlite");
    WriteLaunchedKernel(file);
    Edit(file, (std::string("ALTER TABLE ") + table + " DROP COLUMN \"end\"").c_str());
    try {
      ReadNsysSqlite(file);
      ADD_FAILURE() << table << " without end was read";
    } catch (const InputError& error) {
      EXPECT_EQ(error.problem(), std::string("table ") + table + " lacks the column end");
    }
  }
}

TEST_F(ReaderTest, DoubleQuotedNamesNeverFallBackToStrings) {
  std::filesystem::path file = Path("dqs.sqlite");
  WriteLaunchedKernel(file);
  SqliteDatabase db(file);
  EXPECT_THROW(db.Prepare("SELECT \"no_such_column\" FROM StringIds"), InputError);
}

// The probe's P2 case: no API calls (time overlap), ranges X and Y on processes 1247 and 1248
// over a copy of process 1246, which has a range (Z) elsewhere: X and Y get nothing.
TEST_F(ReaderTest, TimeOverlapRangesOfOtherProcessesGetNoneOfAnOpsWork) {
  std::filesystem::path file = Path("p2.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddGpu(0, "GPU");
    MemcpyRow copy = Copy(1140380393, 1142162249, 1, 4194304);
    copy.pid = 1246;
    builder.AddMemcpy(copy);
    const auto range = [&](const char* text, uint32_t pid, int64_t start, int64_t end) {
      NvtxRow row;
      row.start_ns = start;
      row.end_ns = end;
      row.text = text;
      row.pid = pid;
      row.tid = pid;
      builder.AddNvtx(row);
    };
    range("X", 1247, 1141000000, 1142000000);
    range("Y", 1248, 1141000000, 1142000000);
    range("Z", 1246, 1138000000, 1138100000);
    builder.Finish();
  }
  const RangeSummary summary = SummarizeRanges(ReadNsysSqlite(file), {});
  ASSERT_EQ(summary.groups.size(), 3u);
  EXPECT_EQ(summary.method, AttributionMethod::kTimeOverlap);
  for (const RangeGroup& group : summary.groups)
    EXPECT_EQ(group.gpu_ops, 0) << group.name;
}

// The file's table is followed by symbol name for any id (64 and beyond too); an id a partial
// table lacks keeps its built-in meaning, unless the file names that meaning under another id.
TEST(NsysEnums, AnyIdFollowsTheFileAndAPartialTableFallsBackToTheBuiltIn) {
  NsysEnums enums;
  enums.SetCopyKinds({{64, "CUDA_MEMCPY_KIND_HTOD"}, {1000, "CUDA_MEMCPY_KIND_PTOP"}});
  EXPECT_EQ(enums.CopyEngine(64), Engine::kH2D);
  EXPECT_EQ(enums.CopySource(64), NsysEnums::Source::kTable);
  EXPECT_EQ(enums.CopyEngine(1000), Engine::kP2P);
  EXPECT_EQ(enums.CopyEngine(1), std::nullopt);  // HTOD is the file's 64: not guessed
  EXPECT_EQ(enums.conflicting_copy_ids(), (std::vector<int64_t>{1, 10}));
  EXPECT_EQ(enums.CopyEngine(2), Engine::kD2H);  // the file lacks DTOH: built-in
  EXPECT_EQ(enums.CopySource(2), NsysEnums::Source::kBuiltIn);
  EXPECT_EQ(enums.CopySource(99), NsysEnums::Source::kNone);

  enums.SetMemoryKinds(
      {{1, "CUDA_MEMOPR_MEMORY_KIND_PINNED"}, {70, "CUDA_MEMOPR_MEMORY_KIND_DEVICE"}});
  EXPECT_EQ(enums.Memory(70), MemoryKind::kDevice);
  EXPECT_EQ(enums.Memory(2), MemoryKind::kUnknown);  // DEVICE is the file's 70
  EXPECT_EQ(enums.MemorySource(2), NsysEnums::Source::kNone);
  EXPECT_EQ(enums.Memory(0), MemoryKind::kPageable);
  EXPECT_EQ(enums.MemorySource(0), NsysEnums::Source::kBuiltIn);
  EXPECT_EQ(enums.MemorySource(42), NsysEnums::Source::kNone);
}

// A partial ENUM_CUDA_MEM_KIND / ENUM_CUDA_MEMCPY_OPER: the ids it lacks are read by the built-in
// table and counted in a note; an id neither knows is Unknown and counted; a NULL copyKind is a
// missing field, not kind 0; copyCount 0 is counted.
TEST_F(ReaderTest, PartialEnumTablesUnknownKindsAndNullCopyKindAreSaid) {
  std::filesystem::path file = Path("partial.sqlite");
  {
    BuilderOptions options;
    options.allow_nulls = true;
    NsysSqliteBuilder builder(file, options);
    builder.AddGpu(0, "GPU");
    builder.AddMemcpy(Copy(100, 200, 1, 1000));  // pageable -> device
    MemcpyRow d2h = Copy(300, 400, 2, 1000);
    d2h.src_kind = 2;
    d2h.dst_kind = 42;  // in neither table
    builder.AddMemcpy(d2h);
    builder.AddMemcpy(Copy(500, 600, 8, 1000));  // copyKind set to NULL below
    builder.Finish();
  }
  Edit(
      file,
      "DELETE FROM ENUM_CUDA_MEM_KIND WHERE id = 0; DELETE FROM ENUM_CUDA_MEMCPY_OPER WHERE id = 2;"
      "UPDATE CUPTI_ACTIVITY_KIND_MEMCPY SET copyKind = NULL WHERE start = 500;");
  const Trace trace = ReadNsysSqlite(file);
  const std::map<Engine, int64_t> ops = EngineOps(trace);
  EXPECT_EQ(ops.at(Engine::kH2D), 1);
  EXPECT_EQ(ops.at(Engine::kD2H), 1);
  bool pageable = false;
  for (const OpSignature& signature : trace.signatures) {
    if (signature.engine == Engine::kH2D) pageable = signature.src_kind == MemoryKind::kPageable;
  }
  EXPECT_TRUE(pageable);
  const auto has_note = [&](std::string_view text) {
    return std::any_of(
        trace.diagnostics.notes().begin(), trace.diagnostics.notes().end(),
        [&](const std::string& note) { return note.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has_note("1 copy row(s) of a copy kind the file's ENUM_CUDA_MEMCPY_OPER lacks"));
  EXPECT_TRUE(
      has_note("1 memory kind(s) of copies and memsets that the file's ENUM_CUDA_MEM_KIND lacks"));
  EXPECT_TRUE(has_note("1 memory kind(s) of copies and memsets in neither"));
  ASSERT_EQ(trace.diagnostics.skips().size(), 1u);
  EXPECT_EQ(trace.diagnostics.skips()[0].reason, "null copyKind");
}

TEST_F(ReaderTest, CopyCountZeroIsCounted) {
  std::filesystem::path file = Path("count0.sqlite");
  {
    BuilderOptions options;
    options.schema = NsysSchema::k2025;
    NsysSqliteBuilder builder(file, options);
    builder.AddGpu(0, "GPU");
    MemcpyRow copy = Copy(100, 200, 1, 1000);
    copy.copy_count = 0;
    builder.AddMemcpy(copy);
    builder.Finish();
  }
  const Trace trace = ReadNsysSqlite(file);
  EXPECT_NE(std::find(trace.diagnostics.notes().begin(), trace.diagnostics.notes().end(),
                      "1 copy row(s) with copyCount 0 or negative: each counted as one copy"),
            trace.diagnostics.notes().end());
}

// NULL name ids (damaged exports): a kernel's shortName and a call's nameId are counted in notes,
// never labelled without a word.
TEST_F(ReaderTest, NullNameIdsAreCounted) {
  std::filesystem::path file = Path("nullnames.sqlite");
  BuilderOptions options;
  options.allow_nulls = true;
  WriteLaunchedKernel(file, options);
  Edit(
      file,
      "CREATE TABLE k AS SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL;"
      "DROP TABLE CUPTI_ACTIVITY_KIND_KERNEL; ALTER TABLE k RENAME TO CUPTI_ACTIVITY_KIND_KERNEL;"
      "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET shortName = NULL;"
      "CREATE TABLE r AS SELECT * FROM CUPTI_ACTIVITY_KIND_RUNTIME;"
      "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME; ALTER TABLE r RENAME TO CUPTI_ACTIVITY_KIND_RUNTIME;"
      "UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET nameId = NULL;");
  NsysReadOptions read;
  read.all_api_calls = true;
  const Trace trace = ReadNsysSqlite(file, read);
  const std::vector<std::string>& notes = trace.diagnostics.notes();
  const auto has = [&](std::string_view text) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& note) {
      return note.find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(has("1 kernel row(s) with a NULL shortName: shown as \"(unnamed kernel)\""));
  // Review finding F5: not string id 0, a real string in many exports.
  ASSERT_EQ(trace.activity_count(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.signatures[trace.blocks[0].signature[0]].name),
            "(unnamed kernel)");
  EXPECT_TRUE(has("1 API call(s) with a NULL nameId"));
}

// Exact duplicate rows (a concatenated or merged export: every column equal) are dropped and
// counted, as the Kineto reader does; a second kernel of the same call and start but another
// stream is kept.
TEST_F(ReaderTest, ExactDuplicateRowsAreDroppedAndCounted) {
  std::filesystem::path file = Path("dup.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddGpu(0, "GPU");
    KernelRow kernel = Kernel(100, 200);
    kernel.correlation = 5;
    builder.AddKernel(kernel);
    kernel.stream = 8;
    builder.AddKernel(kernel);
    testsupport::ApiCallRow call;
    call.start_ns = 50;
    call.end_ns = 60;
    call.correlation = 5;
    builder.AddApiCall(call);
    builder.Finish();
  }
  AppendToItself(file, {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME"});
  NsysReadOptions read;
  read.all_api_calls = true;
  const Trace trace = ReadNsysSqlite(file, read);
  EXPECT_EQ(EngineOps(trace).at(Engine::kKernel), 2);
  EXPECT_EQ(trace.api_calls.size(), 1u);
  std::map<std::string, int64_t> duplicates;
  for (const SkipCount& skip : trace.diagnostics.skips()) {
    if (skip.reason == "exact duplicate row") duplicates[skip.table] += skip.count;
  }
  EXPECT_EQ(duplicates["CUPTI_ACTIVITY_KIND_KERNEL"], 2);
  EXPECT_EQ(duplicates["CUPTI_ACTIVITY_KIND_RUNTIME"], 1);
  EXPECT_FALSE(trace.diagnostics.has_data_loss());
}

// Review finding F1: a table appended to itself puts each copy in another rowid chunk; copies
// are found across chunks, so the figures do not depend on the chunk size or the thread count.
TEST_F(ReaderTest, DuplicatesInOtherChunksAreFoundWhateverTheThreads) {
  std::filesystem::path file = Path("dup_chunks.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddGpu(0, "GPU");
    for (int64_t i = 0; i < 50; ++i) {
      KernelRow kernel = Kernel(1000 * i, 1000 * i + 500);
      kernel.correlation = static_cast<uint32_t>(i + 1);
      builder.AddKernel(kernel);
    }
    builder.Finish();
  }
  AppendToItself(file, {"CUPTI_ACTIVITY_KIND_KERNEL"});
  for (int64_t rows_per_chunk : {0, 7, 50}) {
    for (int threads : {1, 4}) {
      for (ReadDetail detail : {ReadDetail::kFull, ReadDetail::kEngineLoad}) {
        NsysReadOptions read;
        read.rows_per_chunk = rows_per_chunk;
        read.threads = threads;
        read.detail = detail;
        const Trace trace = ReadNsysSqlite(file, read);
        SCOPED_TRACE(fmt::format("rows_per_chunk {} threads {}", rows_per_chunk, threads));
        EXPECT_EQ(trace.activity_count(), 50u);
        EXPECT_EQ(SkipReasons(trace)["exact duplicate row"], 50);
        EXPECT_EQ(trace.diagnostics.records_used(), 50);
      }
    }
  }
}

// Review finding F2: one rule whatever a command reads. A zero-duration op and its twin are both
// kept (two nodes of one CUDA graph can read alike), a copy with correlation id 0 that takes
// time is dropped, with or without correlation ids read.
TEST_F(ReaderTest, TheDuplicateRuleIsTheSameForEveryReadDetail) {
  std::filesystem::path file = Path("dup_rule.sqlite");
  {
    NsysSqliteBuilder builder(file);
    builder.AddGpu(0, "GPU");
    KernelRow kernel = Kernel(100, 100);
    kernel.correlation = 5;
    builder.AddKernel(kernel);
    builder.AddMemcpy(Copy(300, 400, 1, 64));  // correlation id 0
    builder.Finish();
  }
  AppendToItself(file, {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY"});
  for (ReadDetail detail : {ReadDetail::kFull, ReadDetail::kEngineLoad}) {
    NsysReadOptions read;
    read.detail = detail;
    const Trace trace = ReadNsysSqlite(file, read);
    EXPECT_EQ(EngineOps(trace).at(Engine::kKernel), 2);
    EXPECT_EQ(EngineOps(trace).at(Engine::kH2D), 1);
    EXPECT_EQ(SkipReasons(trace)["exact duplicate row"], 1);
  }
}

TEST(NsysEnums, SymbolsMapToEnginesAndMemoryKinds) {
  EXPECT_EQ(NsysEnums::EngineFromCopySymbol("CUDA_MEMCPY_KIND_PTOP"), Engine::kP2P);
  EXPECT_EQ(NsysEnums::EngineFromCopySymbol("CUDA_MEMCPY_KIND_UNKNOWN"), std::nullopt);
  EXPECT_EQ(NsysEnums::MemoryFromSymbol("CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC"),
            MemoryKind::kManagedStatic);
  NsysEnums builtin;
  EXPECT_EQ(builtin.CopyEngine(8), Engine::kD2D);
  EXPECT_EQ(builtin.CopyEngine(0), std::nullopt);
  EXPECT_EQ(builtin.Memory(0), MemoryKind::kPageable);  // nsys numbering, not CUPTI's
  EXPECT_EQ(builtin.Memory(42), MemoryKind::kUnknown);
}

TEST(MakeValidUtf8, ReplacesInvalidBytesOnly) {
  EXPECT_EQ(MakeValidUtf8("plain"), "plain");
  EXPECT_EQ(MakeValidUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(MakeValidUtf8("Jos\xe1"), "Jos\xef\xbf\xbd");  // Latin-1 byte from a real export
  EXPECT_EQ(MakeValidUtf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  // surrogate
}

}  // namespace
}  // namespace gpuroof
