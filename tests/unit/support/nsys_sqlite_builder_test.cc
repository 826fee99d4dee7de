#include "support/nsys_sqlite_builder.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sqlite_test_util.h"

namespace gpuroof::testsupport {
namespace {

using ::gpuroof::testsupport::testing::Row;
using ::gpuroof::testsupport::testing::ScratchDir;
using ::gpuroof::testsupport::testing::TestDb;

constexpr int64_t kGlobalPid4242 = (int64_t{1} << 48) | (int64_t{4242} << 24);

// Column lists as `pragma table_info` prints them for real exports (2021.5.2 saxpy, 2022.4.2
// streams4, 2024.6.2 sigma, 2025.1.1 fuser for the green-context MEMSET); 2020 from the schema
// reference.
const std::vector<std::string> kKernel2022 = {"start",
                                              "end",
                                              "deviceId",
                                              "contextId",
                                              "streamId",
                                              "correlationId",
                                              "globalPid",
                                              "demangledName",
                                              "shortName",
                                              "mangledName",
                                              "launchType",
                                              "cacheConfig",
                                              "registersPerThread",
                                              "gridX",
                                              "gridY",
                                              "gridZ",
                                              "blockX",
                                              "blockY",
                                              "blockZ",
                                              "staticSharedMemory",
                                              "dynamicSharedMemory",
                                              "localMemoryPerThread",
                                              "localMemoryTotal",
                                              "gridId",
                                              "sharedMemoryExecuted",
                                              "graphNodeId",
                                              "sharedMemoryLimitConfig"};
const std::vector<std::string> kKernel2024 = {"start",
                                              "end",
                                              "deviceId",
                                              "contextId",
                                              "greenContextId",
                                              "streamId",
                                              "correlationId",
                                              "globalPid",
                                              "demangledName",
                                              "shortName",
                                              "mangledName",
                                              "launchType",
                                              "cacheConfig",
                                              "registersPerThread",
                                              "gridX",
                                              "gridY",
                                              "gridZ",
                                              "blockX",
                                              "blockY",
                                              "blockZ",
                                              "staticSharedMemory",
                                              "dynamicSharedMemory",
                                              "localMemoryPerThread",
                                              "localMemoryTotal",
                                              "gridId",
                                              "sharedMemoryExecuted",
                                              "graphNodeId",
                                              "sharedMemoryLimitConfig"};
const std::vector<std::string> kKernel2020 = {"start",
                                              "end",
                                              "deviceId",
                                              "contextId",
                                              "streamId",
                                              "correlationId",
                                              "globalPid",
                                              "demangledName",
                                              "shortName",
                                              "launchType",
                                              "cacheConfig",
                                              "registersPerThread",
                                              "gridX",
                                              "gridY",
                                              "gridZ",
                                              "blockX",
                                              "blockY",
                                              "blockZ",
                                              "staticSharedMemory",
                                              "dynamicSharedMemory",
                                              "localMemoryPerThread",
                                              "localMemoryTotal",
                                              "gridId",
                                              "sharedMemoryExecuted",
                                              "graphNodeId"};
const std::vector<std::string> kMemcpy2022 = {"start",          "end",
                                              "deviceId",       "contextId",
                                              "streamId",       "correlationId",
                                              "globalPid",      "bytes",
                                              "copyKind",       "deprecatedSrcId",
                                              "srcKind",        "dstKind",
                                              "srcDeviceId",    "srcContextId",
                                              "dstDeviceId",    "dstContextId",
                                              "migrationCause", "graphNodeId",
                                              "virtualAddress"};
const std::vector<std::string> kMemcpy2024 = {
    "start",           "end",           "deviceId",       "contextId",   "greenContextId",
    "streamId",        "correlationId", "globalPid",      "bytes",       "copyKind",
    "deprecatedSrcId", "srcKind",       "dstKind",        "srcDeviceId", "srcContextId",
    "dstDeviceId",     "dstContextId",  "migrationCause", "graphNodeId", "virtualAddress"};
// 2025.1.3 added copyCount at the end (../shared/refs/nsys-sqlite-schema.md, section 3.3).
std::vector<std::string> Memcpy2025() {
  std::vector<std::string> columns = kMemcpy2024;
  columns.push_back("copyCount");
  return columns;
}
const std::vector<std::string> kMemcpy2020 = {
    "start",       "end",          "deviceId",    "contextId",       "streamId",   "correlationId",
    "globalPid",   "bytes",        "copyKind",    "deprecatedSrcId", "srcKind",    "dstKind",
    "srcDeviceId", "srcContextId", "dstDeviceId", "dstContextId",    "graphNodeId"};
const std::vector<std::string> kMemset2022 = {"start",    "end",           "deviceId",  "contextId",
                                              "streamId", "correlationId", "globalPid", "value",
                                              "bytes",    "graphNodeId",   "memKind"};
const std::vector<std::string> kMemset2024 = {
    "start",         "end",       "deviceId", "contextId", "greenContextId", "streamId",
    "correlationId", "globalPid", "value",    "bytes",     "graphNodeId",    "memKind"};
const std::vector<std::string> kNvtx = {"start",        "end",         "eventType",   "rangeId",
                                        "category",     "color",       "text",        "globalTid",
                                        "endGlobalTid", "textId",      "domainId",    "uint64Value",
                                        "int64Value",   "doubleValue", "uint32Value", "int32Value",
                                        "floatValue",   "jsonTextId",  "jsonText"};
const std::vector<std::string> kGpu2020 = {"vmId", "deviceId", "name", "busLocation", "isDiscrete"};

KernelRow Kernel(int64_t start, int64_t end) {
  KernelRow row;
  row.start_ns = start;
  row.end_ns = end;
  return row;
}

MemcpyRow Memcpy(int64_t start, int64_t end) {
  MemcpyRow row;
  row.start_ns = start;
  row.end_ns = end;
  return row;
}

MemsetRow Memset(int64_t start, int64_t end) {
  MemsetRow row;
  row.start_ns = start;
  row.end_ns = end;
  return row;
}

// One row of every kind, so every table exists.
void BuildOneOfEach(const std::filesystem::path& path, NsysSchema schema) {
  NsysSqliteBuilder builder(path, {.schema = schema});
  builder.AddGpu(0, "NVIDIA H200");
  builder.AddKernel(Kernel(10, 20));
  builder.AddMemcpy(Memcpy(30, 40));
  builder.AddMemset(Memset(50, 60));
  NvtxRow nvtx;
  nvtx.text = "range";
  nvtx.end_ns = 5;
  builder.AddNvtx(nvtx);
  builder.Finish();
}

class SchemaTest : public ::testing::TestWithParam<NsysSchema> {};

TEST_P(SchemaTest, ColumnsFollowRealExportsOfThatEra) {
  ScratchDir dir;
  BuildOneOfEach(dir / "t.sqlite", GetParam());
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Columns("StringIds"), (std::vector<std::string>{"id", "value"}));
  EXPECT_EQ(db.Text("SELECT pk FROM pragma_table_info('StringIds') WHERE name = 'id'"), "1");
  EXPECT_TRUE(db.NotNull("StringIds", "value"));
  EXPECT_EQ(db.Columns("NVTX_EVENTS"), kNvtx);
  switch (GetParam()) {
    case NsysSchema::k2020:
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_KERNEL"), kKernel2020);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMCPY"), kMemcpy2020);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMSET"), kMemset2022);
      EXPECT_EQ(db.Columns("TARGET_INFO_GPU"), kGpu2020);
      break;
    case NsysSchema::k2021:
    case NsysSchema::k2022:
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_KERNEL"), kKernel2022);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMCPY"), kMemcpy2022);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMSET"), kMemset2022);
      break;
    case NsysSchema::k2024:
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_KERNEL"), kKernel2024);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMCPY"), kMemcpy2024);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMSET"), kMemset2024);
      break;
    case NsysSchema::k2025:
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_KERNEL"), kKernel2024);
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMCPY"), Memcpy2025());
      EXPECT_EQ(db.Columns("CUPTI_ACTIVITY_KIND_MEMSET"), kMemset2024);
      break;
  }
  if (GetParam() != NsysSchema::k2020) {
    const std::vector<std::string> gpu = db.Columns("TARGET_INFO_GPU");
    ASSERT_EQ(gpu.size(), 41u);
    EXPECT_EQ(gpu[0], "vmId");
    EXPECT_EQ(gpu[1], "id");
    EXPECT_EQ(gpu[27], "asyncEngines");
    EXPECT_EQ(gpu[40], "smMinor");
  }
  // NOT NULL constraints as in the real DDL.
  EXPECT_TRUE(db.NotNull("CUPTI_ACTIVITY_KIND_KERNEL", "start"));
  EXPECT_TRUE(db.NotNull("CUPTI_ACTIVITY_KIND_KERNEL", "shortName"));
  EXPECT_FALSE(db.NotNull("CUPTI_ACTIVITY_KIND_KERNEL", "correlationId"));
  EXPECT_TRUE(db.NotNull("CUPTI_ACTIVITY_KIND_MEMCPY", "copyKind"));
  EXPECT_TRUE(db.NotNull("NVTX_EVENTS", "start"));
  EXPECT_FALSE(db.NotNull("NVTX_EVENTS", "end"));
}

