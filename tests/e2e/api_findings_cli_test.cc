// End-to-end tests of `gpuroof api`, `launches` and `findings`: the saxpy ranks against nsys's
// own cudaapitrace/kernexectrace CSVs (../shared/fixtures/nsys-csv), row by row; findings on
// every shared fixture, with evidence counted independently by SQL; --fail-on; bad input.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "cli_runner.h"
#include "support/kineto_json_builder.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

// A duration as the findings' evidence writes it (docs/findings.md): 3 decimals in the largest
// unit it reaches, whole ns below 1 us.
std::string EvidenceDuration(int64_t ns) {
  char text[64];
  const double value = static_cast<double>(ns);
  if (value >= 1e9) {
    std::snprintf(text, sizeof text, "%.3f s", value / 1e9);
  } else if (value >= 1e6) {
    std::snprintf(text, sizeof text, "%.3f ms", value / 1e6);
  } else if (value >= 1e3) {
    std::snprintf(text, sizeof text, "%.3f us", value / 1e3);
  } else {
    std::snprintf(text, sizeof text, "%lld ns", static_cast<long long>(ns));
  }
  return text;
}

std::filesystem::path SharedFixtures() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR);
}

#define SKIP_WITHOUT_FIXTURES()                                                    \
  if (!std::filesystem::exists(SharedFixtures() / "nsys-csv")) {                   \
    GTEST_SKIP() << "shared fixtures not found at " << SharedFixtures()            \
                 << " (../shared/fixtures): the nsys CSV comparisons did not run"; \
  }

const char* const kRanks[] = {"nsys2021_5_saxpy_rank0", "nsys2021_5_saxpy_rank1"};

// One integer from a single-row SQL query.
int64_t SqlInt(const std::filesystem::path& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      value = sqlite3_column_int64(statement, 0);
    } else {
      ADD_FAILURE() << sqlite3_errmsg(handle) << " in " << sql;
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close(handle);
  return value;
}

// Whether the export has the table `table`.
bool HasTable(const std::filesystem::path& db, const std::string& table) {
  return SqlInt(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '" + table +
                        "'") > 0;
}

// The .sqlite exports of the shared fixtures' nsys folder, in directory order.
std::vector<std::filesystem::path> SharedNsysExports() {
  std::vector<std::filesystem::path> exports;
  for (const auto& entry : std::filesystem::directory_iterator(SharedFixtures() / "nsys")) {
    if (entry.path().extension() == ".sqlite") exports.push_back(entry.path());
  }
  return exports;
}

// The export's GPU ops as one SQL query: start, "end" and deviceId of the rows of its kernel,
// memcpy and memset tables (those it has); empty when it has none of them.
std::string GpuOpsQuery(const std::filesystem::path& db) {
  std::string ops;
  for (const char* table :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    if (!HasTable(db, table)) continue;
    ops += std::string(ops.empty() ? "" : " UNION ALL ") + "SELECT start, \"end\", deviceId FROM " +
           table;
  }
  return ops;
}

// `gpuroof findings` over the whole trace (--window all) keeping every finding (--min-cost-pct
// 0), with `extra` arguments, in `format`.
CliResult FindingsOfWholeTrace(const std::filesystem::path& db, const std::string& format,
                               const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"findings", db.string(), "--window", "all", "--min-cost-pct", "0"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--format", format});
  return RunGpuroof(args);
}

