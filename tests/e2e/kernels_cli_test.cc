// End-to-end tests of `gpuroof kernels`: the bundled example and the shared nsys fixtures
// against sums computed independently (plain SQL over the same rows, nsys's own CSV reports),
// the output formats, and bad input that must end in one clear line.
#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path Example() {
  return SourceDir() / "examples" / "frame_pipeline.sqlite";
}

std::filesystem::path SharedFixtures() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR);
}

std::map<std::string, std::map<std::string, std::string>> ByKernel(const std::string& csv) {
  std::map<std::string, std::map<std::string, std::string>> out;
  for (const auto& row : ParseCsv(csv))
    out[row.at("kernel")] = row;
  return out;
}

// "instances, total ns" per kernel short name, by plain SQL over the kernel table.
std::map<std::string, std::pair<int64_t, int64_t>> SqlKernelSums(const std::filesystem::path& db,
                                                                 const std::string& key_sql) {
  std::map<std::string, std::pair<int64_t, int64_t>> sums;
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << db;
    sqlite3_close(handle);
    return sums;
  }
  std::string sql = "SELECT " + key_sql +
                    ", count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                    "JOIN StringIds s ON s.id = k.shortName GROUP BY 1";
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(handle, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << sqlite3_errmsg(handle);
  } else {
    while (sqlite3_step(statement) == SQLITE_ROW) {
      sums[reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))] = {
          sqlite3_column_int64(statement, 1), sqlite3_column_int64(statement, 2)};
    }
  }
  sqlite3_finalize(statement);
  sqlite3_close(handle);
  return sums;
}

std::string Lines(const std::string& text) {
  return std::to_string(std::count(text.begin(), text.end(), '\n')) + " line(s): " + text;
}

