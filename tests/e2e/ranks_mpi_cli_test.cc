// End-to-end under MPI (GPUROOF_MPI builds, ctest label `mpi`): `mpirun -n 2 gpuroof ranks`
// writes what a single process writes, byte for byte: stdout in every format, the -o file, the
// warnings on stderr and the exit code, also when a trace that MPI process 1 reads is broken.
// mpirun adds its own lines to stderr when a process exits non-zero; those runs compare the
// exit code and that stderr starts with the single process's.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "rank_sets.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;

CliResult RunUnderMpi(int processes, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GPUROOF_MPIEXEC, "-n", std::to_string(processes),
                                   "--oversubscribe", GPUROOF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv);
}

void ExpectSameRun(const std::vector<std::string>& args) {
  CliResult one = RunGpuroof(args);
  CliResult two = RunUnderMpi(2, args);
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(two.exit_code, one.exit_code) << two.err;
  EXPECT_EQ(two.out, one.out);
  EXPECT_EQ(two.err, one.err);
}

TEST(RanksMpiCliTest, TwoProcessesWriteWhatOneWrites) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  const std::string job = (dir / "job").string();
  ExpectSameRun({"ranks", job});
  ExpectSameRun({"ranks", job, "--format", "csv"});
  ExpectSameRun({"ranks", job, "--format", "json"});
  ExpectSameRun({"ranks", job, "--format", "markdown", "--jobs", "2"});
}

// What a summary carries beyond the figures (work outside the steps, a rank whose one step is the
// whole trace, kept apart in the collectives) crosses between the processes too. Padded (JSON
// ends in spaces) so that process 1 reads ranks 0 and 1, the ones that carry it: worker_3 is the
// largest (to process 0), worker_0 and worker_1 next (to process 1), worker_2 to process 0.
TEST(RanksMpiCliTest, UnevenStepsComeOutAsFromOneProcess) {
  TempDir dir;
  WriteUnevenStepsJob(dir / "job");
  const std::string job = (dir / "job").string();
  for (const auto& [name, pad] :
       std::vector<std::pair<std::string, size_t>>{{"worker_3.pt.trace.json", 3000},
                                                   {"worker_0.pt.trace.json", 2000},
                                                   {"worker_1.pt.trace.json", 1000}}) {
    WriteFile(dir / "job" / name, ReadFile(dir / "job" / name) + std::string(pad, ' '));
  }
  ExpectSameRun({"ranks", job});
  ExpectSameRun({"ranks", job, "--format", "json"});
}

TEST(RanksMpiCliTest, OnlyProcessZeroWritesTheOutputFile) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  CliResult one = RunGpuroof(
      {"ranks", (dir / "job").string(), "--format", "json", "-o", (dir / "one.json").string()});
  CliResult two = RunUnderMpi(
      3, {"ranks", (dir / "job").string(), "--format", "json", "-o", (dir / "two.json").string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(two.out, "");
  EXPECT_EQ(two.err, one.err);
  EXPECT_EQ(ReadFile(dir / "two.json"), ReadFile(dir / "one.json"));
}

// File sizes decide who reads what (largest first, to the least-loaded process): the 4 job files
// are of one size; broken_a, padded larger than them all, goes to process 0, broken_b, padded to
// sit between, goes to process 1 (still empty then), so each process meets a broken trace.
TEST(RanksMpiCliTest, ABrokenTraceOnEitherProcessIsReportedByProcessZero) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  const std::string job = (dir / "job").string();
  uintmax_t job_file = fs::file_size(dir / "job" / "worker_0.pt.trace.json");
  auto truncated = [](uintmax_t padding) {
    return R"({"padding": ")" + std::string(padding, 'x') +
           R"(", "traceEvents": [{"name": "x", "ph": "X", "ts": )";
  };
  WriteFile(dir / "job" / "broken_a.pt.trace.json", truncated(job_file * 3));
  WriteFile(dir / "job" / "broken_b.pt.trace.json", truncated(job_file + 10));
  ExpectSameRun({"ranks", job, "--format", "csv"});
  CliResult one = RunGpuroof({"ranks", job, "--strict"});
  CliResult two = RunUnderMpi(2, {"ranks", job, "--strict"});
  EXPECT_EQ(one.exit_code, 1) << one.err;
  EXPECT_EQ(two.exit_code, one.exit_code) << two.err;
  EXPECT_EQ(two.out, one.out);
  EXPECT_EQ(two.err.substr(0, one.err.size()), one.err);
  EXPECT_NE(one.err.find("not analysed: " + (dir / "job" / "broken_b.pt.trace.json").string()),
            std::string::npos)
      << one.err;
}

TEST(RanksMpiCliTest, AnEmptyDirectoryStopsEveryProcess) {
  TempDir dir;
  fs::create_directories(dir / "empty");
  CliResult one = RunGpuroof({"ranks", (dir / "empty").string()});
  CliResult two = RunUnderMpi(2, {"ranks", (dir / "empty").string()});
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_EQ(two.exit_code, one.exit_code);
  EXPECT_EQ(two.out, "");
  EXPECT_EQ(two.err.substr(0, one.err.size()), one.err);
}

// Under `timeout`, so that a job that hangs (a process left waiting for one that is gone) fails
// the test with 124 instead of stalling ctest.
CliResult RunUnderMpiWithin(int seconds, const std::vector<std::string>& mpirun_args) {
  std::vector<std::string> argv = {
      "timeout", "-k", "5", std::to_string(seconds), GPUROOF_MPIEXEC, "--oversubscribe"};
  argv.insert(argv.end(), mpirun_args.begin(), mpirun_args.end());
  return RunProgram(argv);
}