TEST(LaunchesCli, SaxpyMatchesKernexectraceRowByRow) {
  SKIP_WITHOUT_FIXTURES();
  for (const std::string rank : kRanks) {
    SCOPED_TRACE(rank);
    CliResult run =
        RunGpuroof({"launches", (SharedFixtures() / "nsys" / (rank + ".sqlite")).string(),
                    "--per-launch", "--key", "demangled", "--format", "csv"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    auto ours = ParseCsv(run.out);
    auto theirs = ParseCsv(ReadFile(SharedFixtures() / "nsys-csv" / (rank + "_kernexectrace.csv")));
    ASSERT_EQ(ours.size(), theirs.size());
    ASSERT_FALSE(ours.empty());
    for (size_t i = 0; i < ours.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_EQ(ours[i].at("api_start_ns"), theirs[i].at("API Start (ns)"));
      EXPECT_EQ(ours[i].at("api_dur_ns"), theirs[i].at("API Dur (ns)"));
      EXPECT_EQ(ours[i].at("queue_start_ns"), theirs[i].at("Queue Start (ns)"));
      EXPECT_EQ(ours[i].at("queue_dur_ns"), theirs[i].at("Queue Dur (ns)"));
      EXPECT_EQ(ours[i].at("kernel_start_ns"), theirs[i].at("Kernel Start (ns)"));
      EXPECT_EQ(ours[i].at("kernel_dur_ns"), theirs[i].at("Kernel Dur (ns)"));
      EXPECT_EQ(ours[i].at("total_dur_ns"), theirs[i].at("Total Dur (ns)"));
      EXPECT_EQ(ours[i].at("device"), theirs[i].at("DevId"));
      EXPECT_EQ(ours[i].at("api_function"), theirs[i].at("API Function"));
      EXPECT_EQ(ours[i].at("kernel"), theirs[i].at("Kernel Name"));
    }
  }
}

// Per function from the cudaapitrace rows, computed here: count, total, min, max, median.
struct Sums {
  std::vector<int64_t> durations;
};

TEST(ApiCli, SaxpyMatchesCudaapitrace) {
  SKIP_WITHOUT_FIXTURES();
  for (const std::string rank : kRanks) {
    SCOPED_TRACE(rank);
    CliResult run = RunGpuroof(
        {"api", (SharedFixtures() / "nsys" / (rank + ".sqlite")).string(), "--format", "csv"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<std::string, std::vector<int64_t>> expected;
    for (const auto& row :
         ParseCsv(ReadFile(SharedFixtures() / "nsys-csv" / (rank + "_cudaapitrace.csv")))) {
      expected[row.at("Name")].push_back(std::stoll(row.at("Duration (ns)")));
    }
    auto ours = ParseCsv(run.out);
    ASSERT_EQ(ours.size(), expected.size());
    for (const auto& row : ours) {
      SCOPED_TRACE(row.at("function"));
      ASSERT_EQ(expected.count(row.at("function")), 1u);
      std::vector<int64_t> d = expected[row.at("function")];
      std::sort(d.begin(), d.end());
      int64_t total = 0;
      for (int64_t v : d)
        total += v;
      const size_t n = d.size();
      const double median = n % 2 == 1 ? static_cast<double>(d[n / 2])
                                       : (static_cast<double>(d[n / 2 - 1]) + d[n / 2]) / 2.0;
      EXPECT_EQ(std::stoll(row.at("calls")), static_cast<int64_t>(n));
      EXPECT_EQ(std::stoll(row.at("total_ns")), total);
      EXPECT_EQ(std::stoll(row.at("min_ns")), d.front());
      EXPECT_EQ(std::stoll(row.at("max_ns")), d.back());
      EXPECT_DOUBLE_EQ(std::stod(row.at("median_ns")), median);
    }
  }
}

TEST(FindingsCli, EverySharedFixtureRunsAndEvidenceIsChecked) {
  SKIP_WITHOUT_FIXTURES();
  int ran = 0;
  for (const char* folder : {"nsys", "kineto"}) {
    for (const auto& entry : std::filesystem::directory_iterator(SharedFixtures() / folder)) {
      const std::string name = entry.path().filename().string();
      if (name.find(".sqlite") == std::string::npos && name.find(".json.gz") == std::string::npos) {
        continue;
      }
      SCOPED_TRACE(name);
      CliResult run = RunGpuroof({"findings", entry.path().string(), "--format", "json"});
      if (name == "nsys2022_4_nvtx_startend.sqlite") {
        // NVTX only, no CUDA trace: refused as every command refuses it.
        EXPECT_EQ(run.exit_code, 2) << run.err;
        EXPECT_NE(run.err.find("no GPU activity"), std::string::npos) << run.err;
        ++ran;
        continue;
      }
      EXPECT_EQ(run.exit_code, 0) << run.err;
      EXPECT_NE(run.out.find("\"schema\": \"gpuroof.findings/1\""), std::string::npos)
          << run.out.substr(0, 200);
      ++ran;
    }
  }
  EXPECT_GE(ran, 13);
}

// saxpy rank 0: every call is synchronous cudaMemcpy/cudaMalloc/cudaFree; the sync-call
// finding counts the cudaMemcpy calls in the processing window, which SQL counts as well.
TEST(FindingsCli, SaxpySyncCallsCountedBySql) {
  SKIP_WITHOUT_FIXTURES();
  const std::filesystem::path db = SharedFixtures() / "nsys" / "nsys2021_5_saxpy_rank0.sqlite";
  CliResult run = FindingsOfWholeTrace(db, "csv");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Window all: first GPU op start to last GPU op end. Sync calls overlapping it.
  const int64_t expected = SqlInt(
      db,
      "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
      "WHERE s.value LIKE 'cudaMemcpy%' AND s.value NOT LIKE '%Async%' "
      "AND r.\"end\" > (SELECT min(start) FROM CUPTI_ACTIVITY_KIND_MEMCPY) "
      "AND r.start < (SELECT max(\"end\") FROM CUPTI_ACTIVITY_KIND_MEMCPY)");
  int64_t count = -1;
  for (const auto& row : ParseCsv(run.out)) {
    if (row.at("id") == "sync-call") count = std::stoll(row.at("count"));
  }
  EXPECT_EQ(count, expected);
}

// sync-call on every shared nsys fixture with one device and CUDA runtime calls: its count is
// that of a plain SQL query over CUPTI_ACTIVITY_KIND_RUNTIME (window all: calls overlapping the
// first GPU op's start to the last one's end), with the names of docs/findings.md (the
// synchronise calls, and cudaMemcpy/cudaMemset/cuMemcpy/cuMemset without "Async"; nsys's "_vNNNN"
// suffix dropped). A finding is only kept with a cost (GPU idle after a call): where there is
// none, the JSON counts it as left out.
TEST(FindingsCli, SyncCallsCountedBySqlOnEveryFixture) {
  SKIP_WITHOUT_FIXTURES();
  int checked = 0;
  int fired = 0;
  for (const std::filesystem::path& db : SharedNsysExports()) {
    if (!HasTable(db, "CUPTI_ACTIVITY_KIND_RUNTIME")) continue;
    const std::string ops = GpuOpsQuery(db);
    if (ops.empty() || SqlInt(db, "SELECT count(DISTINCT deviceId) FROM (" + ops + ")") != 1) {
      continue;
    }
    SCOPED_TRACE(db.filename().string());
    const std::string name =
        "(CASE WHEN instr(s.value, '_v') > 0 THEN substr(s.value, 1, instr(s.value, '_v') - 1) "
        "ELSE s.value END)";
    const int64_t expected =
        SqlInt(db,
               "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = "
               "r.nameId WHERE (" +
                   name +
                   " IN ('cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize', "
                   "'cudaThreadSynchronize', 'cuCtxSynchronize', 'cuStreamSynchronize', "
                   "'cuEventSynchronize') OR ((" +
                   name + " LIKE 'cudaMemcpy%' OR " + name + " LIKE 'cudaMemset%' OR " + name +
                   " LIKE 'cuMemcpy%' OR " + name + " LIKE 'cuMemset%') AND " + name +
                   " NOT LIKE '%Async%')) AND r.\"end\" > (SELECT min(start) FROM (" + ops +
                   ")) AND r.start < (SELECT max(\"end\") FROM (" + ops + "))");
    CliResult run = FindingsOfWholeTrace(db, "csv");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    int64_t count = -1;
    for (const auto& row : ParseCsv(run.out)) {
      if (row.at("id") == "sync-call") count = std::stoll(row.at("count"));
    }
    if (count >= 0) {
      EXPECT_EQ(count, expected);
      ++fired;
    } else if (expected > 0) {
      // No GPU idle time after any of them: a finding of cost 0, counted as left out.
      CliResult json = FindingsOfWholeTrace(db, "json");
      EXPECT_EQ(json.out.find("\"below_min_cost\": 0"), std::string::npos)
          << expected << " synchronising calls by SQL, no finding and none left out";
    }
    ++checked;
  }
  EXPECT_GE(checked, 8);
  EXPECT_GE(fired, 5);  // saxpy ranks, concurrent, gaussian grids, sigma
}

// gpu-gap and host-bound split the device's idle gaps between them: on every shared nsys
// fixture, their counts and costs (window all, gaps longer than 100 us, every finding kept) add
// up to the idle gaps a plain SQL query finds: per device, the ops of the kernel, memcpy and
// memset tables that take time, in start order; an op starting more than 100 us after every
// earlier op ended closes a gap of that length.
TEST(FindingsCli, GapFindingsAddUpToTheIdleGapsCountedBySql) {
  SKIP_WITHOUT_FIXTURES();
  int checked = 0;
  for (const std::filesystem::path& db : SharedNsysExports()) {
    SCOPED_TRACE(db.filename().string());
    const std::string ops = GpuOpsQuery(db);
    if (ops.empty()) continue;  // no GPU activity: findings says so (checked above)
    const std::string gaps =
        "WITH ops AS (" + ops +
        "), o AS (SELECT start, MAX(\"end\") OVER (PARTITION BY deviceId ORDER BY start, \"end\" "
        "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM ops "
        "WHERE \"end\" > start) ";
    const int64_t count =
        SqlInt(db, gaps + "SELECT count(*) FROM o WHERE start - prev_end > 100000");
    const int64_t idle_ns =
        SqlInt(db, gaps +
                       "SELECT coalesce(sum(start - prev_end), 0) FROM o WHERE start - prev_end > "
                       "100000");
    CliResult run = FindingsOfWholeTrace(db, "csv", {"--gap-min", "100us"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    int64_t found = 0;
    int64_t cost_ns = 0;
    for (const auto& row : ParseCsv(run.out)) {
      if (row.at("id") != "gpu-gap" && row.at("id") != "host-bound") continue;
      found += std::stoll(row.at("count"));
      cost_ns += std::stoll(row.at("cost_ns"));
    }
    EXPECT_EQ(found, count);
    EXPECT_EQ(cost_ns, idle_ns);
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

// pageable-copy on every shared nsys fixture with memory kinds (the ENUM_CUDA_MEM_KIND table):
// its count, cost and bytes (window all, every finding kept) are those of a plain SQL query:
// H2D/D2H copies with a pageable side launched by a call whose name has "Async" (joined on
// correlation id and process); no such copy, no finding.
TEST(FindingsCli, PageableCopiesCountedBySql) {
  SKIP_WITHOUT_FIXTURES();
  int checked = 0;
  int fired = 0;
  for (const std::filesystem::path& db : SharedNsysExports()) {
    if (!HasTable(db, "ENUM_CUDA_MEM_KIND") || !HasTable(db, "ENUM_CUDA_MEMCPY_OPER") ||
        !HasTable(db, "CUPTI_ACTIVITY_KIND_MEMCPY") ||
        !HasTable(db, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
      continue;
    }
    SCOPED_TRACE(db.filename().string());
    const std::string from =
        "FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
        "ON r.correlationId = m.correlationId AND (r.globalTid >> 24) = (m.globalPid >> 24) "
        "JOIN StringIds s ON s.id = r.nameId WHERE s.value LIKE '%Async%' AND m.copyKind IN "
        "(SELECT id FROM ENUM_CUDA_MEMCPY_OPER WHERE name LIKE '%\\_HTOD' ESCAPE '\\' OR name "
        "LIKE '%\\_DTOH' ESCAPE '\\') AND (m.srcKind IN (SELECT id FROM ENUM_CUDA_MEM_KIND WHERE "
        "name LIKE '%PAGEABLE') OR m.dstKind IN (SELECT id FROM ENUM_CUDA_MEM_KIND WHERE name "
        "LIKE '%PAGEABLE'))";
    const int64_t count = SqlInt(db, "SELECT count(*) " + from);
    const int64_t copy_ns = SqlInt(db, "SELECT coalesce(sum(m.\"end\" - m.start), 0) " + from);
    const int64_t bytes = SqlInt(db, "SELECT coalesce(sum(m.bytes), 0) " + from);
    CliResult run = FindingsOfWholeTrace(db, "csv");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    int64_t found = 0;
    int64_t cost_ns = 0;
    std::string evidence;
    for (const auto& row : ParseCsv(run.out)) {
      if (row.at("id") != "pageable-copy") continue;
      found += std::stoll(row.at("count"));
      cost_ns += std::stoll(row.at("cost_ns"));
      evidence += row.at("evidence");
    }
    EXPECT_EQ(found, count);
    EXPECT_EQ(cost_ns, copy_ns);
    if (count > 0) {
      ++fired;
      EXPECT_NE(evidence.find(std::to_string(bytes) + " bytes"), std::string::npos) << evidence;
    }
    ++checked;
  }
  EXPECT_GE(checked, 8);
  EXPECT_GE(fired, 2);  // omp_offload (cuMemcpy*Async_v2 from pageable memory) and fuser_nvtx
}

// serialised-copies on every shared nsys fixture with kernels and copies: per device, the busy
// unions a plain SQL query finds (gaps-and-islands over the memcpy, kernel and memset tables;
// window all) give the rule's cost by its definition (docs/findings.md): copies exposed = copy
// time with no kernel running = |copies U kernels| - |kernels|; cost = min(exposed, max(0,
// |any| - max(|kernels|, |copies|))); the count is the number of merged copy stretches. A device
// whose cost is 0 has no such finding.
TEST(FindingsCli, SerialisedCopiesAreTheBusyUnionsCountedBySql) {
  SKIP_WITHOUT_FIXTURES();
  int checked = 0;
  int fired = 0;
  for (const std::filesystem::path& db : SharedNsysExports()) {
    if (!HasTable(db, "CUPTI_ACTIVITY_KIND_KERNEL") || !HasTable(db, "CUPTI_ACTIVITY_KIND_MEMCPY"))
      continue;
    SCOPED_TRACE(db.filename().string());
    const std::string kernels = "SELECT start, \"end\", deviceId FROM CUPTI_ACTIVITY_KIND_KERNEL";
    const std::string copies = "SELECT start, \"end\", deviceId FROM CUPTI_ACTIVITY_KIND_MEMCPY";
    std::string any = kernels + " UNION ALL " + copies;
    if (HasTable(db, "CUPTI_ACTIVITY_KIND_MEMSET")) {
      any += " UNION ALL SELECT start, \"end\", deviceId FROM CUPTI_ACTIVITY_KIND_MEMSET";
    }
    // The merged stretches of `ops` on one device: touching or overlapping intervals are one.
    auto islands = [](const std::string& ops, int64_t device) {
      return "WITH ops AS (SELECT start, \"end\" FROM (" + ops +
             ") WHERE deviceId = " + std::to_string(device) +
             " AND \"end\" > start), o AS (SELECT start, \"end\", MAX(\"end\") OVER (ORDER BY "
             "start, \"end\" ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end FROM "
             "ops), i AS (SELECT start, \"end\", SUM(CASE WHEN prev_end IS NULL OR start > "
             "prev_end THEN 1 ELSE 0 END) OVER (ORDER BY start, \"end\" ROWS UNBOUNDED "
             "PRECEDING) AS island FROM o), s AS (SELECT min(start) AS b, max(\"end\") AS e FROM "
             "i GROUP BY island) ";
    };
    auto length = [&](const std::string& ops, int64_t device) {
      return SqlInt(db, islands(ops, device) + "SELECT coalesce(sum(e - b), 0) FROM s");
    };
    CliResult run = FindingsOfWholeTrace(db, "csv");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<int64_t, std::map<std::string, std::string>> found;  // by device
    for (const auto& row : ParseCsv(run.out)) {
      if (row.at("id") == "serialised-copies") found[std::stoll(row.at("device"))] = row;
    }
    const int64_t devices = SqlInt(db, "SELECT count(DISTINCT deviceId) FROM (" + any + ")");
    for (int64_t d = 0, seen = 0; seen < devices && d < 64; ++d) {
      if (SqlInt(db, "SELECT count(*) FROM (" + any + ") WHERE deviceId = " + std::to_string(d)) ==
          0) {
        continue;
      }
      ++seen;
      SCOPED_TRACE("device " + std::to_string(d));
      const int64_t copy_busy = length(copies, d);
      const int64_t compute_busy = length(kernels, d);
      const int64_t any_busy = length(any, d);
      const int64_t exposed = length(kernels + " UNION ALL " + copies, d) - compute_busy;
      const int64_t cost =
          copy_busy == 0 || compute_busy == 0
              ? 0
              : std::min(exposed,
                         std::max<int64_t>(0, any_busy - std::max(compute_busy, copy_busy)));
      auto it = found.find(d);
      if (cost <= 0) {
        EXPECT_TRUE(it == found.end()) << "cost by SQL is 0";
        continue;
      }
      ASSERT_TRUE(it != found.end()) << "SQL cost " << cost << " ns, no finding";
      EXPECT_EQ(std::stoll(it->second.at("cost_ns")), cost);
      EXPECT_EQ(std::stoll(it->second.at("count")),
                SqlInt(db, islands(copies, d) + "SELECT count(*) FROM s"));
      EXPECT_NE(it->second.at("evidence")
                    .find("copies busy " + EvidenceDuration(copy_busy) + ", " +
                          EvidenceDuration(exposed) + " of it"),
                std::string::npos)
          << it->second.at("evidence");
      ++fired;
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
  EXPECT_GE(fired, 6);  // saxpy ranks, concurrent, gaussian 256 a/b, omp_offload, vecadd
}

TEST(FindingsCli, FailOnExitsOneWhenTheRuleFires) {
  SKIP_WITHOUT_FIXTURES();
  const std::string db = (SharedFixtures() / "nsys" / "nsys2021_5_saxpy_rank0.sqlite").string();
  CliResult fired = RunGpuroof({"findings", db, "--fail-on", "sync-call,exposed-comm"});
  EXPECT_EQ(fired.exit_code, 1) << fired.err;
  EXPECT_NE(fired.err.find("sync-call"), std::string::npos);
  CliResult quiet = RunGpuroof({"findings", db, "--fail-on", "exposed-comm"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  CliResult unknown = RunGpuroof({"findings", db, "--fail-on", "no-such-rule"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no rule 'no-such-rule'"), std::string::npos) << unknown.err;
}

TEST(FindingsCli, BadInputIsOneLine) {
  TempDir dir;
  WriteFile(dir / "bad.sqlite", "not a database");
  for (const char* command : {"api", "launches", "findings"}) {
    CliResult run = RunGpuroof({command, (dir / "bad.sqlite").string()});
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
    EXPECT_TRUE(run.out.empty());
  }
}

// --- launches and api on builder-made traces: what CSV leaves out is said on stderr, windows.

// Device 0: a launch with its call (0-100 -> kernel 1000-1100), a kernel whose call the trace
// lacks (corr 9), a graph launch's two nodes (corr 3), a kernel at 5000 launched at 4000 (corr
// 4); one cudaMalloc call at 3000-3200. First GPU op: 1000.
std::filesystem::path WriteLaunchTrace(const TempDir& dir) {
  std::filesystem::path file = dir / "launch.sqlite";
  testsupport::BuildFromDescription(R"(
gpu 0 "G"
api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000
kernel start=1000 end=1100 corr=1 name=k
kernel start=1200 end=1300 corr=9 name=lost
api start=1400 end=1500 corr=3 name=cudaGraphLaunch_v10000
kernel start=1600 end=1700 corr=3 name=node
kernel start=1700 end=1800 corr=3 name=node
api start=3000 end=3200 corr=5 name=cudaMalloc_v3020
api start=4000 end=4100 corr=4 name=cudaLaunchKernel_v7000
kernel start=5000 end=5100 corr=4 name=k
)",
                                    "launch", file);
  return file;
}

TEST(LaunchesCli, CsvSaysWhatItLeavesOutOnStderr) {
  TempDir dir;
  const std::string trace = WriteLaunchTrace(dir).string();
  CliResult r = RunGpuroof({"launches", trace, "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ParseCsv(r.out).size(), 1u) << r.out;  // key k: 2 launches
  const std::string where = "gpuroof: note: " + trace + ": device 0: ";
  EXPECT_NE(r.err.find(where + "1 kernel in the window left out: the trace lacks their launching "
                               "call"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(where + "2 kernels in the window left out: 1 call launched several ops"),
            std::string::npos)
      << r.err;
  // The window's note counts the kernels it leaves out: 3500-4050 after the first GPU op (4500-
  // 5050) holds the kernel at 5000 only; the other 4 kernels (not the call) are outside.
  r = RunGpuroof({"launches", trace, "--window", "3500:4050", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(where + "4 kernel(s) lie outside the window; --window all includes them"),
            std::string::npos)
      << r.err;
  r = RunGpuroof({"launches", trace, "--format", "csv", "--quiet"});
  EXPECT_EQ(r.err, "");
}

TEST(LaunchesCli, WindowWithoutKernelIsOneLineAndExit2) {
  TempDir dir;
  const std::string trace = WriteLaunchTrace(dir).string();
  CliResult r = RunGpuroof({"launches", trace, "--window", "1000:3000", "--format", "csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "gpuroof: error: " + trace +
                       ": no kernel runs in the range window of any device; choose another with "
                       "--window\n");
}

// --per-launch text gives times after the first GPU op (1000 ns): the first launch's call at
// -1.000 us, its kernel at 0; CSV keeps the trace clock's ns.
TEST(LaunchesCli, PerLaunchTextTimesAreAfterTheFirstGpuOp) {
  TempDir dir;
  const std::string trace = WriteLaunchTrace(dir).string();
  CliResult r = RunGpuroof({"launches", trace, "--per-launch"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("API start us"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-1.000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" 3.000 "), std::string::npos) << r.out;  // call at 4000
  r = RunGpuroof({"launches", trace, "--per-launch", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  EXPECT_EQ(rows[0]["api_start_ns"], "0");
  EXPECT_EQ(rows[1]["api_start_ns"], "4000");
  EXPECT_EQ(rows[1]["kernel_start_ns"], "5000");
}

// Kineto kernels without grid and block: `--key launch` does not invent <<<(0,0,0),(0,0,0)>>>.
TEST(LaunchesCli, LaunchKeyWithoutShapeSaysSo) {
  TempDir dir;
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "0", "5", 1)
      .Raw(R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5,)"
           R"( "args": {"device": 0, "stream": 7, "correlation": 1}})");
  WriteFile(dir / "t.json", builder.ObjectJson());
  CliResult r =
      RunGpuroof({"launches", (dir / "t.json").string(), "--key", "launch", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  EXPECT_EQ(rows[0]["kernel"], "k <<<shape not in trace>>>");
}

TEST(LaunchesCli, HelpListsSteady) {
  for (const char* command : {"launches", "api", "kernels"}) {
    CliResult r = RunGpuroof({command, "--help"});
    EXPECT_NE(r.out.find("nvtx:NAME[@N|@*] | steady"), std::string::npos) << command << r.out;
  }
}

// api with a window: the calls it leaves out are said on stderr with every format; with
// --window nvtx: the window line and JSON name the range, whose CPU time is the window.
TEST(ApiCli, WindowNotesAndNvtxRangeWindow) {
  TempDir dir;
  const std::string trace = WriteLaunchTrace(dir).string();
  // 0:1000 after the first GPU op (1000-2000): the call at 1400-1500 only; the other 3 left out.
  CliResult r = RunGpuroof({"api", trace, "--window", "0:1000", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "gpuroof: note: " + trace + ": calls: 3 calls outside the window left out\n");

  std::filesystem::path nvtx = dir / "nvtx.sqlite";
  testsupport::BuildFromDescription(R"(
gpu 0 "G"
nvtx start=1000 end=2000 text=step tid=1
nvtx start=2000 end=3000 text=step tid=1
api start=1100 end=1200 corr=1 name=cudaLaunchKernel_v7000
kernel start=2500 end=2600 corr=1 name=k
api start=2100 end=2200 corr=2 name=cudaLaunchKernel_v7000
kernel start=2700 end=2800 corr=2 name=k
)",
                                    "nvtx", nvtx);
  r = RunGpuroof({"api", nvtx.string(), "--window", "nvtx:step@1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("window nvtx 'step' instance 1 of 2: calls overlapping the range's CPU "
                       "time, -1.500 us to -500 ns after the first GPU op"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 call of 1 function"), std::string::npos) << r.out;
  r = RunGpuroof({"api", nvtx.string(), "--window", "nvtx:step@1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("range": "'step' instance 1 of 2")"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpuroof::testing
