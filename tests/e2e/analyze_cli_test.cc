// End-to-end tests of `gpuroof analyze`: the bundled example trace against numbers worked out by
// hand in docs/metrics.md, output formats, and bad input that must end in one clear line.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "cli_runner.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path Example() {
  return SourceDir() / "examples" / "frame_pipeline.sqlite";
}

double Num(const std::map<std::string, std::string>& row, const std::string& key) {
  auto it = row.find(key);
  if (it == row.end()) {
    ADD_FAILURE() << "missing column " << key;
    return std::nan("");
  }
  return std::stod(it->second);
}

// The example's answers, by hand (docs/metrics.md, "Worked example"): 2000 frames, period
// P = 16350 ns, kernel K = 5640 ns, D2H D = 2000 ns, frames start at T0 = 1 ms.
constexpr double kWindowNs = 32'691'290;  // (T0 + P) -> (T0 + 2000 P + K + D)
constexpr double kH2DBusyNs = 1999 * 16350.0;
constexpr double kKernelBusyNs = 2000 * 5640.0;
constexpr double kD2HBusyNs = 2000 * 2000.0;

TEST(AnalyzeCli, ExampleCsvMatchesTheHandWorkedAnswers) {
  CliResult r = RunGpuroof({"analyze", Example().string(), "--units", "2000", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The two setup uploads before the first kernel are outside the processing window, and said:
  // --window all counts 2001 H2D busy 33.700 ms, the processing window 1999 busy 32.684 ms.
  EXPECT_EQ(r.err, "gpuroof: note: " + Example().string() +
                       ": device 0: 2 op(s) (1.016 ms busy) lie outside the window; --window all "
                       "includes them\n");
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u);
  const auto& row = rows[0];
  EXPECT_EQ(row.at("device"), "0");
  EXPECT_EQ(row.at("n_frames"), "2000");
  EXPECT_DOUBLE_EQ(Num(row, "window_ms"), kWindowNs / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "window_us_per_frame"), kWindowNs / 2000 / 1e3);
  EXPECT_NEAR(Num(row, "window_fps"), 2000 / (kWindowNs / 1e9), 1e-6);
  EXPECT_EQ(row.at("kernel_n"), "2000");
  EXPECT_DOUBLE_EQ(Num(row, "kernel_busy_ms"), kKernelBusyNs / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "kernel_sum_ms"), kKernelBusyNs / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "kernel_overlap"), 1.0);
  EXPECT_NEAR(Num(row, "kernel_duty_pct"), 100 * kKernelBusyNs / kWindowNs, 1e-9);
  EXPECT_DOUBLE_EQ(Num(row, "kernel_us_per_frame"), 5.64);
  EXPECT_EQ(row.at("H2D_n"), "1999");  // frame 0's upload ends where the window starts
  EXPECT_DOUBLE_EQ(Num(row, "H2D_busy_ms"), kH2DBusyNs / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "H2D_us_per_frame"), 16.341825);
  EXPECT_EQ(row.at("D2H_n"), "2000");
  EXPECT_DOUBLE_EQ(Num(row, "D2H_us_per_frame"), 2.0);
  EXPECT_EQ(row.at("bottleneck"), "H2D");
  EXPECT_DOUBLE_EQ(Num(row, "roofline_us_per_frame"), 16.341825);
  EXPECT_NEAR(Num(row, "roofline_fps"), 2000 / (kH2DBusyNs / 1e9), 1e-6);
}

TEST(AnalyzeCli, ExampleTableSaysWhatBinds) {
  CliResult r = RunGpuroof({"analyze", Example().string(), "--units", "2000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("H2D binds at 16.34 us/frame; the kernel (5.64 us/frame) is invisible end "
                       "to end until it grows past that."),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("NVIDIA H200"), std::string::npos);
  EXPECT_NE(r.out.find("any GPU op"), std::string::npos);
}