TEST_P(SchemaTest, MetadataAndEnumTablesMatchTheEra) {
  ScratchDir dir;
  BuildOneOfEach(dir / "t.sqlite", GetParam());
  TestDb db(dir / "t.sqlite");
  const NsysSchema schema = GetParam();
  const bool has_enums = schema >= NsysSchema::k2022;
  EXPECT_EQ(db.HasTable("ENUM_CUDA_MEMCPY_OPER"), has_enums);
  EXPECT_EQ(db.HasTable("ENUM_CUDA_MEM_KIND"), has_enums);
  EXPECT_EQ(db.HasTable("EXPORT_META_DATA"),
            schema == NsysSchema::k2021 || schema == NsysSchema::k2022);
  EXPECT_EQ(db.HasTable("META_DATA_EXPORT"), schema >= NsysSchema::k2024);

  auto meta = [&db](const std::string& table, const std::string& key) {
    return db.Text("SELECT value FROM " + table + " WHERE name = '" + key + "'");
  };
  switch (schema) {
    case NsysSchema::k2020:
      break;
    case NsysSchema::k2021:
      EXPECT_EQ(meta("EXPORT_META_DATA", "EXPORT_PRODUCT_NAME"), "NVIDIA Nsight Systems");
      EXPECT_EQ(meta("EXPORT_META_DATA", "EXPORT_PRODUCT_VERSION"), "2021.5.2.53");
      EXPECT_EQ(meta("EXPORT_META_DATA", "EXPORT_SCHEMA_VERSION"), "2.7.0");
      break;
    case NsysSchema::k2022:
      EXPECT_EQ(meta("EXPORT_META_DATA", "EXPORT_PRODUCT_VERSION"), "2022.4.2.1");
      EXPECT_EQ(meta("EXPORT_META_DATA", "EXPORT_SCHEMA_VERSION"), "3.0.0");
      break;
    case NsysSchema::k2024:
      EXPECT_EQ(meta("META_DATA_EXPORT", "EXPORT_PRODUCT_NAME"), "NVIDIA Nsight Systems");
      EXPECT_EQ(meta("META_DATA_EXPORT", "EXPORT_PRODUCT_VERSION"), "2024.6.2.0");
      EXPECT_EQ(meta("META_DATA_EXPORT", "EXPORT_SCHEMA_VERSION"), "3.16.1");
      EXPECT_EQ(meta("META_DATA_EXPORT", "EXPORT_SCHEMA_VERSION_MINOR"), "16");
      break;
    case NsysSchema::k2025:
      EXPECT_EQ(meta("META_DATA_EXPORT", "EXPORT_PRODUCT_VERSION"), "2025.1.3.140");
      EXPECT_EQ(meta("META_DATA_EXPORT", "EXPORT_SCHEMA_VERSION"), "3.17.2");
      break;
  }
  if (has_enums) {
    EXPECT_EQ(db.Columns("ENUM_CUDA_MEMCPY_OPER"),
              (std::vector<std::string>{"id", "name", "label"}));
    EXPECT_EQ(db.Int("SELECT count(*) FROM ENUM_CUDA_MEMCPY_OPER"), 14);
    EXPECT_EQ(db.Int("SELECT min(id) FROM ENUM_CUDA_MEMCPY_OPER"), 0);
    EXPECT_EQ(db.Int("SELECT max(id) FROM ENUM_CUDA_MEMCPY_OPER"), 13);
    EXPECT_EQ(db.Query("SELECT name, label FROM ENUM_CUDA_MEMCPY_OPER WHERE id IN (1, 8, 10, 13) "
                       "ORDER BY id"),
              (std::vector<Row>{{"CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"},
                                {"CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"},
                                {"CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer"},
                                {"CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device"}}));
    EXPECT_EQ(db.Int("SELECT count(*) FROM ENUM_CUDA_MEM_KIND"), 8);
    EXPECT_EQ(db.Query("SELECT name, label FROM ENUM_CUDA_MEM_KIND WHERE id IN (0, 2, 5, 7) "
                       "ORDER BY id"),
              (std::vector<Row>{{"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable"},
                                {"CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device"},
                                {"CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static"},
                                {"CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown"}}));
  }
}

