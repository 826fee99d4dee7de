// Every real nsys export in ../shared/fixtures/nsys loads, and its summed kernel, copy and memset
// times equal a plain SQL sum over the same rows (an independent computation: SQLite does the
// arithmetic, gpuroof's reader and analysis do theirs).
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {
namespace {

std::filesystem::path FixtureDir() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "nsys";
}

// The brief lets a test skip, loudly, only when the whole ../shared/fixtures folder is absent.
// A fixture missing from a folder that is there is a broken fixture set: a failure, not a skip.
#define SKIP_LOUDLY_WITHOUT_FIXTURES()                                                \
  do {                                                                                \
    if (!std::filesystem::is_directory(FixtureDir())) {                               \
      GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << FixtureDir() \
                   << " (CI has ../shared beside the clone)";                         \
    }                                                                                 \
  } while (false)

std::vector<std::filesystem::path> Fixtures() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(FixtureDir(), ec)) {
    if (entry.path().extension() == ".sqlite") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Runs a query returning one integer (NULL -> 0) on the file, read-only.
int64_t QueryInt(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string uri = "file:" + path.string() + "?mode=ro&immutable=1";
  EXPECT_EQ(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr),
            SQLITE_OK);
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

bool HasTable(const std::filesystem::path& path, const std::string& table) {
  return QueryInt(path, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" + table +
                            "'") > 0;
}

// Sum of end - start per engine over the whole trace (window "all" keeps every op whole).
std::map<Engine, int64_t> SummedTimes(const Trace& trace) {
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  std::map<Engine, int64_t> sums;
  for (const DeviceLoad& device : ComputeEngineLoad(trace, options)) {
    for (const EngineLoad& load : device.engines)
      sums[load.engine] += load.sum_ns;
  }
  return sums;
}

TEST(SharedNsysFixtures, EveryExportLoadsAndMatchesSqlSums) {
  SKIP_LOUDLY_WITHOUT_FIXTURES();
  std::vector<std::filesystem::path> files = Fixtures();
  ASSERT_GE(files.size(), 10u) << "expected the shared nsys exports in " << FixtureDir();
  for (const std::filesystem::path& file : files) {
    SCOPED_TRACE(file.filename().string());
    Trace trace = ReadNsysSqlite(file);
    const Diagnostics& d = trace.diagnostics;
    EXPECT_EQ(d.records_read(), d.records_used() + d.records_skipped());
    int64_t sql_rows = 0;
    for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "CUPTI_ACTIVITY_KIND_MEMSET"}) {
      if (HasTable(file, table))
        sql_rows += QueryInt(file, std::string("SELECT count(*) FROM ") + table);
    }
    EXPECT_EQ(static_cast<int64_t>(trace.activity_count()), sql_rows);
    if (sql_rows == 0) {
      EXPECT_FALSE(trace.nvtx_ranges.empty()) << "an export without GPU rows should hold NVTX";
      continue;
    }
    std::map<Engine, int64_t> sums = SummedTimes(trace);
    auto sql_sum = [&](const std::string& table, const std::string& where) -> int64_t {
      if (!HasTable(file, table)) return 0;
      return QueryInt(file, "SELECT coalesce(sum(\"end\" - start), 0) FROM " + table + where);
    };
    EXPECT_EQ(sums[Engine::kKernel], sql_sum("CUPTI_ACTIVITY_KIND_KERNEL", ""));
    EXPECT_EQ(sums[Engine::kH2D],
              sql_sum("CUPTI_ACTIVITY_KIND_MEMCPY", " WHERE copyKind IN (1, 3)"));
    EXPECT_EQ(sums[Engine::kD2H],
              sql_sum("CUPTI_ACTIVITY_KIND_MEMCPY", " WHERE copyKind IN (2, 4)"));
    EXPECT_EQ(sums[Engine::kD2D],
              sql_sum("CUPTI_ACTIVITY_KIND_MEMCPY", " WHERE copyKind IN (5, 6, 7, 8)"));
    EXPECT_EQ(sums[Engine::kMemset], sql_sum("CUPTI_ACTIVITY_KIND_MEMSET", ""));
    int64_t all_copies = 0;
    for (Engine e : kAllEngines) {
      if (e != Engine::kKernel && e != Engine::kMemset && e != Engine::kGraph)
        all_copies += sums[e];
    }
    EXPECT_EQ(all_copies, sql_sum("CUPTI_ACTIVITY_KIND_MEMCPY", ""));
  }
}

TEST(SharedNsysFixtures, ConcurrentKernelsUnionIsSmallerThanTheirSum) {
  SKIP_LOUDLY_WITHOUT_FIXTURES();
  std::filesystem::path file = FixtureDir() / "nsys2022_1_concurrent.sqlite";
  ASSERT_TRUE(std::filesystem::exists(file)) << file << " is missing from the shared fixtures";
  Trace trace = ReadNsysSqlite(file);
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  ASSERT_EQ(loads.size(), 1u);
  // Values from the fixture's PROVENANCE.md (computed there with a separate script).
  EXPECT_EQ(loads[0].engine(Engine::kKernel).sum_ns, 48'000'028);
  EXPECT_EQ(loads[0].engine(Engine::kKernel).busy_ns, 30'052'121);
  EXPECT_EQ(loads[0].engine(Engine::kH2D).bytes, 44'160'000u);
  EXPECT_EQ(loads[0].engine(Engine::kD2H).bytes, 44'160'000u);
  // Windows adapters listed by the file are not devices with work.
  EXPECT_EQ(trace.ActiveDeviceIds(), std::vector<int32_t>{0});
}

