// End-to-end: what `gpuroof compare` refuses to compare or to append, so that a verdict never
// rests on a copy of a run, part of a job, a history of other hardware, or options it ignores;
// and what it says in the files a CI job reads.
#include <algorithm>
#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.h"
#include "rank_sets.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

// 20 steps of 1 ms, each an NVTX range "step" launching one gemm of `gemm_us` (+ up to 3 us of
// pseudo-random noise varied by `seed`) on a GPU named `gpu`.
std::filesystem::path WriteRun(const TempDir& dir, const std::string& name, int seed,
                               const std::string& gpu = "NVIDIA TestGPU", int gemm_us = 300) {
  const std::filesystem::path file = dir / (name + ".sqlite");
  testsupport::BuildFromDescription(fmt::format(R"desc(
gpu 0 "{}"
repeat 20 step=1ms {{
  nvtx start=0 end=900us text="step"
  api start=10us end=20us corr=1+i
  kernel start=100us end=100us+{}us+((i*7919+{})%7)*500 corr=1+i name=gemm grid=256 block=128
}}
)desc",
                                                gpu, gemm_us, seed),
                                    name, file);
  return file;
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// A byte-identical copy of `run` beside it, "<stem>_copy.sqlite".
std::filesystem::path CopyOf(const std::filesystem::path& run) {
  std::filesystem::path copy = run.parent_path() / (run.stem().string() + "_copy.sqlite");
  std::filesystem::copy_file(run, copy);
  return copy;
}

// The refusal of a copy of a profile: exit 2 and one line, naming the copy and what it repeats.
void ExpectCopyRefused(const CliResult& r, const std::filesystem::path& copy,
                       const std::filesystem::path& original) {
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(copy.string() + ": has the same bytes as " + original.string()),
            std::string::npos)
      << r.err;
}

// A byte-identical copy of a run on one side is not a second run: with it the run-to-run noise
// is zero and the interval has no width (it once made a +2 % change REGRESSED at p < 1e-9).
TEST(CompareInputsCli, ACopyOfAProfileOnOneSideIsRefused) {
  TempDir dir;
  const auto base = WriteRun(dir, "base", 1);
  const auto cur = WriteRun(dir, "cur", 2);
  const auto copy = CopyOf(cur);
  const CliResult r = RunGpuroof(
      {"compare", "--baseline", base.string(), "--current", cur.string(), copy.string()});
  ExpectCopyRefused(r, copy, cur);
}

// One run on both sides next to runs that are not halves any change; the same runs on both
// sides (an A/A check) stay allowed.
TEST(CompareInputsCli, ARunOnBothSidesNextToOthersIsRefused) {
  TempDir dir;
  const auto a = WriteRun(dir, "a", 1);
  const auto b = WriteRun(dir, "b", 2);
  const auto c = WriteRun(dir, "c", 3);
  const CliResult mixed = RunGpuroof({"compare", "--baseline", a.string(), b.string(), "--current",
                                      a.string(), c.string(), "--quiet"});
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err << mixed.out;
  EXPECT_NE(mixed.err.find(a.string() + ": is on both sides"), std::string::npos) << mixed.err;
  const CliResult a_a = RunGpuroof({"compare", "--baseline", a.string(), b.string(), "--current",
                                    a.string(), b.string(), "--quiet"});
  EXPECT_NE(a_a.exit_code, 2) << a_a.err;
}