TEST_P(SchemaTest, GpuRowIsKeyedLikeTheEra) {
  ScratchDir dir;
  BuildOneOfEach(dir / "t.sqlite", GetParam());
  TestDb db(dir / "t.sqlite");
  const std::string key = GetParam() == NsysSchema::k2020 ? "deviceId" : "id";
  EXPECT_EQ(db.Query("SELECT vmId, " + key + ", name, isDiscrete FROM TARGET_INFO_GPU"),
            (std::vector<Row>{{"281474976710656", "0", "NVIDIA H200", "1"}}));
}

INSTANTIATE_TEST_SUITE_P(Schemas, SchemaTest,
                         ::testing::Values(NsysSchema::k2020, NsysSchema::k2021, NsysSchema::k2022,
                                           NsysSchema::k2024, NsysSchema::k2025),
                         [](const ::testing::TestParamInfo<NsysSchema>& param_info) {
                           switch (param_info.param) {
                             case NsysSchema::k2020:
                               return std::string("k2020");
                             case NsysSchema::k2021:
                               return std::string("k2021");
                             case NsysSchema::k2022:
                               return std::string("k2022");
                             case NsysSchema::k2024:
                               return std::string("k2024");
                             case NsysSchema::k2025:
                               return std::string("k2025");
                           }
                           return std::string("unknown");
                         });