// Whole outputs of the example, pinned: tests/golden/<name>. The numbers in them are the
// hand-worked ones of docs/metrics.md (checked cell by cell above); the golden files guard the
// layout. UPDATE_GOLDEN=1 rewrites them; review the diff before committing.
void ExpectGolden(const std::string& name, const std::vector<std::string>& args) {
  CliResult r = RunGpuroof(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectGoldenOutput(name, r.out, Example().string(), "<example>");
}

TEST(AnalyzeCli, ExampleOutputsMatchTheirGoldenFiles) {
  std::string example = Example().string();
  ExpectGolden("analyze_example.txt", {"analyze", example, "--units", "2000"});
  ExpectGolden("analyze_example.csv", {"analyze", example, "--units", "2000", "--format", "csv"});
  ExpectGolden("analyze_example.json", {"analyze", example, "--units", "2000", "--format", "json"});
  ExpectGolden("analyze_example_all_batch.csv",
               {"analyze", example, "--units-from", "kernel:process_frame", "--unit-name", "batch",
                "--window", "all", "--format", "csv"});
}

TEST(AnalyzeCli, UnitsFromKernelAndUnitName) {
  CliResult r = RunGpuroof({"analyze", Example().string(), "--units-from", "kernel:process_frame",
                            "--unit-name", "batch", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("n_batches"), "2000");
  EXPECT_DOUBLE_EQ(Num(rows[0], "H2D_us_per_batch"), 16.341825);
}

TEST(AnalyzeCli, WindowAllIncludesTheSetupUpload) {
  CliResult r = RunGpuroof(
      {"analyze", Example().string(), "--units", "2000", "--window", "all", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = ParseCsv(r.out).at(0);
  EXPECT_EQ(row.at("H2D_n"), "2001");
  // Setup [0, 1 ms) then 2000 back-to-back uploads: one busy stretch of 1 ms + 2000 P.
  EXPECT_DOUBLE_EQ(Num(row, "H2D_busy_ms"), (1e6 + 2000 * 16350.0) / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "window_ms"), (1e6 + 2000 * 16350.0 + 5640 + 2000) / 1e6);
}

TEST(AnalyzeCli, OverlapColumnsByHand) {
  // Kernel i and D2H i (i < 1999) run while upload i+1 is on the H2D engine; the last frame's
  // kernel and D2H run after the last upload. The window is never idle.
  CliResult r = RunGpuroof(
      {"analyze", Example().string(), "--units", "2000", "--overlap", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = ParseCsv(r.out).at(0);
  EXPECT_DOUBLE_EQ(Num(row, "kernel_x_H2D_ms"), 1999 * 5640 / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "kernel_x_D2H_ms"), 0);
  EXPECT_DOUBLE_EQ(Num(row, "H2D_x_D2H_ms"), 1999 * 2000 / 1e6);
  EXPECT_DOUBLE_EQ(Num(row, "idle_ms"), 0);
  CliResult text = RunGpuroof({"analyze", Example().string(), "--units", "2000", "--overlap"});
  EXPECT_NE(text.out.find("no engine busy: 0 ns (0.00 % of the window)"), std::string::npos)
      << text.out;
}

TEST(AnalyzeCli, ByStreamSplitsTheExampleOverItsFourStreams) {
  CliResult r = RunGpuroof(
      {"analyze", Example().string(), "--units", "2000", "--by-stream", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 5u);  // the setup stream 7, then 13..16
  EXPECT_EQ(rows[0].at("stream"), "7");
  EXPECT_EQ(rows[0].at("H2D_n"), "0");  // the setup upload lies before the window
  EXPECT_EQ(rows[1].at("stream"), "13");
  // Stream 13 carries frames 0, 4, ..., 1996: 500 kernels, 499 uploads in the window.
  EXPECT_EQ(rows[1].at("kernel_n"), "500");
  EXPECT_EQ(rows[1].at("H2D_n"), "499");
  EXPECT_DOUBLE_EQ(Num(rows[1], "H2D_busy_ms"), 499 * 16350 / 1e6);
  EXPECT_EQ(rows[4].at("H2D_n"), "500");
}

TEST(AnalyzeCli, JsonCarriesSchemaInputsAndDiagnostics) {
  CliResult r = RunGpuroof({"analyze", Example().string(), "--units", "2000", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"schema\": \"gpuroof.analyze/1\""), std::string::npos);
  EXPECT_NE(r.out.find("\"busy_ns\": 32683650"), std::string::npos);
  EXPECT_NE(r.out.find("\"length_ns\": 32691290"), std::string::npos);
  EXPECT_NE(r.out.find("\"records_read\": 6001"), std::string::npos);
  EXPECT_NE(r.out.find("\"nsys_version\": \"2024.6.2.0\""), std::string::npos);
}

TEST(AnalyzeCli, SeveralTracesGiveOneRowEach) {
  CliResult r = RunGpuroof(
      {"analyze", Example().string(), Example().string(), "--units", "2000", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("trace"), Example().string());
  EXPECT_EQ(rows[0].at("H2D_busy_ms"), rows[1].at("H2D_busy_ms"));
}

TEST(AnalyzeCli, OutputFileIsWrittenWhole) {
  TempDir dir;
  CliResult r = RunGpuroof({"analyze", Example().string(), "--units", "2000", "--format", "csv",
                            "-o", (dir / "probes.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(ParseCsv(ReadFile(dir / "probes.csv")).size(), 1u);
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(AnalyzeCli, VersionAndHelp) {
  CliResult version = RunGpuroof({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.out.find("gpuroof 0."), std::string::npos);
  CliResult help = RunGpuroof({"analyze", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Examples:"), std::string::npos);
  CliResult unknown = RunGpuroof({"analyse", "x.sqlite"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.rfind("gpuroof: error: unknown command 'analyse' (commands: analyze, ", 0),
            0u)
      << unknown.err;
  CliResult none = RunGpuroof({});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("gpuroof: error: "), std::string::npos);
}

// ---- Bad input: one line naming the file and the problem, exit 2, no output file. ----

void MakeSqlite(const std::filesystem::path& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
}

struct BadCase {
  std::string name;
  std::string expected_message;  // a part of the one error line
};

void ExpectCleanFailure(const CliResult& r, const std::string& expected_message,
                        const std::filesystem::path& output) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  // One line (plus, for usage errors, a hint line), starting with the program's prefix.
  EXPECT_EQ(r.err.rfind("gpuroof: error: ", 0), 0u) << r.err;
  std::string first_line = r.err.substr(0, r.err.find('\n'));
  EXPECT_NE(first_line.find(expected_message), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(output)) << "partial output left behind";
}

TEST(AnalyzeCliBadInput, EachGivesOneClearLineAndNoOutput) {
  TempDir dir;
  std::filesystem::path out = dir / "out.csv";
  std::string example = Example().string();

  std::filesystem::path text = dir / "notes.sqlite";
  WriteFile(text, "this is not a database\n");
  std::filesystem::path empty = dir / "empty.sqlite";
  WriteFile(empty, "");
  std::filesystem::path foreign = dir / "foreign.sqlite";
  MakeSqlite(foreign,
             "CREATE TABLE accounts(id INTEGER, name TEXT); INSERT INTO accounts VALUES (1, 'x');");
  std::filesystem::path nvprof = dir / "nvprof.sqlite";
  MakeSqlite(nvprof,
             "CREATE TABLE StringTable(_id_ INTEGER, value TEXT);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start INTEGER, end INTEGER);");
  std::filesystem::path no_rows = dir / "no_rows.sqlite";
  MakeSqlite(no_rows,
             "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER "
             "NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId "
             "INTEGER NOT NULL, shortName INTEGER NOT NULL);");
  std::filesystem::path missing_column = dir / "missing_column.sqlite";
  MakeSqlite(missing_column,
             "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
             "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER);"
             "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1, 2);");
  std::filesystem::path truncated = dir / "truncated.sqlite";
  std::string whole = ReadFile(Example());
  WriteFile(truncated, whole.substr(0, whole.size() / 3));

  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::vector<Case> cases = {
      {{(dir / "nope.sqlite").string()}, "nope.sqlite: no such file"},
      {{dir.path().string()},
       "is a directory, expected a trace file (Kineto JSON traces (.json, .json.gz), Nsight "
       "Systems SQLite exports (.sqlite) and reports (.nsys-rep, exported with nsys))"},
      {{text.string()}, "notes.sqlite: not an SQLite database"},
      {{empty.string()}, "empty.sqlite: file is empty"},
      {{foreign.string()}, "foreign.sqlite: SQLite database without nsys tables"},
      {{nvprof.string()}, "nvprof.sqlite: looks like an nvprof export"},
      {{no_rows.string()}, "no_rows.sqlite: no GPU activity"},
      {{missing_column.string()}, "lacks the column deviceId"},
      {{truncated.string()}, "truncated.sqlite: "},
      {{example, "--units", "0"}, "--units: must be a positive whole number, got '0'"},
      {{example, "--units=-5"}, "--units: must be a positive whole number, got '-5'"},
      {{example, "--units", "12abc"}, "--units: must be a positive whole number"},
      {{example, "--window", "5s:6s"}, "frame_pipeline.sqlite: window '5s:6s' lies outside"},
      {{example, "--window", "steady-ish"}, "--window: unknown window policy 'steady-ish'"},
      {{example, "--window", "nvtx:epoch"},
       "frame_pipeline.sqlite: --window: no NVTX range named 'epoch'"},
      {{example, "--units-from", "kernel:nope"}, "no kernel named 'nope'"},
      {{example, "--units-from", "frames"}, "--units-from: 'frames' is not a unit source"},
      {{example, "--format", "xml"}, "--format"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"analyze"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"-o", out.string()});
    SCOPED_TRACE(c.message);
    ExpectCleanFailure(RunGpuroof(args), c.message, out);
  }
}

TEST(AnalyzeCliBadInput, AFailedRunLeavesAnEarlierOutputUntouched) {
  TempDir dir;
  std::filesystem::path out = dir / "probes.csv";
  WriteFile(out, "precious,data\n");
  CliResult r = RunGpuroof({"analyze", (dir / "missing.sqlite").string(), "-o", out.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(ReadFile(out), "precious,data\n");
}

// Every trace is checked to exist, as a regular file, before any is read: a typo in the last of
// several traces used to cost reading and analysing the others, with their notes printed first.
TEST(AnalyzeCliBadInput, AMissingSecondTraceFailsBeforeTheFirstIsRead) {
  TempDir dir;
  const std::string missing = (dir / "missing.sqlite").string();
  for (const char* command : {"analyze", "kernels", "copies", "gaps", "ranges", "api", "launches",
                              "findings", "report"}) {
    SCOPED_TRACE(command);
    CliResult r = RunGpuroof({command, Example().string(), missing});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "gpuroof: error: " + missing + ": no such file\n");
    EXPECT_EQ(r.out, "");
    r = RunGpuroof({command, Example().string(), dir.path().string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.find("gpuroof: error: " + dir.path().string() + ": is a directory"), 0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(AnalyzeCliBadInput, UnwritableOutputIsABadOutputError) {
  TempDir dir;
  CliResult r =
      RunGpuroof({"analyze", Example().string(), "-o", (dir / "no_such_dir" / "out.csv").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("out.csv: cannot create output"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gpuroof::testing