// gpuroof's own lines on stderr (mpirun adds its own when a process fails).
std::vector<std::string> GpuroofLines(const std::string& err) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < err.size()) {
    size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    std::string line = err.substr(start, end - start);
    if (line.rfind("gpuroof:", 0) == 0) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// The leader fails after the gather, when it writes the -o file (its folder is missing): the
// others have sent their summaries and are in MPI_Finalize, which the leader reaches too. Every
// process ends, in time, with the single process's exit code and its one line.
TEST(RanksMpiCliTest, AnOutputFileTheLeaderCannotWriteStopsEveryProcess) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  const std::string out = (dir / "missing" / "out.json").string();
  CliResult one = RunGpuroof({"ranks", (dir / "job").string(), "--format", "json", "-o", out});
  CliResult two = RunUnderMpiWithin(60, {"-n", "2", GPUROOF_BINARY, "ranks", (dir / "job").string(),
                                         "--format", "json", "-o", out});
  ASSERT_NE(one.exit_code, 0) << one.err;
  EXPECT_EQ(two.exit_code, one.exit_code) << two.err;
  EXPECT_EQ(two.out, "");
  EXPECT_EQ(GpuroofLines(two.err), GpuroofLines(one.err)) << two.err;
  ASSERT_EQ(GpuroofLines(one.err).size(), 1u) << one.err;
  EXPECT_NE(one.err.find(out), std::string::npos) << one.err;
  EXPECT_FALSE(fs::exists(out));
}

// An internal error on the leader after the gather (here: process 1, a stand-in, sends it a
// summaries message that is malformed) cannot be left to MPI_Finalize, which would wait for the
// others for ever: the leader says it in one line and MPI_Abort takes every process down, the
// stand-in included (it waits for a message that never comes), with the internal-error exit
// code 3. Without the abort the job would hang, and `timeout` would end it with 124.
TEST(RanksMpiCliTest, AnInternalErrorOnTheLeaderAbortsEveryProcess) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  CliResult aborted =
      RunUnderMpiWithin(60, {"-n", "1", GPUROOF_BINARY, "ranks", (dir / "job").string(), ":", "-n",
                             "1", GPUROOF_MPI_MALFORMED_PEER});
  EXPECT_EQ(aborted.exit_code, 3) << aborted.err;
  EXPECT_EQ(aborted.out, "");
  EXPECT_EQ(GpuroofLines(aborted.err),
            std::vector<std::string>{"gpuroof: internal error: MPI process 0: ranks: a message "
                                     "between MPI processes is malformed"})
      << aborted.err;
}

// A usage error is the same on every process: said once, by the first, with exit 2.
TEST(RanksMpiCliTest, AUsageErrorIsSaidOnce) {
  TempDir dir;
  fs::create_directories(dir / "empty");
  CliResult one = RunGpuroof({"ranks", (dir / "empty").string(), "--jbos", "2"});
  CliResult two = RunUnderMpi(2, {"ranks", (dir / "empty").string(), "--jbos", "2"});
  ASSERT_EQ(one.exit_code, 2);
  EXPECT_EQ(two.exit_code, 2);
  EXPECT_EQ(two.err.substr(0, one.err.size()), one.err);
  size_t said = 0;
  for (size_t at = two.err.find("gpuroof: error:"); at != std::string::npos;
       at = two.err.find("gpuroof: error:", at + 1)) {
    ++said;
  }
  EXPECT_EQ(said, 1U) << two.err;
}

TEST(RanksMpiCliTest, HelpAndVersionAreSaidOnce) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"ranks", "--help"}, {"--version"}}) {
    CliResult one = RunGpuroof(args);
    CliResult two = RunUnderMpi(2, args);
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(two.exit_code, 0) << two.err;
    EXPECT_EQ(two.out, one.out) << args[0];
    // Process 1 of 2 on its own (the launcher's variables are all it looks at): silent.
    std::vector<std::string> argv = {"/usr/bin/env", "OMPI_COMM_WORLD_SIZE=2",
                                     "OMPI_COMM_WORLD_RANK=1", GPUROOF_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    CliResult later = RunProgram(argv);
    EXPECT_EQ(later.exit_code, 0) << args[0];
    EXPECT_EQ(later.out, "") << args[0];
  }
}

// A later process ends silently with 0 on a usage or input error, so that mpirun cannot abort
// the job before process 0 has said the error. Run as process 1 of 2 without mpirun: the
// launcher's variables are all the process looks at before MPI starts.
TEST(RanksMpiCliTest, ALaterProcessLeavesTheErrorAndTheExitCodeToProcessZero) {
  TempDir dir;
  const std::string missing = (dir / "missing.sqlite").string();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"ranks", dir.path().string(), "--jbos", "2"},
                                             {"anlyze", missing},
                                             {"analyze", missing}}) {
    std::vector<std::string> argv = {"/usr/bin/env", "OMPI_COMM_WORLD_SIZE=2",
                                     "OMPI_COMM_WORLD_RANK=1", GPUROOF_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    CliResult later = RunProgram(argv);
    EXPECT_EQ(later.exit_code, 0) << args[0] << ": " << later.err;
    EXPECT_EQ(later.err, "") << args[0];
    CliResult first = RunGpuroof(args);
    EXPECT_EQ(first.exit_code, 2) << args[0] << ": " << first.err;
  }
}

}  // namespace
}  // namespace gpuroof::testing
