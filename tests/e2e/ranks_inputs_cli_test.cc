// End-to-end: how `gpuroof ranks DIR` finds its traces. One file reached twice (given and found in
// its directory, a hard or symbolic link) is refused; files that are no trace (JSON without
// traceEvents, gpuroof's own JSON output, a whitespace-only or corrupt gzip file) are left out and
// counted, never given a rank position; linked sub-directories are followed once.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "rank_sets.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// An nsys export naming no rank: its rank is its place in the file order.
void WriteNsysTrace(const fs::path& path, int kernel_us) {
  std::string text = "gpu 0 \"NVIDIA Test GPU\"\n";
  text += "api start=5us end=7us corr=1 pid=1 tid=1 name=cudaLaunchKernel\n";
  text +=
      fmt::format("kernel start=10us end={}us name=gemm corr=1 stream=7 pid=1\n", 10 + kernel_us);
  fs::create_directories(path.parent_path());
  testsupport::BuildFromDescription(text, path.filename().string(), path);
}

void ExpectRefused(const std::vector<std::string>& args, const std::string& second,
                   const std::string& problem) {
  CliResult result = RunGpuroof(args);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.out, "");
  EXPECT_TRUE(Has(result.err, "gpuroof: error: " + second + ": " + problem)) << result.err;
  EXPECT_TRUE(Has(result.err, ": each trace is one rank; give it once")) << result.err;
}

TEST(RanksInputsCliTest, OneTraceReachedTwiceIsRefused) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  const std::string job = (dir / "job").string();
  const std::string worker = (dir / "job" / "worker_0.pt.trace.json").string();

  // The file and its directory: the same spelling twice.
  ExpectRefused({"ranks", job, worker}, worker, "is read twice (found in " + job + ", and given)");

  // A hard link and a symbolic link in another directory.
  fs::create_directories(dir / "hard");
  fs::create_hard_link(worker, dir / "hard" / "r.pt.trace.json");
  ExpectRefused({"ranks", job, (dir / "hard").string()},
                (dir / "hard" / "r.pt.trace.json").string(),
                "is the same file as " + worker + " (found in " + job);
  fs::create_directories(dir / "soft");
  fs::create_symlink(worker, dir / "soft" / "r.pt.trace.json");
  ExpectRefused({"ranks", (dir / "soft").string(), worker}, worker,
                "is the same file as " + (dir / "soft" / "r.pt.trace.json").string());

  // A hard link inside the one directory given.
  fs::create_hard_link(worker, dir / "job" / "zz_copy.pt.trace.json");
  ExpectRefused({"ranks", job}, (dir / "job" / "zz_copy.pt.trace.json").string(),
                "is the same file as " + worker);
}

TEST(RanksInputsCliTest, OddFilesInADirectoryAreLeftOutAndCounted) {
  TempDir dir;
  WriteKinetoJob(dir / "job");
  WriteFile(dir / "job" / "notes.txt", "   \n\n   ");
  WriteFile(dir / "job" / "junk.bin", std::string("\x1f\x8b\x08\x00garbagegarbage", 18));
  WriteFile(dir / "job" / "README.txt", "four ranks\n");
  CliResult result = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(ParseCsv(result.out).size(), 4u);
  EXPECT_TRUE(Has(result.err, "gpuroof: note: 1 file in the directories is no trace, left out\n"))
      << result.err;
  EXPECT_TRUE(Has(result.err,
                  "gpuroof: note: 2 files in the directories are neither readable as a trace nor "
                  "named like one, left out (first: " +
                      (dir / "job" / "junk.bin").string() + ": "))
      << result.err;
  EXPECT_FALSE(Has(result.err, "not analysed")) << result.err;

  // Named like a trace, it is one: a damaged rank is reported, not left out.
  WriteFile(dir / "job" / "worker_9.pt.trace.json.gz", std::string("\x1f\x8b\x08\x00junk", 8));
  CliResult damaged = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(damaged.exit_code, 0) << damaged.err;
  EXPECT_TRUE(Has(damaged.err, "gpuroof: warning: not analysed: " +
                                   (dir / "job" / "worker_9.pt.trace.json.gz").string()))
      << damaged.err;
}