TEST(NsysSqliteBuilderTest, TablesAreCreatedLazily) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    builder.AddKernel(Kernel(1, 2));
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_TRUE(db.HasTable("StringIds"));
  EXPECT_TRUE(db.HasTable("CUPTI_ACTIVITY_KIND_KERNEL"));
  EXPECT_FALSE(db.HasTable("CUPTI_ACTIVITY_KIND_MEMCPY"));
  EXPECT_FALSE(db.HasTable("CUPTI_ACTIVITY_KIND_MEMSET"));
  EXPECT_FALSE(db.HasTable("NVTX_EVENTS"));
  EXPECT_FALSE(db.HasTable("TARGET_INFO_GPU"));
  // nsys creates no indexes; neither do we.
  EXPECT_EQ(db.Int("SELECT count(*) FROM sqlite_master WHERE type = 'index'"), 0);
}

TEST(NsysSqliteBuilderTest, CreateEmptyTableMakesAPresentButEmptyTable) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    builder.CreateEmptyTable(NsysSqliteBuilder::Table::kMemset);
    builder.CreateEmptyTable(NsysSqliteBuilder::Table::kMemset);  // idempotent
    builder.CreateEmptyTable(NsysSqliteBuilder::Table::kNvtx);
    builder.CreateEmptyTable(NsysSqliteBuilder::Table::kKernel);
    builder.AddKernel(Kernel(1, 2));  // still usable after an explicit create
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET"), 0);
  EXPECT_EQ(db.Int("SELECT count(*) FROM NVTX_EVENTS"), 0);
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
  EXPECT_FALSE(db.HasTable("CUPTI_ACTIVITY_KIND_MEMCPY"));
}