// A line of another GPU model would make every later `--history` compare exit 2; another
// iteration range would leave it out. Refused, and the history is left as it was.
TEST(CompareInputsCli, HistoryAppendRefusesARunItCouldNotBeComparedWith) {
  TempDir dir;
  const auto h200 = WriteRun(dir, "h200", 1, "NVIDIA H200");
  const auto a100 = WriteRun(dir, "a100", 2, "NVIDIA A100");
  const std::string history = (dir / "h.jsonl").string();
  const CliResult seed = RunGpuroof({"compare", "--current", h200.string(), "--history-append",
                                     history, "--iteration-range", "step", "--quiet"});
  ASSERT_EQ(seed.exit_code, 0) << seed.err;
  const std::string before = ReadFile(history);
  const CliResult other_gpu = RunGpuroof({"compare", "--current", a100.string(), "--history-append",
                                          history, "--iteration-range", "step", "--quiet"});
  EXPECT_EQ(other_gpu.exit_code, 2) << other_gpu.err;
  EXPECT_NE(other_gpu.err.find(a100.string() + ": not appended to " + history +
                               ": its lines (last: line 1) were measured with the GPU model "
                               "'NVIDIA H200', this run with 'NVIDIA A100'"),
            std::string::npos)
      << other_gpu.err;
  const CliResult other_range =
      RunGpuroof({"compare", "--current", h200.string(), "--history-append", history, "--quiet"});
  EXPECT_EQ(other_range.exit_code, 2) << other_range.err;
  EXPECT_NE(other_range.err.find("--iteration-range 'step', this run with ''"), std::string::npos)
      << other_range.err;
  EXPECT_EQ(ReadFile(history), before);
}

// Appends from jobs running at once (CI jobs of one branch) each keep their line: the history's
// folder is locked from the read to the rename.
TEST(CompareInputsCli, ConcurrentAppendsKeepEveryLine) {
  TempDir dir;
  const std::string history = (dir / "h.jsonl").string();
  constexpr int kJobs = 8;
  // Each job its own run: one run appended twice is refused (HistoryAppendRefusesARunTwice).
  std::vector<std::filesystem::path> runs;
  for (int j = 0; j < kJobs; ++j)
    runs.push_back(WriteRun(dir, fmt::format("run{}", j), 1, "NVIDIA TestGPU", 300 + j));
  std::vector<std::future<CliResult>> jobs;
  for (int j = 0; j < kJobs; ++j) {
    jobs.push_back(std::async(std::launch::async, [&, j]() {
      return RunGpuroof(
          {"compare", "--current", runs[j].string(), "--history-append", history, "--quiet"});
    }));
  }
  for (auto& job : jobs) {
    const CliResult r = job.get();
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(Lines(ReadFile(history)), static_cast<size_t>(kJobs));
}

// A run appended twice was a second line for the same run, which narrowed the band of every
// later compare without a word. Refused (exit 2, one line naming the history and the trace),
// by the trace's SHA-256 the line records (a byte-identical copy too), and for lines written
// before lines recorded it, by their run summaries; the history is left as it was, and a
// compare that would append it writes no result file.
TEST(CompareInputsCli, HistoryAppendRefusesARunTwice) {
  TempDir dir;
  const auto run = WriteRun(dir, "run", 1);
  const auto other = WriteRun(dir, "other", 2);
  const std::string history = (dir / "h.jsonl").string();
  ASSERT_EQ(
      RunGpuroof({"compare", "--current", run.string(), "--history-append", history, "--quiet"})
          .exit_code,
      0);
  const std::string seeded = ReadFile(history);
  EXPECT_NE(seeded.find("\"trace_sha256\": \""), std::string::npos) << seeded;
  auto expect_refused = [&](const CliResult& r, const std::string& trace, const std::string& why) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(trace + ": not appended to " + history + ": its line 1 already holds " +
                         "this run (" + why),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  };
  expect_refused(
      RunGpuroof({"compare", "--current", run.string(), "--history-append", history, "--quiet"}),
      run.string(), "the same trace bytes, SHA-256 ");
  const auto copy = dir / "copy.sqlite";
  std::filesystem::copy_file(run, copy);
  expect_refused(
      RunGpuroof({"compare", "--current", copy.string(), "--history-append", history, "--quiet"}),
      copy.string(), "the same trace bytes");
  // Gated against the history and appended to it: refused before any result file is written.
  const std::string json = (dir / "r.json").string();
  expect_refused(RunGpuroof({"compare", "--history", history, "--current", run.string(),
                             "--history-append", history, "--json", json, "--quiet"}),
                 run.string(), "the same trace bytes");
  EXPECT_FALSE(std::filesystem::exists(json));
  EXPECT_EQ(ReadFile(history), seeded);
  // A line written before lines recorded the trace's hash: still read, and the same run is
  // known by its path and run summaries (another run of the same summaries is appended below).
  std::string old = seeded;
  const size_t hash = old.find(", \"trace_sha256\": \"");
  ASSERT_NE(hash, std::string::npos);
  old.erase(hash, old.find('"', hash + 19) + 1 - hash);
  ASSERT_EQ(old.find("trace_sha256"), std::string::npos) << old;
  WriteFile(history, old);
  expect_refused(
      RunGpuroof({"compare", "--current", run.string(), "--history-append", history, "--quiet"}),
      run.string(), "the same run summaries");
  EXPECT_EQ(ReadFile(history), old);
  // The line records the path as it was given: another spelling of it is the same trace (the
  // run was appended twice before, as the match was on the path string), and a relative path
  // is also taken against the history's folder (the line does not record its directory).
  const std::string quoted = "\"path\": \"" + run.string() + "\"";
  ASSERT_NE(old.find(quoted), std::string::npos) << old;
  std::filesystem::create_directories(dir / "sub");  // the kernel resolves "sub/.."
  const std::string spelled = (dir / "." / "sub" / ".." / "run.sqlite").string();
  for (const std::string& line_path :
       {run.string(), spelled, std::string("run.sqlite"), std::string("./run.sqlite")}) {
    std::string respelled = old;
    respelled.replace(respelled.find(quoted), quoted.size(), "\"path\": \"" + line_path + "\"");
    WriteFile(history, respelled);
    for (const std::string& given : {run.string(), spelled}) {
      const CliResult r =
          RunGpuroof({"compare", "--current", given, "--history-append", history, "--quiet"});
      expect_refused(r, given, "the same run summaries");
      // Actionable: the line cannot prove it holds this run, so the error says what to do if
      // it is another run of the same summaries.
      EXPECT_NE(
          r.err.find("If this is another run, remove line 1 from " + history + " and append again"),
          std::string::npos)
          << r.err;
      EXPECT_EQ(ReadFile(history), respelled) << line_path << " / " << given;
    }
  }
  // Two such lines: both are named, as both must go for another run to be appended.
  WriteFile(history, old + old);
  const CliResult twice =
      RunGpuroof({"compare", "--current", run.string(), "--history-append", history, "--quiet"});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_NE(twice.err.find("its lines 1, 2 already hold this run"), std::string::npos) << twice.err;
  EXPECT_NE(twice.err.find("remove lines 1, 2 from"), std::string::npos) << twice.err;
  WriteFile(history, old);
  // Another run (here of the same medians, another path) is appended.
  const CliResult next =
      RunGpuroof({"compare", "--current", other.string(), "--history-append", history, "--quiet"});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(Lines(ReadFile(history)), 2u);
}