TEST(KernelsCli, ExampleHas2000IdenticalLaunches) {
  CliResult r = RunGpuroof({"kernels", Example().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The two setup uploads before the first kernel are left out, and said.
  EXPECT_EQ(r.err, "gpuroof: note: " + Example().string() +
                       ": device 0: 2 op(s) (1.016 ms busy) lie outside the window; --window all "
                       "includes them\n");
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  const auto& row = rows[0];
  EXPECT_EQ(row.at("device"), "0");
  EXPECT_EQ(row.at("kernel"), "process_frame");
  EXPECT_EQ(row.at("instances"), "2000");
  EXPECT_EQ(row.at("total_ns"), "11280000");  // 2000 x 5640
  for (const char* column : {"mean_ns", "median_ns", "min_ns", "max_ns", "p95_ns", "p99_ns"}) {
    EXPECT_EQ(row.at(column), "5640") << column;
  }
  EXPECT_EQ(row.at("stddev_ns"), "0");
  EXPECT_EQ(row.at("sum_share_pct"), "100");
  EXPECT_EQ(row.at("busy_share_pct"), "100");  // one kernel at a time
}

TEST(KernelsCli, ExampleTableAndJson) {
  CliResult text = RunGpuroof({"kernels", Example().string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("process_frame"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("2000 launches of 1 kernel (key: name)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("11.280"), std::string::npos) << text.out;

  CliResult json = RunGpuroof({"kernels", Example().string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"schema\": \"gpuroof.kernels/1\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"key\": \"process_frame\""), std::string::npos);
  EXPECT_NE(json.out.find("\"total_ns\": 11280000"), std::string::npos);
  EXPECT_NE(json.out.find("\"instances\": 2000"), std::string::npos);
}

TEST(KernelsCli, OutputFileAndSeveralTraces) {
  TempDir dir;
  CliResult r = RunGpuroof({"kernels", Example().string(), Example().string(), "--format", "csv",
                            "-o", (dir / "k.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  auto rows = ParseCsv(ReadFile(dir / "k.csv"));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("trace"), Example().string());
  EXPECT_EQ(rows[1].at("instances"), "2000");
}

// A builder-made trace: k with two launch shapes, and m; see the numbers below.
std::filesystem::path WriteShapesTrace(const TempDir& dir) {
  std::filesystem::path file = dir / "shapes.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "Test GPU"
kernel start=0 end=100 name=k demangled="k(int)" grid=64 block=128
kernel start=200 end=500 name=k demangled="k(int)" grid=64 block=128
kernel start=600 end=650 name=k demangled="k(int)" grid=8,2 block=32
kernel start=700 end=720 name=m grid=1 block=1
)desc",
                                    "shapes", file);
  return file;
}

TEST(KernelsCli, LaunchKeySplitsANameAndTopCutsTheList) {
  TempDir dir;
  std::filesystem::path trace = WriteShapesTrace(dir);
  CliResult r = RunGpuroof({"kernels", trace.string(), "--key", "launch", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[0].at("kernel"), "k <<<(64,1,1),(128,1,1)>>>");
  EXPECT_EQ(rows[0].at("instances"), "2");
  EXPECT_EQ(rows[0].at("total_ns"), "400");
  EXPECT_EQ(rows[0].at("median_ns"), "200");
  EXPECT_EQ(rows[1].at("kernel"), "k <<<(8,2,1),(32,1,1)>>>");
  EXPECT_EQ(rows[1].at("total_ns"), "50");
  EXPECT_EQ(rows[2].at("kernel"), "m <<<(1,1,1),(1,1,1)>>>");

  CliResult by_name = RunGpuroof({"kernels", trace.string(), "--format", "csv"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  auto name_rows = ParseCsv(by_name.out);
  ASSERT_EQ(name_rows.size(), 2u);
  EXPECT_EQ(name_rows[0].at("kernel"), "k");
  EXPECT_EQ(name_rows[0].at("instances"), "3");
  EXPECT_EQ(name_rows[0].at("total_ns"), "450");

  CliResult demangled =
      RunGpuroof({"kernels", trace.string(), "--key", "demangled", "--format", "csv"});
  ASSERT_EQ(demangled.exit_code, 0) << demangled.err;
  auto demangled_rows = ByKernel(demangled.out);
  EXPECT_EQ(demangled_rows.count("k(int)"), 1u) << demangled.out;
  EXPECT_EQ(demangled_rows.count("m"), 1u) << demangled.out;  // no demangled name: short name

  CliResult top = RunGpuroof({"kernels", trace.string(), "--key", "launch", "--top", "1"});
  ASSERT_EQ(top.exit_code, 0) << top.err;
  EXPECT_NE(top.out.find("k <<<(64,1,1),(128,1,1)>>>"), std::string::npos) << top.out;
  EXPECT_EQ(top.out.find("m <<<"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("2 more kernels (--top 1): 2 launches"), std::string::npos) << top.out;
}

TEST(KernelsCli, BadOptionsEndInOneLineAndExit2) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"kernels", Example().string(), "--top", "0"},
        std::vector<std::string>{"kernels", Example().string(), "--top", "-3"},
        std::vector<std::string>{"kernels", Example().string(), "--top", "ten"},
        std::vector<std::string>{"kernels", Example().string(), "--key", "grid"},
        std::vector<std::string>{"kernels", Example().string(), "--window", "sometimes"}}) {
    CliResult r = RunGpuroof(args);
    EXPECT_EQ(r.exit_code, 2) << args[2] << " " << args[3];
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << Lines(r.err);
    EXPECT_EQ(r.err.rfind("gpuroof: error: " + args[2] + ":", 0), 0u) << r.err;
  }
}

// Whole-graph launches (CUDA graphs traced at graph level) are compute no row can list: every
// format says how many, the CSV on stderr. The table is added as nsys writes it.
TEST(KernelsCli, WholeGraphLaunchesAreCountedInEveryFormat) {
  TempDir dir;
  const std::filesystem::path file = WriteShapesTrace(dir);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db,
                         "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE(start INTEGER, end INTEGER, "
                         "deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId "
                         "INTEGER, globalPid INTEGER, graphId INTEGER); "
                         "INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE SELECT 540, 590, deviceId, "
                         "contextId, streamId, 0, globalPid, 1 FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         "LIMIT 1;",
                         nullptr, nullptr, &error),
            SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
  const CliResult text = RunGpuroof({"kernels", file.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("not listed: 1 whole-graph launch (engine graph) · sum 50 ns · busy "
                          "50 ns"),
            std::string::npos)
      << text.out;
  const CliResult json = RunGpuroof({"kernels", file.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"graph_ops\": 1,"), std::string::npos) << json.out;
  const CliResult csv = RunGpuroof({"kernels", file.string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.err.find("device 0: 1 whole-graph launch (50 ns busy) not listed"),
            std::string::npos)
      << csv.err;
}

TEST(KernelsCli, TraceWithoutKernelsIsOneLineNamingTheFile) {
  TempDir dir;
  std::filesystem::path file = dir / "copies.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "Test GPU"
memcpy start=0 end=100 kind=HtoD bytes=4096
)desc",
                                    "copies", file);
  CliResult r = RunGpuroof({"kernels", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << Lines(r.err);
  EXPECT_EQ(r.err.rfind("gpuroof: error: " + file.string() + ": no kernels", 0), 0u) << r.err;
}

TEST(KernelsCli, GaussianTotalsEqualPlainSqlSums) {
  std::filesystem::path db = SharedFixtures() / "nsys" / "nsys2022_4_gaussian_grid1024.sqlite";
  if (!std::filesystem::is_directory(SharedFixtures())) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << SharedFixtures();
  }
  ASSERT_TRUE(std::filesystem::exists(db)) << db << " is missing from the shared fixtures";
  CliResult r = RunGpuroof({"kernels", db.string(), "--window", "all", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ByKernel(r.out);
  // PROVENANCE.md, and a plain SQL sum over the same rows.
  ASSERT_EQ(rows.count("Fan1"), 1u) << r.out;
  ASSERT_EQ(rows.count("Fan2"), 1u) << r.out;
  EXPECT_EQ(rows["Fan1"].at("instances"), "4095");
  EXPECT_EQ(rows["Fan1"].at("total_ns"), "13267201");
  EXPECT_EQ(rows["Fan2"].at("instances"), "4095");
  EXPECT_EQ(rows["Fan2"].at("total_ns"), "2795005936");
  auto sql = SqlKernelSums(db, "s.value");
  ASSERT_EQ(sql.size(), rows.size());
  for (const auto& [name, sums] : sql) {
    ASSERT_EQ(rows.count(name), 1u) << name;
    EXPECT_EQ(rows[name].at("instances"), std::to_string(sums.first)) << name;
    EXPECT_EQ(rows[name].at("total_ns"), std::to_string(sums.second)) << name;
  }
  // Fan2 holds most of the kernel time, so it sorts first.
  EXPECT_EQ(ParseCsv(r.out)[0].at("kernel"), "Fan2");

  CliResult launch =
      RunGpuroof({"kernels", db.string(), "--window", "all", "--key", "launch", "--format", "csv"});
  ASSERT_EQ(launch.exit_code, 0) << launch.err;
  auto launch_rows = ByKernel(launch.out);
  auto sql_launch =
      SqlKernelSums(db,
                    "s.value || ' <<<(' || k.gridX || ',' || k.gridY || ',' || k.gridZ || '),(' || "
                    "k.blockX || ',' || k.blockY || ',' || k.blockZ || ')>>>'");
  ASSERT_EQ(sql_launch.size(), launch_rows.size()) << launch.out;
  for (const auto& [key, sums] : sql_launch) {
    ASSERT_EQ(launch_rows.count(key), 1u) << key << "\n" << launch.out;
    EXPECT_EQ(launch_rows[key].at("instances"), std::to_string(sums.first)) << key;
    EXPECT_EQ(launch_rows[key].at("total_ns"), std::to_string(sums.second)) << key;
  }
  // Fan2 is a 2-D launch: grid 1024 x 1024, block 4 x 4 (sqlite3: gridY, blockY).
  EXPECT_EQ(launch_rows.count("Fan2 <<<(1024,1024,1),(4,4,1)>>>"), 1u) << launch.out;
  EXPECT_EQ(launch_rows.count("Fan1 <<<(8,1,1),(512,1,1)>>>"), 1u) << launch.out;
}

// nsys's own `kernexectrace` and `gputrace` reports of the saxpy exports: per demangled name and
// per launch shape, the instances and total duration must match.
TEST(KernelsCli, SaxpyMatchesNsysStatsReports) {
  if (!std::filesystem::is_directory(SharedFixtures())) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << SharedFixtures();
  }
  std::filesystem::path csv_dir = SharedFixtures() / "nsys-csv";
  int checked = 0;
  for (const char* rank : {"rank0", "rank1"}) {
    std::filesystem::path db =
        SharedFixtures() / "nsys" / (std::string("nsys2021_5_saxpy_") + rank + ".sqlite");
    std::filesystem::path exec =
        csv_dir / (std::string("nsys2021_5_saxpy_") + rank + "_kernexectrace.csv");
    std::filesystem::path gpu =
        csv_dir / (std::string("nsys2021_5_saxpy_") + rank + "_gputrace.csv");
    if (!std::filesystem::exists(db) || !std::filesystem::exists(exec) ||
        !std::filesystem::exists(gpu)) {
      continue;
    }
    ++checked;
    std::map<std::string, std::pair<int64_t, int64_t>> expected_demangled;
    for (const auto& row : ParseCsv(ReadFile(exec))) {
      auto& [count, total] = expected_demangled[row.at("Kernel Name")];
      ++count;
      total += std::stoll(row.at("Kernel Dur (ns)"));
    }
    CliResult r = RunGpuroof(
        {"kernels", db.string(), "--window", "all", "--key", "demangled", "--format", "csv"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto rows = ByKernel(r.out);
    ASSERT_EQ(rows.size(), expected_demangled.size()) << r.out;
    for (const auto& [name, sums] : expected_demangled) {
      ASSERT_EQ(rows.count(name), 1u) << name << "\n" << r.out;
      EXPECT_EQ(rows[name].at("instances"), std::to_string(sums.first)) << name;
      EXPECT_EQ(rows[name].at("total_ns"), std::to_string(sums.second)) << name;
    }

    // gputrace: kernels are the rows with a grid; the key uses the short name, so compare the
    // launch shapes and their sums regardless of the name.
    std::map<std::string, std::pair<int64_t, int64_t>> expected_shapes;
    for (const auto& row : ParseCsv(ReadFile(gpu))) {
      if (row.at("GrdX").empty()) continue;
      std::string shape = "<<<(" + row.at("GrdX") + "," + row.at("GrdY") + "," + row.at("GrdZ") +
                          "),(" + row.at("BlkX") + "," + row.at("BlkY") + "," + row.at("BlkZ") +
                          ")>>>";
      auto& [count, total] = expected_shapes[shape];
      ++count;
      total += std::stoll(row.at("Duration (ns)"));
    }
    CliResult launch = RunGpuroof(
        {"kernels", db.string(), "--window", "all", "--key", "launch", "--format", "csv"});
    ASSERT_EQ(launch.exit_code, 0) << launch.err;
    std::map<std::string, std::pair<int64_t, int64_t>> got_shapes;
    for (const auto& row : ParseCsv(launch.out)) {
      const std::string& key = row.at("kernel");
      auto& [count, total] = got_shapes[key.substr(key.find(" <<<") + 1)];
      count += std::stoll(row.at("instances"));
      total += std::stoll(row.at("total_ns"));
    }
    EXPECT_EQ(got_shapes, expected_shapes) << launch.out;
  }
  // The fixture set is there: both ranks' exports and reports must be, or the test tests nothing.
  EXPECT_EQ(checked, 2) << "saxpy exports or nsys stats CSVs missing in " << csv_dir;
}

}  // namespace
}  // namespace gpuroof::testing