TEST(NsysSqliteBuilderTest, KernelRowValuesAndNameInterning) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    KernelRow a = Kernel(100, 250);
    a.short_name = "gemm";
    a.demangled_name = "void gemm<float>(float const*, float*, int)";
    a.device = 1;
    a.context = 3;
    a.stream = 13;
    a.correlation = 77;
    a.grid = {256, 2, 1};
    a.block = {128, 1, 4};
    builder.AddKernel(a);
    KernelRow b = Kernel(300, 400);
    b.short_name = "relu";  // demangled empty -> same string id
    b.pid = 1;
    builder.AddKernel(b);
    a.start_ns = 500;
    a.end_ns = 600;
    builder.AddKernel(a);  // same names again -> same ids
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT start, end, deviceId, contextId, greenContextId, streamId, "
                     "correlationId, globalPid, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                     "gridId, registersPerThread, mangledName, graphNodeId "
                     "FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start LIMIT 1"),
            (std::vector<Row>{{"100", "250", "1", "3", "0", "13", "77",
                               std::to_string(kGlobalPid4242), "256", "2", "1", "128", "1", "4",
                               "1", "32", std::nullopt, std::nullopt}}));
  EXPECT_EQ(db.Query("SELECT s.value, d.value, k.gridId, k.globalPid >> 24 & 16777215, "
                     "k.globalPid >> 48 FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                     "JOIN StringIds s ON s.id = k.shortName "
                     "JOIN StringIds d ON d.id = k.demangledName ORDER BY k.start"),
            (std::vector<Row>{
                {"gemm", "void gemm<float>(float const*, float*, int)", "1", "4242", "1"},
                {"relu", "relu", "2", "1", "1"},
                {"gemm", "void gemm<float>(float const*, float*, int)", "3", "4242", "1"}}));
  // Each distinct string stored once, ids from 0 like nsys.
  EXPECT_EQ(db.Int("SELECT count(*) FROM StringIds"), 3);
  EXPECT_EQ(db.Int("SELECT min(id) FROM StringIds"), 0);
  EXPECT_EQ(db.Int("SELECT count(DISTINCT value) FROM StringIds"), 3);
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE shortName = "
                   "demangledName"),
            1);
}

TEST(NsysSqliteBuilderTest, MemcpyRowValues) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    MemcpyRow h2d = Memcpy(0, 1000);
    h2d.bytes = 8388608;
    h2d.correlation = 5;
    builder.AddMemcpy(h2d);
    MemcpyRow peer = Memcpy(2000, 3000);
    peer.copy_kind = 10;
    peer.bytes = (uint64_t{1} << 40);
    peer.src_kind = 2;
    peer.src_device = 0;
    peer.dst_device = 1;
    peer.context = 9;
    builder.AddMemcpy(peer);
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(
      db.Query("SELECT start, end, bytes, copyKind, srcKind, dstKind, srcDeviceId, "
               "srcContextId, dstDeviceId, dstContextId, correlationId, streamId, "
               "greenContextId, globalPid, migrationCause, virtualAddress "
               "FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY start"),
      (std::vector<Row>{
          {"0", "1000", "8388608", "1", "0", "2", std::nullopt, std::nullopt, std::nullopt,
           std::nullopt, "5", "7", "0", std::to_string(kGlobalPid4242), std::nullopt, std::nullopt},
          {"2000", "3000", "1099511627776", "10", "2", "2", "0", "9", "1", "9", "0", "7", "0",
           std::to_string(kGlobalPid4242), std::nullopt, std::nullopt}}));
}