// The same run in a line of another build or another file of it was appended twice, silently:
// a line without a hash written before this build's GPU idle (idle is stored, not compared, and
// its definition changed), and a hashed line of the same summaries under other bytes (x.json of
// x.json.gz, an .nsys-rep and its .sqlite export). The old line is refused with the line to
// remove; the other file is appended with a warning naming the line (two runs of a
// whole-microsecond trace named alike can share every median), also when both files are given in
// one call; another run of the same trace path is still appended.
TEST(CompareInputsCli, TheSameRunInAnOldLineIsRefusedAndInAnotherFileIsWarned) {
  TempDir dir;
  const auto run = WriteRun(dir, "run", 1);
  const std::string history = (dir / "h.jsonl").string();
  ASSERT_EQ(RunGpuroof({"compare", "--current", run.string(), "--iteration-range", "step",
                        "--history-append", history, "--quiet"})
                .exit_code,
            0);
  const std::string seeded = ReadFile(history);
  const size_t hash = seeded.find("\"trace_sha256\": \"");
  ASSERT_NE(hash, std::string::npos) << seeded;
  const size_t idle = seeded.find("\"idle:0\": ");
  ASSERT_NE(idle, std::string::npos) << seeded;
  auto expect_refused = [&](const std::string& text, const std::string& why) {
    WriteFile(history, text);
    const CliResult r = RunGpuroof({"compare", "--current", run.string(), "--iteration-range",
                                    "step", "--history-append", history, "--quiet"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(run.string() + ": not appended to " + history +
                         ": its line 1 already holds this run (the same run summaries, to the "
                         "last digit, of " +
                         why),
              std::string::npos)
        << r.err;
    EXPECT_NE(
        r.err.find("If this is another run, remove line 1 from " + history + " and append again"),
        std::string::npos)
        << r.err;
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(ReadFile(history), text);
  };
  // An old line (no hash) with another GPU idle, as written before idle was the idle inside the
  // iteration's length.
  std::string old = seeded;
  const size_t value = idle + 10;
  old.replace(value, old.find_first_of(",}", value) - value, "65529");
  old.erase(hash, old.find('"', hash + 19) + 3 - hash);
  ASSERT_EQ(old.find("trace_sha256"), std::string::npos) << old;
  ASSERT_NE(old.find("\"idle:0\": 65529,"), std::string::npos) << old;
  expect_refused(old, "a trace of this path; the line records no trace_sha256");
  // Another file of the run (the same summaries, another SHA-256), or another run of a trace
  // whose medians all agree: appended, with a warning naming the line (a refusal would stop a
  // CI job whose runs share a name), under --quiet too.
  auto expect_warned = [&](const std::string& text) {
    WriteFile(history, text);
    const CliResult r = RunGpuroof({"compare", "--current", run.string(), "--iteration-range",
                                    "step", "--history-append", history, "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("gpuroof: warning: " + run.string() + ": appended to " + history +
                         ", whose line 1 holds the same run summaries, to the last digit, from "
                         "a file of the same name with other bytes"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(Lines(r.err), 1u) << r.err;
    EXPECT_EQ(Lines(ReadFile(history)), 2u);
  };
  std::string other_file = seeded;
  other_file.replace(hash + 17, 64, std::string(64, 'a'));
  ASSERT_NE(other_file, seeded);
  expect_warned(other_file);
  // Its .nsys-rep (the name less its trace suffixes is the same): warned too.
  const std::string quoted = "\"path\": \"" + run.string() + "\"";
  ASSERT_NE(other_file.find(quoted), std::string::npos) << other_file;
  std::string report = other_file;
  report.replace(report.find(quoted), quoted.size(),
                 "\"path\": \"" + (dir / "run.nsys-rep").string() + "\"");
  expect_warned(report);
  // A trace of another name with the same summaries (runs of a synthetic or whole-microsecond
  // trace can share them): another run, appended.
  std::string renamed = other_file;
  renamed.replace(renamed.find(quoted), quoted.size(),
                  "\"path\": \"" + (dir / "other.sqlite").string() + "\"");
  WriteFile(history, renamed);
  EXPECT_EQ(RunGpuroof({"compare", "--current", run.string(), "--iteration-range", "step",
                        "--history-append", history, "--quiet"})
                .exit_code,
            0);
  EXPECT_EQ(Lines(ReadFile(history)), 2u);
  EXPECT_EQ(Lines(RunGpuroof({"compare", "--current", run.string(), "--iteration-range", "step",
                              "--history-append", (dir / "h2.jsonl").string(), "--quiet"})
                      .err),
            0u);
  // Two traces of one name and the same summaries (seed 2 shares seed 1's medians) given in one
  // call: both appended, the second with the warning.
  TempDir other_dir;
  const auto again = WriteRun(other_dir, "run", 2);
  const std::string in_call = (dir / "h3.jsonl").string();
  const CliResult both =
      RunGpuroof({"compare", "--current", run.string(), "--current", again.string(),
                  "--iteration-range", "step", "--history-append", in_call, "--quiet"});
  EXPECT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.err.find("gpuroof: warning: " + again.string() + ": appended to " + in_call +
                          ", as another trace given with it holds the same run summaries"),
            std::string::npos)
      << both.err;
  EXPECT_EQ(Lines(ReadFile(in_call)), 2u);
  // Another run (another kernel time) is appended after either line.
  const auto slower = WriteRun(dir, "slower", 1, "NVIDIA TestGPU", 320);
  for (const std::string& text : {old, other_file}) {
    WriteFile(history, text);
    const CliResult next = RunGpuroof({"compare", "--current", slower.string(), "--iteration-range",
                                       "step", "--history-append", history, "--quiet"});
    EXPECT_EQ(next.exit_code, 0) << next.err;
    EXPECT_EQ(Lines(ReadFile(history)), 2u);
  }
}

TEST(CompareInputsCli, AnEmptyHistoryOrADirectorySaysSo) {
  TempDir dir;
  const auto run = WriteRun(dir, "run", 1);
  WriteFile(dir / "empty.jsonl", "");
  const CliResult empty = RunGpuroof(
      {"compare", "--current", run.string(), "--history", (dir / "empty.jsonl").string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("empty.jsonl: the history has no runs yet"), std::string::npos)
      << empty.err;
  std::filesystem::create_directories(dir / "hdir");
  const CliResult folder =
      RunGpuroof({"compare", "--current", run.string(), "--history", (dir / "hdir").string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("hdir: is a directory, not a history file"), std::string::npos)
      << folder.err;
}

// `-o FILE` is the verdict table's file in every case, also when a result file goes to stdout.
TEST(CompareInputsCli, OutputFileIsWrittenWhenJsonGoesToStdout) {
  TempDir dir;
  const auto a = WriteRun(dir, "a", 1);
  const auto b = WriteRun(dir, "b", 2);
  const std::string table = (dir / "table.txt").string();
  const CliResult r =
      RunGpuroof({"compare", a.string(), b.string(), "--json", "-", "-o", table, "--quiet"});
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out.rfind("{", 0), 0u) << r.out;
  EXPECT_NE(ReadFile(table).find("result: "), std::string::npos);
  EXPECT_EQ(r.err, "");
}

// Options a mode does not use are refused, not ignored; --epochs checks the GPU models as the
// gate does.
TEST(CompareInputsCli, OptionsAModeDoesNotUseAreRefused) {
  TempDir dir;
  const auto a = WriteRun(dir, "a", 1);
  const auto b = WriteRun(dir, "b", 2);
  const auto other = WriteRun(dir, "other", 3, "NVIDIA A100");
  const CliResult epochs =
      RunGpuroof({"compare", a.string(), b.string(), "--epochs", "2", "--iteration-range", "step"});
  EXPECT_EQ(epochs.exit_code, 2);
  EXPECT_NE(epochs.err.find("simple mode (--epochs) does not use --iteration-range"),
            std::string::npos)
      << epochs.err;
  const CliResult threshold = RunGpuroof({"compare", a.string(), b.string(), "--threshold", "1.1"});
  EXPECT_EQ(threshold.exit_code, 2);
  EXPECT_NE(threshold.err.find("the statistical gate does not use --threshold"), std::string::npos)
      << threshold.err;
  const CliResult gpus = RunGpuroof({"compare", a.string(), other.string(), "--epochs", "2"});
  EXPECT_EQ(gpus.exit_code, 2);
  EXPECT_NE(gpus.err.find("not comparable: GPU model 'NVIDIA A100' differs from 'NVIDIA TestGPU'"),
            std::string::npos)
      << gpus.err;
  const CliResult sides =
      RunGpuroof({"compare", "--baseline", a.string(), "--current", b.string(), "--epochs", "2"});
  EXPECT_EQ(sides.exit_code, 2);
  EXPECT_NE(sides.err.find("given as BASE CURRENT (got 2, some through --baseline/--current)"),
            std::string::npos)
      << sides.err;
}

// A10: --calibrate takes each profile as one A/A run; a copy of one (or one given twice) would be
// a run without run-to-run noise. Refused as within a side of the gate, in one line.
TEST(CompareInputsCli, CalibrateRefusesACopyOfAProfile) {
  TempDir dir;
  const auto a = WriteRun(dir, "a", 1);
  const auto b = WriteRun(dir, "b", 2);
  const auto copy = CopyOf(b);
  const CliResult r = RunGpuroof({"compare", "--calibrate", a.string(), b.string(), copy.string(),
                                  "--iteration-range", "step"});
  ExpectCopyRefused(r, copy, b);
  EXPECT_EQ(r.out, "");
  const CliResult twice = RunGpuroof(
      {"compare", "--calibrate", a.string(), b.string(), a.string(), "--iteration-range", "step"});
  EXPECT_EQ(twice.exit_code, 2) << twice.err << twice.out;
  EXPECT_NE(twice.err.find(a.string() + ": is given twice"), std::string::npos) << twice.err;
  // Distinct runs still calibrate.
  const CliResult runs =
      RunGpuroof({"compare", "--calibrate", a.string(), b.string(), "--iteration-range", "step"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;
}

// A14: --calibrate and directory (job) compares refuse the options they do not use, in one line
// naming them all (exit 2), as the gate and --epochs do.
TEST(CompareInputsCli, CalibrateAndJobComparesRefuseOptionsTheyDoNotUse) {
  TempDir dir;
  const auto a = WriteRun(dir, "a", 1);
  const auto b = WriteRun(dir, "b", 2);
  const auto c = WriteRun(dir, "c", 3);
  const CliResult calibrate =
      RunGpuroof({"compare", "--calibrate", a.string(), b.string(), "--iteration-range", "step",
                  "--threshold", "1.1", "--gate-counts", "--fail-on", "inconclusive"});
  EXPECT_EQ(calibrate.exit_code, 2) << calibrate.err << calibrate.out;
  EXPECT_EQ(Lines(calibrate.err), 1u) << calibrate.err;
  EXPECT_NE(calibrate.err.find("--calibrate does not use --threshold, --fail-on, --gate-counts"),
            std::string::npos)
      << calibrate.err;
  const CliResult sides = RunGpuroof(
      {"compare", "--calibrate", a.string(), b.string(), "--baseline", c.string(), "--quiet"});
  EXPECT_EQ(sides.exit_code, 2) << sides.err << sides.out;
  EXPECT_NE(sides.err.find("--calibrate does not use --baseline"), std::string::npos) << sides.err;
  WriteKinetoJob(dir / "base");
  WriteKinetoJob(dir / "cur");
  const CliResult job =
      RunGpuroof({"compare", (dir / "base").string(), (dir / "cur").string(), "--warmup", "3",
                  "--alpha", "0.05", "--gate-range", "fwd", "--quiet"});
  EXPECT_EQ(job.exit_code, 2) << job.err << job.out;
  EXPECT_EQ(Lines(job.err), 1u) << job.err;
  EXPECT_NE(job.err.find("the job-level compare (directories) does not use --warmup, --alpha, "
                         "--gate-range"),
            std::string::npos)
      << job.err;
  EXPECT_EQ(job.out, "");
  // What it uses still runs.
  const CliResult used = RunGpuroof({"compare", (dir / "base").string(), (dir / "cur").string(),
                                     "--threshold", "1.5", "--quiet"});
  EXPECT_NE(used.exit_code, 2) << used.err;
}

// A job whose current run lacks a rank (the one that crashed or hung, often the slow one) is not
// compared on the rest: exit 2, naming the missing rank.
TEST(CompareInputsCli, AJobMissingARankIsNotCompared) {
  TempDir dir;
  WriteKinetoJob(dir / "base");
  WriteKinetoJob(dir / "cur");
  std::filesystem::remove(dir / "cur" / "worker_1.pt.trace.json");  // rank 2
  const CliResult r =
      RunGpuroof({"compare", (dir / "base").string(), (dir / "cur").string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_NE(r.err.find((dir / "cur").string() + ": lacks rank(s) 2 that the other run has"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("verdict: PASS"), std::string::npos) << r.out;
  // Both runs profiled the same subset of the job: compared, and said.
  std::filesystem::remove(dir / "base" / "worker_1.pt.trace.json");
  const CliResult subset =
      RunGpuroof({"compare", (dir / "base").string(), (dir / "cur").string(), "--quiet"});
  EXPECT_NE(subset.exit_code, 2) << subset.err;
  EXPECT_NE(subset.out.find("note: both runs hold the same 3 of the world size's 4 ranks"),
            std::string::npos)
      << subset.out;
}

// s34: what compare's input errors name. A positional BASE with --history was called
// "--baseline"; a job side of only broken traces was labelled "ranks:" after one warning per
// trace; a JSON object that is no run summary was taken for a history without shared metrics.
TEST(CompareInputsCli, InputErrorsNameWhatTheUserGave) {
  TempDir dir;
  const auto run = WriteRun(dir, "run", 1);
  const auto other = WriteRun(dir, "other", 2);
  const CliResult both = RunGpuroof({"compare", run.string(), other.string(), "--history", "fifo"});
  EXPECT_EQ(both.exit_code, 2) << both.err;
  EXPECT_NE(both.err.find("--history: give a baseline (BASE or --baseline) or --history, not "
                          "both: '" +
                          run.string() + "' was given as BASE"),
            std::string::npos)
      << both.err;
  // One positional profile with --history: said how to give it (it was "give either BASE
  // CURRENT or --baseline B... --current C...", which does not name --current).
  WriteFile(dir / "h.jsonl", "");
  const CliResult one =
      RunGpuroof({"compare", "--history", (dir / "h.jsonl").string(), run.string()});
  EXPECT_EQ(one.exit_code, 2) << one.err;
  EXPECT_NE(one.err.find("compare: with --history, give the current profile as --current " +
                         run.string() + ", not as a positional profile"),
            std::string::npos)
      << one.err;

  WriteKinetoJob(dir / "job");
  std::filesystem::create_directories(dir / "baddir");
  WriteFile(dir / "baddir" / "a.pt.trace.json", R"({"traceEvents": [{"ph": "X", )");
  WriteFile(dir / "baddir" / "b.pt.trace.json", R"({"traceEvents": [)");
  const CliResult bad = RunGpuroof(
      {"compare", "--baseline", (dir / "job").string(), "--current", (dir / "baddir").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("gpuroof: error: --current " + (dir / "baddir").string() +
                         ": none of the 2 traces could be analysed (first: "),
            std::string::npos)
      << bad.err;
  EXPECT_EQ(bad.err.find("not analysed"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.err.find("ranks:"), std::string::npos) << bad.err;

  WriteFile(dir / "foo.json", R"({"foo": [1, 2, 3]})");
  const CliResult foo =
      RunGpuroof({"compare", "--history", (dir / "foo.json").string(), "--current", run.string()});
  EXPECT_EQ(foo.exit_code, 2) << foo.err;
  EXPECT_EQ(Lines(foo.err), 1u) << foo.err;
  EXPECT_NE(foo.err.find((dir / "foo.json").string() +
                         ":1: not a gpuroof run summary (no 'metrics' key)"),
            std::string::npos)
      << foo.err;
}

// Runs of two GPU models in one --history-append seeding call would make every later compare of
// the history exit 2: refused, nothing written.
TEST(CompareInputsCli, SeedingAHistoryWithTwoGpuModelsIsRefused) {
  TempDir dir;
  const auto h200 = WriteRun(dir, "h200", 1, "NVIDIA H200");
  const auto a100 = WriteRun(dir, "a100", 2, "NVIDIA A100");
  const std::string history = (dir / "h.jsonl").string();
  const CliResult r = RunGpuroof({"compare", "--current", h200.string(), a100.string(),
                                  "--history-append", history, "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(a100.string() + ": not appended to " + history +
                       ": another run given with it was measured with the GPU model 'NVIDIA "
                       "H200', this run with 'NVIDIA A100'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(history));
}

// Records the reader had to skip are said in the JSON a CI job reads and in the verdict, not on
// stderr only.
TEST(CompareInputsCli, SkippedRecordsAreInTheJsonAndTheVerdict) {
  TempDir dir;
  const auto base = WriteRun(dir, "base", 1);
  const auto cur = dir / "cur.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "NVIDIA TestGPU"
repeat 20 step=1ms {
  nvtx start=0 end=900us text="step"
  api start=10us end=20us corr=1+i
  kernel start=100us end=400us corr=1+i name=gemm grid=256 block=128
}
kernel start=30ms end=29ms name=gemm grid=256 block=128
)desc",
                                    "cur", cur);
  const std::string json = (dir / "r.json").string();
  const CliResult r =
      RunGpuroof({"compare", base.string(), cur.string(), "--json", json, "--quiet"});
  EXPECT_NE(r.exit_code, 2) << r.err;
  const std::string doc = ReadFile(json);
  EXPECT_NE(doc.find("DATA LOSS: read "), std::string::npos) << doc;
  EXPECT_NE(doc.find("skipped 1 (1 end before start"), std::string::npos) << doc;
  EXPECT_NE(r.out.find("DATA LOSS: " + cur.string()), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gpuroof::testing