TEST(SharedNsysFixtures, EngineOverlapsMatchTheSchemaReference) {
  // docs/formats.md, "Inputs" gives these intersections (ms, two decimals).
  struct Expected {
    const char* file;
    Engine a, b;
    double ms;
  };
  const Expected cases[] = {
      {"nsys2022_1_concurrent.sqlite", Engine::kKernel, Engine::kH2D, 2.05},
      {"nsys2022_1_concurrent.sqlite", Engine::kKernel, Engine::kD2H, 2.28},
      {"nsys2022_1_concurrent.sqlite", Engine::kH2D, Engine::kD2H, 3.66},
      {"nsys2022_4_streams4.sqlite", Engine::kKernel, Engine::kH2D, 1.79},
      {"nsys2022_4_streams4.sqlite", Engine::kH2D, Engine::kD2H, 7.87},
  };
  SKIP_LOUDLY_WITHOUT_FIXTURES();
  for (const Expected& c : cases) {
    std::filesystem::path file = FixtureDir() / c.file;
    ASSERT_TRUE(std::filesystem::exists(file)) << file << " is missing from the shared fixtures";
    SCOPED_TRACE(c.file);
    Trace trace = ReadNsysSqlite(file);
    EngineLoadOptions options;
    options.window = ParseWindowSpec("all");
    std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
    EngineOverlap overlap = ComputeEngineOverlap(trace, loads).at(0);
    auto at = [&](Engine e) {
      return static_cast<size_t>(std::find(overlap.engines.begin(), overlap.engines.end(), e) -
                                 overlap.engines.begin());
    };
    EXPECT_NEAR(static_cast<double>(overlap.intersection_ns[at(c.a)][at(c.b)]) / 1e6, c.ms, 0.006);
  }
}

TEST(SharedNsysFixtures, VersionsAndDevicesAreRead) {
  SKIP_LOUDLY_WITHOUT_FIXTURES();
  std::filesystem::path file = FixtureDir() / "nsys2021_5_saxpy_rank1.sqlite";
  ASSERT_TRUE(std::filesystem::exists(file)) << file << " is missing from the shared fixtures";
  Trace trace = ReadNsysSqlite(file);
  EXPECT_EQ(trace.metadata["nsys_version"].substr(0, 6), "2021.5");
  EXPECT_EQ(trace.ActiveDeviceIds(), std::vector<int32_t>{1});
  EXPECT_EQ(trace.DeviceName(1), "NVIDIA A100-SXM4-40GB");
  // NVTX names follow the domain rule: MPI calls registered in the "MPI" domain.
  bool has_mpi = false;
  for (const NvtxRange& range : trace.nvtx_ranges) {
    has_mpi = has_mpi || trace.strings.Get(range.name).substr(0, 4) == "MPI:";
  }
  EXPECT_TRUE(has_mpi);
}

}  // namespace
}  // namespace gpuroof

namespace gpuroof {
namespace {

// GPU work per NVTX range: the number of (range instance, GPU op) pairs that `gpuroof ranges`
// attributes equals a SQL join of the same rows — the launching API call was made on the range's
// thread while it was open, and names the op by correlation id within the process.
TEST(SharedNsysFixtures, RangeAttributionMatchesSqlJoin) {
  SKIP_LOUDLY_WITHOUT_FIXTURES();
  int checked = 0;
  for (const std::filesystem::path& file : Fixtures()) {
    if (!HasTable(file, "NVTX_EVENTS") || !HasTable(file, "CUPTI_ACTIVITY_KIND_RUNTIME")) continue;
    SCOPED_TRACE(file.filename().string());
    std::string ops_sql;
    for (const char* table : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                              "CUPTI_ACTIVITY_KIND_MEMSET"}) {
      if (!HasTable(file, table)) continue;
      if (!ops_sql.empty()) ops_sql += " UNION ALL ";
      ops_sql += std::string("SELECT correlationId, globalPid FROM ") + table;
    }
    const int64_t expected = QueryInt(
        file,
        "WITH ops AS (" + ops_sql +
            "), r AS (SELECT start s, \"end\" e, globalTid t FROM NVTX_EVENTS "
            "WHERE eventType IN (59, 60, 70, 71) AND \"end\" IS NOT NULL) "
            "SELECT count(*) FROM r JOIN CUPTI_ACTIVITY_KIND_RUNTIME a ON a.globalTid = r.t AND "
            "a.start BETWEEN r.s AND r.e JOIN ops o ON o.correlationId = a.correlationId AND "
            "o.globalPid = (a.globalTid & 0xFFFFFFFFFF000000)");
    NsysReadOptions options;
    options.detail = ReadDetail::kFull;
    const Trace trace = ReadNsysSqlite(file, options);
    if (trace.nvtx_ranges.empty()) continue;
    int64_t attributed = 0;
    for (const RangeGroup& group : SummarizeRanges(trace, {}).groups)
      attributed += group.gpu_ops;
    EXPECT_EQ(attributed, expected);
    ++checked;
  }
  EXPECT_GE(checked, 4) << "fewer fixtures with NVTX ranges and API calls than expected";
}

}  // namespace
}  // namespace gpuroof