TEST(NsysSqliteBuilderTest, MemsetRowValues) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite", {.schema = NsysSchema::k2022});
    MemsetRow row = Memset(10, 30);
    row.bytes = 4096;
    row.value = 255;
    row.mem_kind = 4;
    row.stream = 14;
    builder.AddMemset(row);
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT start, end, value, bytes, memKind, streamId, graphNodeId "
                     "FROM CUPTI_ACTIVITY_KIND_MEMSET"),
            (std::vector<Row>{{"10", "30", "255", "4096", "4", "14", std::nullopt}}));
}

TEST(NsysSqliteBuilderTest, NvtxRowsAndDomains) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    builder.AddDomain(1, "TensorRT");
    NvtxRow inline_text;
    inline_text.start_ns = 100;
    inline_text.end_ns = 200;
    inline_text.text = "step";
    inline_text.tid = 17;
    builder.AddNvtx(inline_text);
    NvtxRow registered;
    registered.start_ns = 150;
    registered.end_ns = 190;
    registered.registered_text = "enqueue";
    registered.domain_id = 1;
    registered.event_type = 60;
    registered.range_id = 844;
    builder.AddNvtx(registered);
    NvtxRow mark;
    mark.start_ns = -5;
    mark.event_type = 34;
    mark.text = "checkpoint";
    builder.AddNvtx(mark);
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  const std::string gpid = std::to_string(kGlobalPid4242 | 4242);
  EXPECT_EQ(db.Query("SELECT start, end, eventType, rangeId, text, globalTid, endGlobalTid, "
                     "(SELECT value FROM StringIds WHERE id = textId), domainId "
                     "FROM NVTX_EVENTS ORDER BY start"),
            (std::vector<Row>{
                {"-5", std::nullopt, "34", std::nullopt, "checkpoint", gpid, std::nullopt,
                 std::nullopt, "0"},
                {"0", std::nullopt, "75", std::nullopt, "TensorRT", gpid, std::nullopt,
                 std::nullopt, "1"},
                {"100", "200", "59", std::nullopt, "step", std::to_string(kGlobalPid4242 | 17),
                 std::nullopt, std::nullopt, "0"},
                {"150", "190", "60", "844", std::nullopt, gpid, std::nullopt, "enqueue", "1"}}));
  // The documented name rule: <domain>:<text>, domain from the eventType-75 row of the process.
  EXPECT_EQ(db.Text("SELECT d.text || ':' || s.value FROM NVTX_EVENTS e "
                    "JOIN StringIds s ON s.id = e.textId "
                    "JOIN NVTX_EVENTS d ON d.eventType = 75 AND d.domainId = e.domainId "
                    "AND d.globalTid >> 24 = e.globalTid >> 24"),
            "TensorRT:enqueue");
}

TEST(NsysSqliteBuilderTest, NullTimestampsNeedAllowNulls) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "strict.sqlite");
    KernelRow row;
    row.start_ns = 5;  // end missing
    try {
      builder.AddKernel(row);
      FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("KernelRow.end_ns is null"), std::string::npos)
          << e.what();
    }
    EXPECT_THROW(builder.AddMemcpy(MemcpyRow{}), std::invalid_argument);
    EXPECT_THROW(builder.AddMemset(MemsetRow{}), std::invalid_argument);
    builder.AddKernel(Kernel(1, 2));  // the builder stays usable
    builder.Finish();
  }
  {
    TestDb db(dir / "strict.sqlite");
    EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
  }
  {
    NsysSqliteBuilder builder(dir / "lax.sqlite", {.allow_nulls = true});
    KernelRow row;
    row.start_ns = 5;
    builder.AddKernel(row);
    builder.AddMemcpy(MemcpyRow{});
    builder.AddMemset(MemsetRow{});
    builder.Finish();
  }
  TestDb db(dir / "lax.sqlite");
  EXPECT_FALSE(db.NotNull("CUPTI_ACTIVITY_KIND_KERNEL", "start"));
  EXPECT_FALSE(db.NotNull("CUPTI_ACTIVITY_KIND_KERNEL", "shortName"));
  EXPECT_EQ(db.Query("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            (std::vector<Row>{{"5", std::nullopt}}));
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE start IS NULL"), 1);
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE end IS NULL"), 1);
}

TEST(NsysSqliteBuilderTest, OutputAppearsOnlyAfterFinish) {
  ScratchDir dir;
  const std::filesystem::path out = dir / "t.sqlite";
  NsysSqliteBuilder builder(out);
  builder.AddKernel(Kernel(1, 2));
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(std::filesystem::exists(dir / "t.sqlite.tmp"));
  builder.Finish();
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(dir / "t.sqlite.tmp"));
}

