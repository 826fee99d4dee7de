// End-to-end: `gpuroof ranks` on rank sets made by the builders (Kineto JSON and nsys SQLite)
// with a planted straggler and a planted late collective, on the shared saxpy rank pair, and on
// bad sets (an empty directory, an unreadable trace, two jobs, mixed formats).
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include "cli_runner.h"
#include "rank_sets.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;

// The same job as an nsys export (--iteration-range step: the ranges are named "step").
std::string NsysRank(const PlantedRank& planted) {
  std::string text = "gpu 0 \"NVIDIA Test GPU\"\n";
  for (int s = 0; s < 3; ++s) {
    int base = 1000 + 1000 * s;
    int arrival = s == 1 ? planted.late_arrival_us : 500;
    text += fmt::format("nvtx start={}us end={}us text=\"step\" pid=1 tid=1\n", base, base + 1000);
    text += fmt::format("api start={}us end={}us corr={} pid=1 tid=1 name=cudaLaunchKernel\n",
                        base + 5, base + 7, 10 * s + 1);
    text += fmt::format("api start={}us end={}us corr={} pid=1 tid=1 name=cudaLaunchKernel\n",
                        base + 6, base + 8, 10 * s + 2);
    text += fmt::format("kernel start={}us end={}us name=gemm corr={} stream=7 pid=1\n", base + 10,
                        base + 10 + planted.compute_us, 10 * s + 1);
    text += fmt::format(
        "kernel start={}us end={}us name=ncclDevKernel_AllReduce corr={} stream=8 pid=1\n",
        base + arrival, base + arrival + 200, 10 * s + 2);
  }
  return text;
}

std::map<std::string, std::string> RowOfRank(const std::string& csv, const std::string& rank) {
  for (const auto& row : ParseCsv(csv)) {
    if (row.at("rank") == rank) return row;
  }
  ADD_FAILURE() << "no rank " << rank << " in\n" << csv;
  return {};
}

// JSON without its layout (spaces and line breaks), for matching a few keys in order.
std::string WithoutSpace(std::string text) {
  std::erase_if(text, [](char c) { return c == ' ' || c == '\n'; });
  return text;
}

double Number(const std::map<std::string, std::string>& row, const std::string& key) {
  auto it = row.find(key);
  if (it == row.end() || it->second.empty()) return -1;
  return std::stod(it->second);
}