TEST(RanksInputsCliTest, JsonWithoutTraceEventsIsNoTraceAndTakesNoRankPosition) {
  TempDir dir;
  const fs::path job = dir / "job";
  WriteNsysTrace(job / "b_rank.sqlite", 100);
  WriteNsysTrace(job / "c_rank.sqlite", 200);
  WriteFile(job / "a_env.json", R"({"gpu": "A100", "driver": "535"})");
  // Braces, brackets, quotes and the key itself inside values and nested objects do not count.
  WriteFile(job / "a_config.json",
            R"({"note": "{\"traceEvents\": [", "nested": {"traceEvents": []}, "list": [{}, "]"]})");
  const fs::path report = job / "a_summary.json";
  CliResult first = RunGpuroof({"ranks", job.string(), "--format", "json", "-o", report.string()});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(Has(first.err,
                  "gpuroof: note: 2 files in the directories are no trace, left out "
                  "(JSON without a top-level traceEvents key)"))
      << first.err;
  const std::string written = ReadFile(report);

  // Again, the report written last time in the directory: overwritten, not read as a rank.
  CliResult again = RunGpuroof({"ranks", job.string(), "--format", "json", "-o", report.string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Has(again.err, "3 files in the directories are no trace, left out (JSON without"))
      << again.err;
  EXPECT_FALSE(Has(again.err, "not analysed")) << again.err;
  EXPECT_FALSE(Has(again.err, "missing")) << again.err;
  EXPECT_EQ(ReadFile(report), written);  // ranks 0 and 1 by file order, as before
  CliResult csv = RunGpuroof({"ranks", job.string(), "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const auto rows = ParseCsv(csv.out);
  ASSERT_EQ(rows.size(), 2u) << csv.out;
  EXPECT_EQ(rows[0].at("rank"), "0");
  EXPECT_TRUE(rows[0].at("trace").ends_with("b_rank.sqlite")) << csv.out;
  EXPECT_EQ(rows[1].at("rank"), "1");

  // A Kineto trace whose traceEvents come after 100 KiB of other keys is still a trace, and so
  // is a bare event array.
  fs::create_directories(dir / "late");
  std::string kineto = KinetoRank(0, 2, PlantedRank{});
  ASSERT_EQ(kineto.front(), '{');
  kineto.insert(1, fmt::format(R"("padding": "{}", "more": [{{"x": "}}]"}}], )",
                               std::string(100 << 10, 'p')));
  WriteFile(dir / "late" / "r0.json", kineto);
  WriteFile(dir / "late" / "r1.json", R"([{"name": "x", "ph": "i", "ts": 1, "pid": 1, "tid": 1}])");
  CliResult late = RunGpuroof({"ranks", (dir / "late").string(), "--format", "csv"});
  EXPECT_FALSE(Has(late.err, "no trace, left out")) << late.err;
  EXPECT_TRUE(Has(late.out, "r0.json")) << late.out << late.err;
}

TEST(RanksInputsCliTest, LinkedSubdirectoriesAreFollowedOnce) {
  TempDir dir;
  WriteKinetoJob(dir / "elsewhere");
  fs::create_directories(dir / "job" / "node0");
  for (const char* name : {"worker_0.pt.trace.json", "worker_1.pt.trace.json"}) {
    fs::rename(dir / "elsewhere" / name, dir / "job" / "node0" / name);
  }
  fs::create_directory_symlink(dir / "elsewhere", dir / "job" / "node1");
  fs::create_directory_symlink("..", dir / "job" / "node0" / "loop");  // back to job/
  CliResult result = RunGpuroof({"ranks", (dir / "job").string(), "--format", "csv"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(ParseCsv(result.out).size(), 4u) << result.out;
  EXPECT_FALSE(Has(result.err, "missing")) << result.err;
  EXPECT_TRUE(Has(result.err,
                  "gpuroof: note: 1 directory reached again through a symbolic link "
                  "(a loop, or a second link to one directory), not searched twice"))
      << result.err;
}

// -o never replaces a trace the directory search reads, also one reached through a symbolic link
// (to the file, or to a sub-directory that lies elsewhere).
TEST(RanksInputsCliTest, OutputNeverReplacesATraceReachedThroughALink) {
  TempDir dir;
  WriteKinetoJob(dir / "elsewhere");
  fs::create_directories(dir / "job");
  fs::rename(dir / "elsewhere" / "worker_0.pt.trace.json", dir / "job" / "worker_0.pt.trace.json");
  fs::create_directories(dir / "third");
  fs::rename(dir / "elsewhere" / "worker_3.pt.trace.json",
             dir / "third" / "worker_3.pt.trace.json");
  fs::create_directory_symlink(dir / "elsewhere", dir / "job" / "node1");
  fs::create_symlink(dir / "third" / "worker_3.pt.trace.json", dir / "job" / "linked.json");
  for (const fs::path& output :
       {dir / "job" / "node1" / "worker_2.pt.trace.json", dir / "job" / "linked.json"}) {
    const std::string before = ReadFile(output);
    CliResult result = RunGpuroof({"ranks", (dir / "job").string(), "-o", output.string()});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_TRUE(Has(result.err, "--output would overwrite a trace in the input directory"))
        << result.err;
    EXPECT_EQ(ReadFile(output), before) << output;
  }
}

}  // namespace
}  // namespace gpuroof::testing