TEST(NsysSqliteBuilderTest, AbandonedBuilderLeavesNothingAndKeepsAnOldOutput) {
  ScratchDir dir;
  const std::filesystem::path out = dir / "t.sqlite";
  {
    NsysSqliteBuilder builder(dir / "fresh.sqlite");
    builder.AddKernel(Kernel(1, 2));
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "fresh.sqlite"));
  EXPECT_FALSE(std::filesystem::exists(dir / "fresh.sqlite.tmp"));

  { std::ofstream(out) << "previous"; }
  {
    NsysSqliteBuilder builder(out);
    builder.AddKernel(Kernel(1, 2));
  }
  std::ifstream in(out);
  std::string content;
  std::getline(in, content);
  EXPECT_EQ(content, "previous");
  EXPECT_FALSE(std::filesystem::exists(dir / "t.sqlite.tmp"));
}

TEST(NsysSqliteBuilderTest, FinishReplacesAnExistingFileAndStaleTemporary) {
  ScratchDir dir;
  const std::filesystem::path out = dir / "t.sqlite";
  { std::ofstream(out) << "previous"; }
  { std::ofstream(dir / "t.sqlite.tmp") << "stale garbage from a crashed run"; }
  NsysSqliteBuilder builder(out);
  builder.AddKernel(Kernel(1, 2));
  builder.Finish();
  TestDb db(out);
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 1);
}

TEST(NsysSqliteBuilderTest, CallsAfterFinishThrow) {
  ScratchDir dir;
  NsysSqliteBuilder builder(dir / "t.sqlite");
  builder.Finish();
  EXPECT_THROW(builder.AddKernel(Kernel(1, 2)), std::logic_error);
  EXPECT_THROW(builder.SetMetadata("a", "b"), std::logic_error);
  EXPECT_THROW(builder.Finish(), std::logic_error);
}

TEST(NsysSqliteBuilderTest, SetEnumRowOverridesAndAdds) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite", {.schema = NsysSchema::k2022});
    builder.SetEnumRow("ENUM_CUDA_MEMCPY_OPER", 1, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host");
    builder.SetEnumRow("ENUM_CUDA_MEM_KIND", 42, "CUDA_MEMOPR_MEMORY_KIND_FUTURE", "Future");
    EXPECT_THROW(builder.SetEnumRow("ENUM_CUDA_FUNC_CACHE_CONFIG", 0, "x", "y"),
                 std::invalid_argument);
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT name, label FROM ENUM_CUDA_MEMCPY_OPER WHERE id = 1"),
            (std::vector<Row>{{"CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"}}));
  EXPECT_EQ(db.Int("SELECT count(*) FROM ENUM_CUDA_MEMCPY_OPER"), 14);
  EXPECT_EQ(db.Text("SELECT label FROM ENUM_CUDA_MEM_KIND WHERE id = 42"), "Future");
  EXPECT_EQ(db.Int("SELECT count(*) FROM ENUM_CUDA_MEM_KIND"), 9);
}