TEST(RanksCliTest, KinetoJobFindsTheStragglerAndTheLateRank) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  CliResult csv = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  ASSERT_EQ(ParseCsv(csv.out).size(), 4u);
  auto rank0 = RowOfRank(csv.out, "0");
  EXPECT_EQ(rank0.at("rank_from"), "distributedInfo.rank");
  EXPECT_EQ(rank0.at("trace"), (dir / "job" / "worker_3.pt.trace.json").string());
  EXPECT_DOUBLE_EQ(Number(rank0, "steps"), 3);
  EXPECT_DOUBLE_EQ(Number(rank0, "step_median_ns"), 1'000'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "compute_busy_ns"), 600'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "comm_busy_ns"), 200'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "comm_hidden_ns"), 110'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "comm_exposed_ns"), 90'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "idle_host_bound_ns"), 7'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "idle_waiting_ns"), 3'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "idle_other_ns"), 300'000);
  EXPECT_EQ(rank0.at("straggler"), "");
  auto rank2 = RowOfRank(csv.out, "2");
  EXPECT_DOUBLE_EQ(Number(rank2, "compute_busy_ns"), 800'000);
  EXPECT_DOUBLE_EQ(Number(rank2, "comm_exposed_ns"), 0);
  EXPECT_EQ(rank2.at("straggler"), "compute-bound");
  // Rank 3, step 2: comm [650,850) after compute ends at 610: nothing hidden; the gap [610,650)
  // waits for a collective launched long before. Means over 3 steps, written to 0.001 ns.
  auto rank3 = RowOfRank(csv.out, "3");
  EXPECT_EQ(rank3.at("comm_hidden_ns"), "73333.333");
  EXPECT_EQ(rank3.at("idle_waiting_ns"), "16333.333");
  EXPECT_DOUBLE_EQ(Number(rank3, "last_at_collectives"), 1);

  CliResult text = RunGpuroof({"ranks", (dir / "job").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("rank 2: compute_busy +33.3 % vs median: compute-bound straggler"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("3 collective instances on every rank; rank 3 arrives last at 1 of them"),
            std::string::npos)
      << text.out;

  CliResult json = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::string compact = WithoutSpace(json.out);
  EXPECT_NE(compact.find(R"("schema":"gpuroof.ranks/1")"), std::string::npos) << json.out;
  EXPECT_NE(compact.find(R"("world_size":4)"), std::string::npos);
  EXPECT_NE(compact.find(R"("step":2,"order":1,"spread_ns":150000,"earliest_arrival_ns":500000,)"
                         R"("latest_arrival_ns":650000,"last_rank":3)"),
            std::string::npos)
      << json.out;
  EXPECT_NE(compact.find(R"("rank":2,"cause":"compute_busy")"), std::string::npos);
}

// Rank 0's gemm after its last step counts in no figure: said, with its count and busy time.
// Rank 1 has no step ranges: its whole trace is no step, so it is said per rank and left out of
// the outlier rule and the collective skew (as one 2.69 ms "step" it would be a compute-bound
// straggler, and its collectives would be matched against the others' first step).
TEST(RanksCliTest, WorkOutsideTheStepsAndRanksWithoutStepRangesAreSaid) {
  TempDir dir;
  WriteUnevenStepsJob(dir / "job");
  CliResult csv = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rank0 = RowOfRank(csv.out, "0");
  EXPECT_EQ(rank0.at("steps_label"), "'ProfilerStep#*' (3 instances)");
  EXPECT_DOUBLE_EQ(Number(rank0, "ops_outside_steps"), 1);
  EXPECT_DOUBLE_EQ(Number(rank0, "busy_outside_steps_ns"), 300'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "compute_busy_ns"), 600'000);  // the gemm after: not counted
  auto rank1 = RowOfRank(csv.out, "1");
  EXPECT_EQ(rank1.at("steps_label"), "whole trace (no step ranges)");
  EXPECT_DOUBLE_EQ(Number(rank1, "steps"), 1);
  EXPECT_DOUBLE_EQ(Number(rank1, "ops_outside_steps"), 0);
  EXPECT_EQ(rank1.at("straggler"), "");
  EXPECT_EQ(RowOfRank(csv.out, "2").at("straggler"), "compute-bound");
  EXPECT_DOUBLE_EQ(Number(RowOfRank(csv.out, "3"), "ops_outside_steps"), 0);
  EXPECT_NE(csv.err.find("warning: 1 of 4 ranks has no step ranges while the others have"),
            std::string::npos)
      << csv.err;

  CliResult text = RunGpuroof({"ranks", (dir / "job").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const std::string& expected : {
           std::string("steps: differ between ranks (2 labels); busy and idle figures are "
                       "means per step\n"
                       "  on 3 ranks: 'ProfilerStep#*' (3 instances)\n"
                       "  on 1 rank (rank 1): whole trace (no step ranges)\n"),
           std::string("note: rank 0: 1 op(s) (300.000 us busy) lie outside the steps, not "
                       "counted"),
           std::string("1 rank with no step ranges left out (whole trace, no step): rank 1"),
           std::string("rank 2: compute_busy +33.3 % vs median: compute-bound straggler"),
           std::string("3 collective instances on every rank with step ranges; rank 3 arrives "
                       "last at 1 of them"),
       }) {
    EXPECT_NE(text.out.find(expected), std::string::npos) << expected << "\n" << text.out;
  }
  EXPECT_EQ(text.out.find("rank 1:"), std::string::npos) << text.out;  // no straggler line

  CliResult json = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::string compact = WithoutSpace(json.out);
  EXPECT_NE(compact.find(R"j("rank":1,"rank_from":"distributedInfo.rank","format":"kineto-json",)j"
                         R"j("device":0,"device_name":"","other_device_ops":0,"steps":1,)j"
                         R"j("steps_label":"wholetrace(nostepranges)",)j"),
            std::string::npos)
      << json.out;
  EXPECT_NE(compact.find(R"j("steps":3,"steps_label":"'ProfilerStep#*'(3instances)",)j"
                         R"j("ops_outside_steps":1,"busy_outside_steps_ns":300000,)j"),
            std::string::npos)
      << json.out;
  EXPECT_NE(compact.find(R"("matched":3,"partial":0)"), std::string::npos) << json.out;
  EXPECT_NE(compact.find("1of4rankshasnosteprangeswhiletheothershave"), std::string::npos)
      << json.out;
}

// The report's rank section says what `ranks` says the table rests on: the steps per rank, the
// work outside them, ranks left out of the comparisons.
TEST(RanksCliTest, ReportRankSectionSaysWhatTheTableRestsOn) {
  TempDir dir;
  WriteUnevenStepsJob(dir / "job");
  std::vector<std::string> args = {"report", "--ranks", "-o", (dir / "page.html").string()};
  for (const auto& entry : fs::directory_iterator(dir / "job"))
    args.push_back(entry.path().string());
  std::sort(args.begin() + 4, args.end());
  CliResult result = RunGpuroof(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string page = ReadFile(dir / "page.html");
  for (const std::string& expected : {
           std::string("<p class=\"meta\">steps: differ between ranks (2 labels); busy and idle "
                       "figures are means per step</p>"),
           std::string("<p class=\"meta\">  on 1 rank (rank 1): whole trace (no step "
                       "ranges)</p>"),
           std::string("<p class=\"note\">note: rank 0: 1 op(s) (300.000 us busy) lie outside "
                       "the steps, not counted</p>"),
           std::string("warning: 1 of 4 ranks has no step ranges while the others have"),
       }) {
    EXPECT_NE(page.find(expected), std::string::npos) << expected;
  }
}

TEST(RanksCliTest, OutputDoesNotDependOnTheJobCount) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  CliResult one = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json", "--jobs", "1"});
  CliResult three =
      RunGpuroof({"ranks", (dir / "job").string(), "--format", "json", "--jobs", "3"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_EQ(one.out, three.out);
}

TEST(RanksCliTest, NsysJobTakesRanksFromFileOrder) {
  TempDir dir;
  std::vector<PlantedRank> ranks(4);
  ranks[1].compute_us = 800;
  ranks[2].late_arrival_us = 650;
  std::vector<std::string> args = {"ranks", "--iteration-range", "step", "--format", "csv"};
  for (int r = 0; r < 4; ++r) {
    fs::path file = dir / fmt::format("rank{}.sqlite", r);
    testsupport::BuildFromDescription(NsysRank(ranks[static_cast<size_t>(r)]), file.string(), file);
    args.push_back(file.string());
  }
  CliResult csv = RunGpuroof(args);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rank0 = RowOfRank(csv.out, "0");
  EXPECT_EQ(rank0.at("rank_from"), "file order");
  EXPECT_DOUBLE_EQ(Number(rank0, "compute_busy_ns"), 600'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "comm_hidden_ns"), 110'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "idle_host_bound_ns"), 7'000);
  EXPECT_DOUBLE_EQ(Number(rank0, "idle_waiting_ns"), 3'000);
  auto rank1 = RowOfRank(csv.out, "1");
  EXPECT_EQ(rank1.at("straggler"), "compute-bound");
  EXPECT_DOUBLE_EQ(Number(RowOfRank(csv.out, "2"), "last_at_collectives"), 1);
}

TEST(RanksCliTest, CompareDirectoriesGatesOnTheSlowestAndTheMedianRank) {
  TempDir dir;
  WriteKinetoJob(dir / "base");
  fs::create_directories(dir / "slow");
  for (int r = 0; r < 4; ++r) {
    PlantedRank planted;
    if (r == 1) planted.step_us = 1300;
    WriteFile(dir / "slow" / fmt::format("rank{}.pt.trace.json", r), KinetoRank(r, 4, planted));
  }
  // Slowest rank: 1000 us (rank 0, the lowest id of equals) -> 1300 us (rank 1): 1.3 > 1.2.
  // Median rank: 1000 -> median of 1000 1300 1000 1000 = 1000.
  CliResult failed = RunGpuroof(
      {"compare", "--baseline", (dir / "base").string(), "--current", (dir / "slow").string()});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_NE(failed.out.find("slowest rank step median: baseline 1.000 ms (rank 0), current "
                            "1.300 ms (rank 1): 1.300x FAIL"),
            std::string::npos)
      << failed.out;
  EXPECT_NE(failed.out.find("median rank step median: baseline 1.000 ms, current 1.000 ms: "
                            "1.000x PASS"),
            std::string::npos)
      << failed.out;
  EXPECT_NE(failed.out.find("verdict: FAIL"), std::string::npos);
  CliResult passed = RunGpuroof(
      {"compare", (dir / "base").string(), (dir / "slow").string(), "--threshold", "1.5"});
  EXPECT_EQ(passed.exit_code, 0) << passed.err;
  EXPECT_NE(passed.out.find("verdict: PASS"), std::string::npos) << passed.out;
  CliResult refused = RunGpuroof({"compare", (dir / "base").string(), (dir / "slow").string(),
                                  "--json", (dir / "x.json").string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir / "x.json"));
}

// Rank 1 of the current run has no step ranges: its one "step" would be its whole trace (first
// op at 1010 us to last op end at 3700 us: 2.690 ms, 2.69x the baseline's 1 ms steps) and fail
// the gate. It is left out of both figures, said with the count; the others' steps are as before.
TEST(RanksCliTest, CompareDirectoriesLeavesOutRanksWithoutStepRanges) {
  TempDir dir;
  WriteKinetoJob(dir / "base");
  fs::create_directories(dir / "nostep");
  for (int r = 0; r < 4; ++r) {
    PlantedRank planted;
    planted.step_ranges = r != 1;
    WriteFile(dir / "nostep" / fmt::format("rank{}.pt.trace.json", r), KinetoRank(r, 4, planted));
  }
  CliResult result = RunGpuroof(
      {"compare", "--baseline", (dir / "base").string(), "--current", (dir / "nostep").string()});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("slowest rank step median: baseline 1.000 ms (rank 0), current "
                            "1.000 ms (rank 0): 1.000x PASS"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("note: current: 1 of 4 ranks has no step ranges while the others have "
                            "(whole trace, no step), left out of both figures: rank 1"),
            std::string::npos)
      << result.out;
  EXPECT_EQ(result.out.find("note: baseline:"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("verdict: PASS"), std::string::npos) << result.out;
}

TEST(RanksCliTest, ReportHasARankSectionWhenEveryTraceNamesItsRank) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  std::vector<std::string> args = {"report", "-o", (dir / "page.html").string()};
  for (int r = 0; r < 4; ++r)
    args.push_back((dir / "job" / fmt::format("worker_{}.pt.trace.json", r)).string());
  CliResult result = RunGpuroof(args);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string page = ReadFile(dir / "page.html");
  EXPECT_NE(page.find("<h2>Ranks</h2>"), std::string::npos);
  EXPECT_NE(page.find("rank 2: compute_busy +33.3 % vs median: compute-bound straggler"),
            std::string::npos);
  EXPECT_NE(page.find("spread 150.000 us; last: rank 3"), std::string::npos);
  // One trace, no --ranks: no section.
  CliResult single = RunGpuroof({"report", "-o", (dir / "one.html").string(),
                                 (dir / "job" / "worker_0.pt.trace.json").string()});
  ASSERT_EQ(single.exit_code, 0) << single.err;
  EXPECT_EQ(ReadFile(dir / "one.html").find("<h2>Ranks</h2>"), std::string::npos);
}

// nsys 2023.3+ exports the profiled process's environment in META_DATA_CAPTURE; the builder
// writes no such table, so the test adds it as nsys lays it out.
void AddCapturedEnvironment(const fs::path& file, const std::vector<std::string>& variables) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(file.c_str(), &db), SQLITE_OK);
  std::string sql = "CREATE TABLE META_DATA_CAPTURE(name TEXT, value TEXT);";
  for (const std::string& variable : variables)
    sql += "INSERT INTO META_DATA_CAPTURE VALUES('PROCESS_0:ENVIRONMENT_VARIABLE', '" + variable +
           "');";
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(db);
}

TEST(RanksCliTest, NsysRankComesFromTheCapturedEnvironment) {
  TempDir dir;
  std::vector<std::string> args = {"ranks", "--format", "csv"};
  for (int r = 0; r < 2; ++r) {
    fs::path file = dir / fmt::format("node{}.sqlite", r);
    testsupport::BuildFromDescription(NsysRank(PlantedRank{}), file.string(), file);
    // File order runs against the ranks: node0 is rank 3, node1 is rank 0.
    AddCapturedEnvironment(
        file, {"HOME=\"/root\"", fmt::format("OMPI_COMM_WORLD_RANK=\"{}\"", r == 0 ? 3 : 0),
               "OMPI_COMM_WORLD_SIZE=\"4\"", "RANK=\"9\""});
    args.push_back(file.string());
  }
  CliResult csv = RunGpuroof(args);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto rank3 = RowOfRank(csv.out, "3");
  EXPECT_EQ(rank3.at("rank_from"), "OMPI_COMM_WORLD_RANK");
  EXPECT_EQ(rank3.at("trace"), (dir / "node0.sqlite").string());
  EXPECT_EQ(RowOfRank(csv.out, "0").at("trace"), (dir / "node1.sqlite").string());
  EXPECT_NE(csv.err.find("world size 4, but 2 ranks are missing: 1, 2"), std::string::npos)
      << csv.err;
}

// srun started one task per node and torchrun four workers in each: every worker of node 1 has
// SLURM_PROCID 1 (of SLURM_NTASKS 2), and its own RANK of WORLD_SIZE 8. RANK is the worker's.
TEST(RanksCliTest, APerNodeLauncherGivesWayToTheFrameworksRank) {
  TempDir dir;
  const fs::path file = dir / "worker.sqlite";
  testsupport::BuildFromDescription(NsysRank(PlantedRank{}), file.string(), file);
  AddCapturedEnvironment(
      file, {"SLURM_PROCID=\"1\"", "SLURM_NTASKS=\"2\"", "RANK=\"5\"", "WORLD_SIZE=\"8\""});
  CliResult csv = RunGpuroof({"ranks", "--format", "csv", file.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(RowOfRank(csv.out, "5").at("rank_from"), "RANK");
}

TEST(RanksCliTest, AnEmptyDirectoryIsBadInput) {
  TempDir dir;
  fs::create_directories(dir / "empty");
  WriteFile(dir / "empty" / "README.txt", "no trace here\n");
  CliResult result = RunGpuroof({"ranks", (dir / "empty").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_EQ(result.out, "");
  EXPECT_NE(result.err.find("gpuroof: error: " + (dir / "empty").string() +
                            ": no trace in the directory"),
            std::string::npos)
      << result.err;
}

TEST(RanksCliTest, AnUnreadableTraceIsReportedAndTheOthersAnalysed) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  const fs::path broken = dir / "job" / "worker_9.pt.trace.json";
  WriteFile(broken, R"({"traceEvents": [{"name": "x", "ph": "X", "ts": )");
  CliResult result = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(ParseCsv(result.out).size(), 4u);
  EXPECT_NE(result.err.find("gpuroof: warning: not analysed: " + broken.string()),
            std::string::npos)
      << result.err;
  // --quiet silences diagnostics, not a rank missing from the result: a CSV has no row for it.
  CliResult quiet = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv", "-q"});
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_NE(quiet.err.find("gpuroof: warning: not analysed: " + broken.string()), std::string::npos)
      << quiet.err;
  CliResult strict = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv", "--strict"});
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_EQ(strict.out, result.out);  // the report is still written
  EXPECT_NE(strict.err.find("--strict: 1 trace not analysed"), std::string::npos) << strict.err;
}

// A file named like a trace whose content starts like none (garbage in r.json, in r.json.gz,
// in r.sqlite) is a damaged rank: not analysed, named, in `failed`, and --strict exits 1; it
// is not counted among the files that are no trace. compare's job directories refuse it (exit 2).
TEST(RanksCliTest, AFileNamedLikeATraceThatIsNoneIsADamagedRank) {
  for (const std::string name : {"worker_9.pt.trace.json", "worker_9.json.gz", "worker_9.sqlite"}) {
    TempDir dir;
    WriteKinetoJob(dir / "job");
    const fs::path broken = dir / "job" / name;
    WriteFile(broken, "garbage\n");
    CliResult result = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("gpuroof: warning: not analysed: " + broken.string() + ": "),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.err.find("no trace, left out"), std::string::npos) << result.err;
    EXPECT_NE(WithoutSpace(result.out).find(R"("failed":[{"path":")" + broken.string()),
              std::string::npos)
        << result.out;
    CliResult strict = RunGpuroof({"ranks", (dir / "job").string(), "--strict"});
    EXPECT_EQ(strict.exit_code, 1) << strict.err;
    EXPECT_NE(strict.err.find("--strict: 1 trace not analysed"), std::string::npos) << strict.err;
    WriteKinetoJob(dir / "base");
    CliResult compare = RunGpuroof({"compare", (dir / "base").string(), (dir / "job").string()});
    EXPECT_EQ(compare.exit_code, 2) << compare.out << compare.err;
    EXPECT_NE(compare.err.find(broken.string()), std::string::npos) << compare.err;
  }
}

// A complete JSON value that is no trace (a loss history, a status string) beside the traces is
// left out and counted, as an object without traceEvents is: no failed rank, --strict and the
// job-level compare pass. The same list cut short is a damaged rank.
TEST(RanksCliTest, AJsonValueThatIsNoTraceIsLeftOutAndACutOneIsDamaged) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  WriteKinetoJob(dir / "base");
  WriteFile(dir / "job" / "loss_history.json", "[2.31, 2.17, 2.05]\n");
  WriteFile(dir / "job" / "status.json", "\"done\"\n");
  WriteFile(dir / "job" / "config.json", R"({"a": 1})");
  CliResult strict = RunGpuroof({"ranks", (dir / "job").string(), "--strict"});
  EXPECT_EQ(strict.exit_code, 0) << strict.err;
  EXPECT_NE(strict.err.find("3 files in the directories are no trace, left out"), std::string::npos)
      << strict.err;
  EXPECT_EQ(strict.err.find("not analysed"), std::string::npos) << strict.err;
  CliResult compare = RunGpuroof({"compare", (dir / "base").string(), (dir / "job").string()});
  EXPECT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  const fs::path cut = dir / "job" / "loss_history.json";
  WriteFile(cut, "[2.31, 2.17, 2.0");
  CliResult damaged = RunGpuroof({"ranks", (dir / "job").string(), "--strict"});
  EXPECT_EQ(damaged.exit_code, 1) << damaged.err;
  EXPECT_NE(damaged.err.find("gpuroof: warning: not analysed: " + cut.string() + ": "),
            std::string::npos)
      << damaged.err;
}

// Kineto dropped rank 3's first all-reduce of step 2 (the others run one at 300 µs before the
// one at 500): matched by order, its 650 µs all-reduce would meet the others' 300 µs one, a
// spread of 350 µs that does not exist. Step 2's all-reduces are not compared, said with the
// ranks' counts; steps 1 and 3 agree and are compared (spread 0).
TEST(RanksCliTest, AStepWhoseCollectiveSequencesDifferIsNotCompared) {
  TempDir dir;
  fs::create_directories(dir / "job");
  for (int r = 0; r < 4; ++r) {
    PlantedRank planted;
    if (r < 3) planted.extra_collective_us = 300;
    if (r == 3) planted.late_arrival_us = 650;
    WriteFile(dir / "job" / fmt::format("rank{}.pt.trace.json", r), KinetoRank(r, 4, planted));
  }
  CliResult text = RunGpuroof({"ranks", (dir / "job").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("2 collective instances on every rank (2 more of 1 collective name "
                          "whose count in a step differs between ranks, not compared)\n"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("arrives last"), std::string::npos) << text.out;
  EXPECT_NE(WithoutSpace(text.err).find(WithoutSpace(
                "collective counts differ between ranks for 1 collective name in 1 step: a rank "
                "that issues more or fewer collectives of a name than the others has lost or "
                "gained records, so the 2 instances of that name are not compared (in no spread "
                "and no last-rank count): step 2, ncclDevKernel_AllReduce_Sum_f32_RING_LL: rank 3 "
                "has 1, the others 2")),
            std::string::npos)
      << text.err;
  CliResult json = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(WithoutSpace(json.out).find(R"("matched":2,"partial":1,"unaligned":1,)"),
            std::string::npos)
      << json.out;
  // The job-level compare says which side the warning is about.
  WriteKinetoJob(dir / "base");
  CliResult compare = RunGpuroof({"compare", (dir / "base").string(), (dir / "job").string()});
  EXPECT_NE(compare.err.find("gpuroof: warning: --current " + (dir / "job").string() +
                             ": collective counts differ between ranks"),
            std::string::npos)
      << compare.err;
}

// Rank 1's step ranges are 1300 us long: its last step, [3000, 4300) us, ends 600 us after its
// last record (the all-reduce ending at 3700 us). Noted; the figures stay as defined.
TEST(RanksCliTest, AStepEndingPastTheLastRecordIsNoted) {
  TempDir dir;
  fs::create_directories(dir / "job");
  for (int r = 0; r < 4; ++r) {
    PlantedRank planted;
    if (r == 1) planted.step_us = 1300;
    WriteFile(dir / "job" / fmt::format("rank{}.pt.trace.json", r), KinetoRank(r, 4, planted));
  }
  CliResult json = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("rank 1: step 3 ends 600.000 us after the trace's last record (GPU op "
                          "or launch call): its length and the means per step include time "
                          "with no GPU op or launch call"),
            std::string::npos)
      << json.out;
  CliResult csv = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_DOUBLE_EQ(Number(RowOfRank(csv.out, "1"), "step_median_ns"), 1'300'000);
}

TEST(RanksCliTest, TwoJobsAndMissingRanksAreWarned) {
  TempDir dir;
  WriteKinetoJob(dir / "a");
  WriteFile(dir / "a" / "other_job.pt.trace.json", KinetoRank(5, 8, PlantedRank{}));
  CliResult result = RunGpuroof({"ranks", (dir / "a").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("the traces name different world sizes (4 in 4 traces, 8 in 1 "
                            "trace): ranks from two different jobs?"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("world size 8, but 3 ranks are missing: 4, 6, 7"), std::string::npos)
      << result.err;
}

// Ranks 0-2 on one GPU model, rank 3 on another: every output names each rank's model, and the
// mix is warned with its counts (the late rank 3 is not silently compared across models).
TEST(RanksCliTest, DifferentGpuModelsAreNamedAndWarned) {
  TempDir dir;
  fs::create_directories(dir / "models");
  for (int r = 0; r < 4; ++r) {
    PlantedRank planted;
    planted.device_name = r == 3 ? "NVIDIA H100" : "NVIDIA A100";
    WriteFile(dir / "models" / fmt::format("r{}.json", r), KinetoRank(r, 4, planted));
  }
  const std::string warning =
      "ranks run on 2 GPU models: 3 on NVIDIA A100, 1 on NVIDIA H100 (rank 3); figures compared "
      "across models";
  CliResult csv = RunGpuroof({"ranks", (dir / "models").string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.err.find("warning: " + warning), std::string::npos) << csv.err;
  EXPECT_EQ(RowOfRank(csv.out, "0")["device_name"], "NVIDIA A100");
  EXPECT_EQ(RowOfRank(csv.out, "3")["device_name"], "NVIDIA H100");
  CliResult json = RunGpuroof({"ranks", (dir / "models").string(), "--format", "json", "-q"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(R"("device_name": "NVIDIA H100")"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(warning), std::string::npos) << json.out;
  CliResult text = RunGpuroof({"ranks", (dir / "models").string(), "-q"});
  EXPECT_NE(text.out.find("warning: " + warning), std::string::npos) << text.out;
}

// Rank 3's capture starts a step later (ProfilerStep#2-#4, the others #1-#3): steps are still
// matched by position, and that is warned in every output.
TEST(RanksCliTest, StepNumbersThatDoNotLineUpAreWarned) {
  TempDir dir;
  fs::create_directories(dir / "shift");
  for (int r = 0; r < 4; ++r) {
    PlantedRank planted;
    if (r == 3) planted.first_step = 2;
    WriteFile(dir / "shift" / fmt::format("r{}.json", r), KinetoRank(r, 4, planted));
  }
  const std::string warning =
      "steps are matched by position, but the ranks' step numbers differ at 3 of 3 positions: 1 "
      "of 4 ranks is numbered otherwise than most (#1-#3): rank 3 (#2-#4); its steps and "
      "collectives are compared with steps of other numbers";
  CliResult text = RunGpuroof({"ranks", (dir / "shift").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.err.find("gpuroof: warning: " + warning), std::string::npos) << text.err;
  EXPECT_NE(text.out.find("warning: " + warning.substr(0, 100)), std::string::npos) << text.out;
  CliResult json = RunGpuroof({"ranks", (dir / "shift").string(), "--format", "json", "-q"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(warning), std::string::npos) << json.out;
}

// Rank 1's reader skips two kernels (dur -5, no ts): the report itself, not only stderr, says
// that rank 1's figures rest on a partly read trace, in every format.
TEST(RanksCliTest, RecordsSkippedWithDataLossAreSaidPerRank) {
  TempDir dir;
  fs::create_directories(dir / "loss");
  for (int r = 0; r < 3; ++r) {
    PlantedRank planted;
    planted.skipped_records = r == 1;
    WriteFile(dir / "loss" / fmt::format("r{}.json", r), KinetoRank(r, 3, planted));
  }
  const std::string warning =
      "warning: rank 1: the reader skipped 2 records with data loss: its figures rest on a partly "
      "read trace";
  CliResult text = RunGpuroof({"ranks", (dir / "loss").string(), "-q"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(warning), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("rank 0: the reader"), std::string::npos) << text.out;
  CliResult csv = RunGpuroof({"ranks", (dir / "loss").string(), "--format", "csv", "-q"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(RowOfRank(csv.out, "0")["records_lost"], "0");
  EXPECT_EQ(RowOfRank(csv.out, "1")["records_lost"], "2");
  CliResult json = RunGpuroof({"ranks", (dir / "loss").string(), "--format", "json", "-q"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(WithoutSpace(json.out).find(R"("rank":1,)"), std::string::npos);
  EXPECT_NE(WithoutSpace(json.out).find(R"("records_lost":2,)"), std::string::npos) << json.out;
}

TEST(RanksCliTest, MixedFormatsAreAllowedAndSaid) {
  TempDir dir;
  WriteKinetoJob(dir / "mixed");
  fs::path nsys = dir / "mixed" / "zz_rank.sqlite";
  testsupport::BuildFromDescription(NsysRank(PlantedRank{}), nsys.string(), nsys);
  CliResult result = RunGpuroof({"ranks", (dir / "mixed").string(), "--format", "json"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("mixed formats: 4 kineto-json, 1 nsys-sqlite"), std::string::npos)
      << result.out;
}

// The union of [start, start + duration) of the rows `keep` selects in an nsys gputrace CSV.
int64_t UnionOfRows(const std::vector<std::map<std::string, std::string>>& rows, bool kernels) {
  std::vector<std::pair<int64_t, int64_t>> intervals;
  for (const auto& row : rows) {
    bool is_copy = row.at("Name").rfind("[CUDA", 0) == 0;
    if (is_copy == kernels) continue;
    int64_t start = std::stoll(row.at("Start (ns)"));
    intervals.emplace_back(start, start + std::stoll(row.at("Duration (ns)")));
  }
  std::sort(intervals.begin(), intervals.end());
  int64_t total = 0;
  int64_t end = 0;
  for (auto [s, e] : intervals) {
    s = std::max(s, end);
    if (e > s) total += e - s;
    end = std::max(end, e);
  }
  return total;
}

TEST(RanksCliTest, SharedSaxpyRankPair) {
  const fs::path fixtures(GPUROOF_SHARED_FIXTURES_DIR);
  if (!fs::is_directory(fixtures)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << fixtures;
  }
  CliResult result =
      RunGpuroof({"ranks", (fixtures / "nsys/nsys2021_5_saxpy_rank0.sqlite").string(),
                  (fixtures / "nsys/nsys2021_5_saxpy_rank1.sqlite").string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  ASSERT_EQ(ParseCsv(result.out).size(), 2u) << result.out;
  for (int r = 0; r < 2; ++r) {
    auto row = RowOfRank(result.out, std::to_string(r));
    EXPECT_EQ(row.at("rank_from"), "file order");
    EXPECT_DOUBLE_EQ(Number(row, "steps"), 1);  // no ProfilerStep ranges: the whole trace
    // nsys's own gputrace export of the same run, by a different method.
    auto rows = ParseCsv(
        ReadFile(fixtures / fmt::format("nsys-csv/nsys2021_5_saxpy_rank{}_gputrace.csv", r)));
    EXPECT_DOUBLE_EQ(Number(row, "compute_busy_ns"), static_cast<double>(UnionOfRows(rows, true)));
    EXPECT_DOUBLE_EQ(Number(row, "copy_busy_ns"), static_cast<double>(UnionOfRows(rows, false)));
  }
  CliResult text = RunGpuroof({"ranks", (fixtures / "nsys/nsys2021_5_saxpy_rank0.sqlite").string(),
                               (fixtures / "nsys/nsys2021_5_saxpy_rank1.sqlite").string()});
  EXPECT_NE(text.out.find("fewer than 3 ranks: no outlier rule applied"), std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace gpuroof::testing
