// End-to-end tests of `gpuroof copies` and `gpuroof gaps`: the bundled example and a shared
// nsys fixture against numbers worked out by hand or by an independent SQL query, and bad input
// that must end in one clear line with exit code 2.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path Example() {
  return SourceDir() / "examples" / "frame_pipeline.sqlite";
}

std::filesystem::path SaxpyFixture() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "nsys" /
         "nsys2021_5_saxpy_rank0.sqlite";
}

const std::map<std::string, std::string>* FindCopy(
    const std::vector<std::map<std::string, std::string>>& rows, const std::string& copy) {
  for (const auto& row : rows) {
    if (row.at("copy") == copy) return &row;
  }
  ADD_FAILURE() << "no row for " << copy;
  return nullptr;
}

double Num(const std::map<std::string, std::string>& row, const std::string& key) {
  return std::stod(row.at(key));
}

bool IsOneErrorLine(const std::string& err) {
  return err.rfind("gpuroof: error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

// The example (docs/metrics.md, "Worked example"): processing window
// [T0 + P, T0 + 2000 P + K + D) with T0 = 1 ms, P = 16350 ns. Frame 0's upload ends where the
// window starts, so 1999 of the 2000 pinned 64 KiB uploads count, and no setup upload.
TEST(CopiesCli, ExampleProcessingWindowByHand) {
  CliResult r = RunGpuroof({"copies", Example().string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The two setup uploads before the first kernel are left out, and said.
  EXPECT_EQ(r.err, "gpuroof: note: " + Example().string() +
                       ": device 0: 2 op(s) (1.016 ms busy) lie outside the window; --window all "
                       "includes them\n");
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  const auto* h2d = FindCopy(rows, "H2D Pinned->Device");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->at("device"), "0");
  EXPECT_EQ(h2d->at("count"), "1999");
  EXPECT_EQ(h2d->at("bytes"), std::to_string(1999ull * 65536));
  EXPECT_DOUBLE_EQ(Num(*h2d, "total_ns"), 1999 * 16350);
  EXPECT_DOUBLE_EQ(Num(*h2d, "median_ns"), 16350);
  EXPECT_DOUBLE_EQ(Num(*h2d, "bandwidth_gbps"), 65536.0 / 16350.0);
  EXPECT_DOUBLE_EQ(Num(*h2d, "median_bandwidth_gbps"), 65536.0 / 16350.0);
  EXPECT_EQ(h2d->at("pageable"), "false");
  const auto* d2h = FindCopy(rows, "D2H Device->Pinned");
  ASSERT_NE(d2h, nullptr);
  EXPECT_EQ(d2h->at("count"), "2000");
  EXPECT_EQ(d2h->at("bytes"), "8192000");
  EXPECT_DOUBLE_EQ(Num(*d2h, "total_ns"), 4e6);
  EXPECT_DOUBLE_EQ(Num(*d2h, "median_ns"), 2000);
  EXPECT_DOUBLE_EQ(Num(*d2h, "bandwidth_gbps"), 2.048);
  EXPECT_EQ(d2h->at("pageable"), "false");

  CliResult table = RunGpuroof({"copies", Example().string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find("pageable host memory"), std::string::npos) << table.out;
}

TEST(CopiesCli, ExampleWindowAllFlagsThePageableSetupUpload) {
  CliResult r = RunGpuroof({"copies", Example().string(), "--window", "all", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[0].at("copy"), "H2D Pageable->Device");  // engine, then source kind order
  const auto* setup = FindCopy(rows, "H2D Pageable->Device");
  ASSERT_NE(setup, nullptr);
  EXPECT_EQ(setup->at("count"), "1");
  EXPECT_EQ(setup->at("bytes"), "8388608");
  EXPECT_DOUBLE_EQ(Num(*setup, "total_ns"), 1e6);
  EXPECT_DOUBLE_EQ(Num(*setup, "median_ns"), 1e6);
  EXPECT_DOUBLE_EQ(Num(*setup, "bandwidth_gbps"), 8.388608);
  EXPECT_EQ(setup->at("pageable"), "true");
  const auto* h2d = FindCopy(rows, "H2D Pinned->Device");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->at("count"), "2000");
  EXPECT_DOUBLE_EQ(Num(*h2d, "total_ns"), 32.7e6);

  CliResult table = RunGpuroof({"copies", Example().string(), "--window", "all"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("pageable host memory"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("1 copy (8.39 MB, 1.000 ms of copy time) uses pageable host memory: "
                           "it cannot overlap with kernels — the classic async memcpy that isn't"),
            std::string::npos)
      << table.out;

  CliResult json =
      RunGpuroof({"copies", Example().string(), "--window", "all", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"schema\": \"gpuroof.copies/1\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"pageable\": true"), std::string::npos);
}

TEST(CopiesCli, SaxpyFixturePageableCopies) {
  if (!std::filesystem::is_directory(GPUROOF_SHARED_FIXTURES_DIR)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << GPUROOF_SHARED_FIXTURES_DIR;
  }
  ASSERT_TRUE(std::filesystem::exists(SaxpyFixture())) << SaxpyFixture() << " is missing";
  CliResult r =
      RunGpuroof({"copies", SaxpyFixture().string(), "--window", "all", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 2u) << r.out;
  // PROVENANCE.md: copyKind 1: 10 rows / 2,621,440,000 B; 2: 5 / 1,310,720,000 B.
  const auto* h2d = FindCopy(rows, "H2D Pageable->Device");
  ASSERT_NE(h2d, nullptr);
  EXPECT_EQ(h2d->at("count"), "10");
  EXPECT_EQ(h2d->at("bytes"), "2621440000");
  EXPECT_EQ(h2d->at("pageable"), "true");
  const auto* d2h = FindCopy(rows, "D2H Device->Pageable");
  ASSERT_NE(d2h, nullptr);
  EXPECT_EQ(d2h->at("count"), "5");
  EXPECT_EQ(d2h->at("bytes"), "1310720000");
  EXPECT_EQ(d2h->at("pageable"), "true");

  // Time and bandwidth against a plain SQL sum over the same rows.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(SaxpyFixture().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT copyKind, sum(end - start) FROM CUPTI_ACTIVITY_KIND_MEMCPY "
                               "GROUP BY copyKind ORDER BY copyKind",
                               -1, &statement, nullptr),
            SQLITE_OK);
  std::map<int, int64_t> time_ns;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    time_ns[sqlite3_column_int(statement, 0)] = sqlite3_column_int64(statement, 1);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  EXPECT_DOUBLE_EQ(Num(*h2d, "total_ns"), static_cast<double>(time_ns[1]));
  EXPECT_DOUBLE_EQ(Num(*d2h, "total_ns"), static_cast<double>(time_ns[2]));
  EXPECT_DOUBLE_EQ(Num(*h2d, "bandwidth_gbps"), 2621440000.0 / static_cast<double>(time_ns[1]));

  CliResult table = RunGpuroof({"copies", SaxpyFixture().string(), "--window", "all"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  // The warning says what is at stake: the bytes and the copy time (249.925 + 115.927 ms, summed in
  // ns).
  EXPECT_NE(table.out.find("15 copies (3.93 GB, 365.851 ms of copy time) use pageable host "
                           "memory: they cannot overlap with kernels"),
            std::string::npos)
      << table.out;
}

std::filesystem::path WriteTrace(const TempDir& dir, const std::string& name,
                                 const std::string& body) {
  std::filesystem::path file = dir / name;
  testsupport::BuildFromDescription("schema 2024\ngpu 0 \"Test GPU\"\n" + body, name, file);
  return file;
}

TEST(CopiesCli, TraceWithoutCopiesIsOneErrorLine) {
  TempDir dir;
  std::filesystem::path file = WriteTrace(dir, "kernels_only.sqlite",
                                          "kernel start=0 end=1ms stream=7 name=a\n"
                                          "kernel start=2ms end=3ms stream=7 name=b\n");
  CliResult r = RunGpuroof({"copies", file.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(IsOneErrorLine(r.err)) << r.err;
  EXPECT_NE(r.err.find(file.string()), std::string::npos) << r.err;
}

// Gaps by hand: kernel a [0, 0.1ms); H2D [2.1ms, 2.2ms) -> a 2 ms gap; kernel b [2.2ms, 2.3ms);
// kernel c [3.3ms, 3.4ms) -> a gap of exactly 1 ms, which `--min 1ms` does not list (a gap must
// be longer). Span 3.4 ms; 2 / 3.4 = 58.82 %.
TEST(GapsCli, HandWorkedTraceAndTheExactThreshold) {
  TempDir dir;
  std::filesystem::path file = WriteTrace(
      dir, "gaps.sqlite",
      "kernel start=0 end=100us stream=7 name=a\n"
      "memcpy start=2.1ms end=2.2ms kind=HtoD bytes=4096 src=pinned dst=device stream=8\n"
      "kernel start=2.2ms end=2.3ms stream=7 name=b\n"
      "kernel start=3.3ms end=3.4ms stream=7 name=c\n");
  CliResult r = RunGpuroof({"gaps", file.string(), "--min", "1ms", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  EXPECT_EQ(rows[0].at("device"), "0");
  EXPECT_DOUBLE_EQ(Num(rows[0], "start_ns"), 100000);
  EXPECT_DOUBLE_EQ(Num(rows[0], "duration_ns"), 2000000);
  EXPECT_EQ(rows[0].at("before"), "kernel a");
  EXPECT_EQ(rows[0].at("after_engine"), "H2D");
  EXPECT_EQ(rows[0].at("after"), "H2D Pinned->Device");

  CliResult both = RunGpuroof({"gaps", file.string(), "--min", "999999", "--format", "csv"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  rows = ParseCsv(both.out);
  ASSERT_EQ(rows.size(), 2u) << both.out;
  EXPECT_DOUBLE_EQ(Num(rows[1], "start_ns"), 2300000);
  EXPECT_DOUBLE_EQ(Num(rows[1], "duration_ns"), 1000000);

  CliResult table = RunGpuroof({"gaps", file.string(), "--min", "1ms"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("1 gap longer than 1ms: 2.000 ms in all, 58.82 % of the 3.400 ms span"),
            std::string::npos)
      << table.out;

  CliResult json = RunGpuroof({"gaps", file.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"schema\": \"gpuroof.gaps/2\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"gap_total_ns\": 2000000"), std::string::npos) << json.out;
}

// A trace with copies but no kernel (kernel tracing off, or an export that lost its kernel table:
// nsys creates it only when a kernel ran) gave gaps and findings that looked complete, exit 0
// and nothing on stderr, though the kernels may have run in the "idle" gaps. One note says so,
// with the op and launch-call counts; a trace with a kernel gets none, and --quiet silences it.
TEST(GapsCli, ATraceWithoutKernelsSaysSo) {
  TempDir dir;
  const std::string body =
      "api start=0 end=10us corr=1 name=cudaMemcpyAsync\n"
      "memcpy start=20us end=100us kind=HtoD bytes=4096 src=pinned dst=device stream=7 corr=1\n"
      "api start=110us end=120us corr=2 name=cudaLaunchKernel\n"
      "api start=130us end=140us corr=3 name=cudaMemcpyAsync\n"
      "memcpy start=2ms end=2.1ms kind=DtoH bytes=4096 src=device dst=pinned stream=7 corr=3\n";
  std::filesystem::path file = WriteTrace(dir, "no_kernels.sqlite", body);
  std::filesystem::path with_kernel = WriteTrace(
      dir, "kernel.sqlite", body + "kernel start=150us end=1ms stream=7 corr=2 name=k\n");
  for (const char* command : {"gaps", "findings"}) {
    SCOPED_TRACE(command);
    CliResult r = RunGpuroof({command, file.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // gaps reads no API call; findings reads them all and counts the launch.
    const std::string launches =
        command == std::string("gaps") ? "" : "; 1 kernel launch call(s) without a kernel record";
    EXPECT_EQ(r.err.find("gpuroof: note: " + file.string() +
                         ": no kernel in the trace (2 GPU op(s), all copies or memsets" + launches +
                         "): "),
              0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(RunGpuroof({command, file.string(), "--quiet"}).err, "");
    r = RunGpuroof({command, with_kernel.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("no kernel in the trace"), std::string::npos) << r.err;
  }
}

// The example's uploads run back to back from the setup copy to the last frame, and each
// frame's kernel and D2H follow inside the next upload: one busy stretch, no gap at all.
TEST(GapsCli, ExampleHasNoIdleGap) {
  CliResult r = RunGpuroof({"gaps", Example().string(), "--min", "1ns", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"gap_count\": 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"length_ns\": 33707640"), std::string::npos) << r.out;
  CliResult table = RunGpuroof({"gaps", Example().string()});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("no idle gap longer than 1ms"), std::string::npos) << table.out;
}

// The fixture's gaps against the union of its op intervals computed here from SQL.
TEST(GapsCli, SaxpyFixtureMatchesAnIndependentUnion) {
  if (!std::filesystem::is_directory(GPUROOF_SHARED_FIXTURES_DIR)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << GPUROOF_SHARED_FIXTURES_DIR;
  }
  ASSERT_TRUE(std::filesystem::exists(SaxpyFixture())) << SaxpyFixture() << " is missing";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(SaxpyFixture().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL UNION ALL "
                               "SELECT start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY ORDER BY 1",
                               -1, &statement, nullptr),
            SQLITE_OK);
  std::vector<std::pair<int64_t, int64_t>> ops;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    ops.emplace_back(sqlite3_column_int64(statement, 0), sqlite3_column_int64(statement, 1));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  ASSERT_FALSE(ops.empty());
  int64_t count = 0;
  int64_t total = 0;
  int64_t covered_to = ops[0].second;
  for (const auto& [start, end] : ops) {
    if (start - covered_to > 1'000'000) {
      ++count;
      total += start - covered_to;
    }
    covered_to = std::max(covered_to, end);
  }
  ASSERT_GT(count, 0);
  CliResult r = RunGpuroof({"gaps", SaxpyFixture().string(), "--min", "1ms", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"gap_count\": " + std::to_string(count)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"gap_total_ns\": " + std::to_string(total)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"length_ns\": " + std::to_string(covered_to - ops[0].first)),
            std::string::npos)
      << r.out;
}

TEST(GapsCli, BadMinIsOneErrorLine) {
  for (const char* bad : {"0", "0ms", "abc"}) {
    CliResult r = RunGpuroof({"gaps", Example().string(), "--min", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(r.out, "") << bad;
    EXPECT_TRUE(IsOneErrorLine(r.err)) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--min"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace gpuroof::testing