TEST(NsysSqliteBuilderTest, EnumAndMetadataNeedTablesTheSchemaHas) {
  ScratchDir dir;
  NsysSqliteBuilder b2021(dir / "a.sqlite", {.schema = NsysSchema::k2021});
  EXPECT_THROW(b2021.SetEnumRow("ENUM_CUDA_MEMCPY_OPER", 1, "x", "y"), std::invalid_argument);
  NsysSqliteBuilder b2020(dir / "b.sqlite", {.schema = NsysSchema::k2020});
  EXPECT_THROW(b2020.SetMetadata("EXPORT_PRODUCT_VERSION", "2020.3"), std::invalid_argument);
  b2020.Finish();  // still usable
}

TEST(NsysSqliteBuilderTest, SetMetadataOverridesAndAdds) {
  ScratchDir dir;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    builder.SetMetadata("EXPORT_PRODUCT_VERSION", "2099.1");
    builder.SetMetadata("EXPORT_PARAM_TIME_SHIFT", "true");
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Query("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PRODUCT_VERSION'"),
            (std::vector<Row>{{"2099.1"}}));
  EXPECT_EQ(db.Text("SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_PARAM_TIME_SHIFT'"),
            "true");
}

TEST(NsysSqliteBuilderTest, RejectsIdsWiderThanNsysPacks) {
  ScratchDir dir;
  NsysSqliteBuilder builder(dir / "t.sqlite");
  KernelRow kernel = Kernel(1, 2);
  kernel.pid = 1u << 24;
  EXPECT_THROW(builder.AddKernel(kernel), std::invalid_argument);
  NvtxRow nvtx;
  nvtx.tid = 1u << 24;
  EXPECT_THROW(builder.AddNvtx(nvtx), std::invalid_argument);
  kernel.pid = (1u << 24) - 1;
  builder.AddKernel(kernel);
  builder.Finish();
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Int("SELECT (globalPid >> 24) & 16777215 FROM CUPTI_ACTIVITY_KIND_KERNEL"),
            (1 << 24) - 1);
}

TEST(NsysSqliteBuilderTest, UnwritableLocationThrowsRuntimeError) {
  ScratchDir dir;
  try {
    NsysSqliteBuilder builder(dir / "no" / "such" / "dir" / "t.sqlite");
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("t.sqlite.tmp"), std::string::npos) << e.what();
  }
}

TEST(NsysSqliteBuilderTest, ManyRowsInOneFile) {
  ScratchDir dir;
  constexpr int kRows = 50000;
  {
    NsysSqliteBuilder builder(dir / "t.sqlite");
    KernelRow kernel = Kernel(0, 0);
    kernel.short_name = "k";
    MemcpyRow copy = Memcpy(0, 0);
    copy.bytes = 64;
    for (int i = 0; i < kRows; ++i) {
      kernel.start_ns = i * 10;
      kernel.end_ns = i * 10 + 5;
      kernel.stream = 13 + static_cast<uint32_t>(i % 4);
      builder.AddKernel(kernel);
      copy.start_ns = i * 10 + 5;
      copy.end_ns = i * 10 + 7;
      builder.AddMemcpy(copy);
    }
    builder.Finish();
  }
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), kRows);
  EXPECT_EQ(db.Int("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 5 * kRows);
  EXPECT_EQ(db.Int("SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY"), 2 * kRows);
  EXPECT_EQ(db.Int("SELECT count(DISTINCT streamId) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 4);
  EXPECT_EQ(db.Int("SELECT max(gridId) FROM CUPTI_ACTIVITY_KIND_KERNEL"), kRows);
  EXPECT_EQ(db.Int("SELECT count(*) FROM StringIds"), 1);
}

TEST(NsysSqliteBuilderTest, IsMovable) {
  ScratchDir dir;
  NsysSqliteBuilder first(dir / "t.sqlite");
  first.AddKernel(Kernel(1, 2));
  NsysSqliteBuilder second = std::move(first);
  second.AddKernel(Kernel(3, 4));
  second.Finish();
  TestDb db(dir / "t.sqlite");
  EXPECT_EQ(db.Int("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), 2);
}

}  // namespace
}  // namespace gpuroof::testsupport
