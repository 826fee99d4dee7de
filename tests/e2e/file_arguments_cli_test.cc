// Nothing the user had is lost through an output option: not an input trace named as the output,
// not a device or a pipe given as the output file, not a link's target's permissions. A trace
// given twice is not taken for two runs or two ranks.
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_runner.h"

namespace gpuroof::testing {
namespace {

namespace fs = std::filesystem;

fs::path Example() {
  return SourceDir() / "examples" / "frame_pipeline.sqlite";
}

void ExpectRefusedAndInputIntact(const CliResult& r, const fs::path& input,
                                 const std::string& original) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("would overwrite "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_EQ(ReadFile(input), original) << "the input trace was changed";
}

TEST(OutputSafety, AnOutputThatIsAnInputTraceIsRefusedUnderAnySpelling) {
  TempDir dir;
  const fs::path trace = dir / "t.sqlite";
  fs::copy_file(Example(), trace);
  const std::string original = ReadFile(trace);
  fs::create_directory(dir / "sub");
  fs::create_hard_link(trace, dir / "hard.sqlite");
  fs::create_symlink(trace, dir / "link.sqlite");
  const std::string same = trace.string();
  const std::string dotdot = (dir / "sub" / ".." / "t.sqlite").string();
  const std::string hard = (dir / "hard.sqlite").string();
  const std::string link = (dir / "link.sqlite").string();

  ExpectRefusedAndInputIntact(RunGpuroof({"analyze", same, "-o", same}), trace, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"kernels", same, "-o", dotdot}), trace, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"findings", same, "--output", hard}), trace, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"report", same, "-o", link}), trace, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"compare", same, Example().string(), "--json", same}),
                              trace, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"compare", Example().string(), same, "--markdown", link}),
                              trace, original);
  ExpectRefusedAndInputIntact(
      RunGpuroof({"compare", "--baseline", Example().string(), "--current", same, "--html", hard}),
      trace, original);
  EXPECT_NE(RunGpuroof({"analyze", same, "-o", same})
                .err.find("--output would overwrite the input trace " + same),
            std::string::npos);
  // A trace read from an input directory.
  CliResult in_folder = RunGpuroof({"ranks", dir.path().string(), "-o", same});
  ExpectRefusedAndInputIntact(in_folder, trace, original);
  EXPECT_NE(in_folder.err.find("a trace in the input directory " + dir.path().string()),
            std::string::npos)
      << in_folder.err;
}

// A .nsys-rep is read through its <stem>.sqlite export: an output there would destroy the data
// just read (and an export that may not be made again without nsys), whatever the command.
TEST(OutputSafety, AnOutputOverTheExportOfAnNsysReportIsRefused) {
  TempDir dir;
  const fs::path exported = dir / "run.sqlite";
  fs::copy_file(Example(), exported);
  const fs::path report = dir / "run.nsys-rep";
  WriteFile(report, "a report");
  // The export is newer than the report: it is what is read, no nsys needed.
  fs::last_write_time(report, fs::last_write_time(exported) - std::chrono::hours(2));
  const std::string original = ReadFile(exported);
  const std::string rep = report.string();
  const std::string out = exported.string();
  const std::string dotdot = (dir / "sub" / ".." / "run.sqlite").string();
  fs::create_directory(dir / "sub");
  ExpectRefusedAndInputIntact(RunGpuroof({"analyze", rep, "-o", out}), exported, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"kernels", rep, "-o", dotdot}), exported, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"findings", rep, "--output", out}), exported, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"report", rep, "-o", out}), exported, original);
  ExpectRefusedAndInputIntact(RunGpuroof({"compare", rep, Example().string(), "--json", out}),
                              exported, original);
  CliResult r = RunGpuroof({"analyze", rep, "-o", out});
  EXPECT_NE(r.err.find("--output would overwrite the export " + out + " of the nsys report " + rep),
            std::string::npos)
      << r.err;
  // Not yet exported: the output would still take the place the export is about to be made in.
  fs::remove(exported);
  CliResult fresh = RunGpuroof({"analyze", rep, "-o", out});
  EXPECT_EQ(fresh.exit_code, 2) << fresh.err;
  EXPECT_NE(fresh.err.find("would overwrite the export"), std::string::npos) << fresh.err;
  EXPECT_FALSE(fs::exists(exported));
}

// A report found in an input directory with no export yet: the export is made where the output
// would go, and the output would then replace it (every later run failing on a JSON file named
// .sqlite). Refused up front, as for a report given directly (ranks, compare's job mode).
TEST(OutputSafety, AnOutputOverTheExportOfAReportInAnInputDirectoryIsRefused) {
  TempDir dir;
  fs::create_directory(dir / "job");
  fs::create_directory(dir / "other");
  WriteFile(dir / "job" / "r1.nsys-rep", "a report");
  fs::copy_file(Example(), dir / "other" / "r1.sqlite");
  const fs::path out = dir / "job" / "r1.sqlite";
  const std::string job = (dir / "job").string();
  for (const CliResult& r :
       {RunGpuroof({"ranks", job, "-o", out.string()}),
        RunGpuroof({"compare", (dir / "other").string(), job, "-o", out.string()}),
        RunGpuroof({"compare", "--baseline", job, "--current", (dir / "other").string(), "-o",
                    out.string()})}) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(out.string() + ": --output would overwrite a trace in the "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("directory " + job + "; choose another file"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  // The .qdrep of older nsys pairs the same way.
  fs::rename(dir / "job" / "r1.nsys-rep", dir / "job" / "r1.qdrep");
  CliResult old = RunGpuroof({"ranks", job, "-o", out.string()});
  EXPECT_EQ(old.exit_code, 2) << old.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(OutputSafety, AnOutputBesideTheInputsIsWritten) {
  TempDir dir;
  const fs::path trace = dir / "t.sqlite";
  fs::copy_file(Example(), trace);
  // A new file in an input directory, and an existing non-trace file there, are outputs.
  WriteFile(dir / "notes.txt", "old notes\n");
  CliResult r = RunGpuroof({"ranks", dir.path().string(), "-o", (dir / "notes.txt").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(ReadFile(dir / "notes.txt"), "old notes\n");
  CliResult beside = RunGpuroof({"analyze", trace.string(), "-o", (dir / "t.txt").string()});
  EXPECT_EQ(beside.exit_code, 0) << beside.err;
  EXPECT_TRUE(fs::is_regular_file(dir / "t.txt"));
}

// Two output options naming one file: the later would replace the earlier without a word. A
// history or an env stamp the command reads is an input like a trace; --history-append may
// still name the --history file, which is what it is for.
TEST(OutputSafety, TwoOutputsInOneFileAndOutputsOverOtherInputsAreRefused) {
  TempDir dir;
  const std::string trace = Example().string();
  const std::string out = (dir / "out.json").string();
  const std::string out_again = (dir / "sub" / ".." / "out.json").string();
  fs::create_directory(dir / "sub");
  auto expect_refused = [](const CliResult& r, const std::string& said) {
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  };
  expect_refused(RunGpuroof({"compare", trace, trace, "--json", out, "--markdown", out_again}),
                 "--json and --markdown name the same file; each output needs its own");
  expect_refused(RunGpuroof({"compare", trace, trace, "--json", out, "-o", out}),
                 "name the same file");
  EXPECT_FALSE(fs::exists(out)) << "nothing is written when refused";
  CliResult empty = RunGpuroof({"analyze", trace, "-o", ""});
  EXPECT_EQ(empty.exit_code, 2) << empty.err;
  EXPECT_EQ(empty.err,
            "gpuroof: error: --output: an empty file name; give a file, or '-' for stdout\n");
  EXPECT_EQ(empty.out, "");
  CliResult two_on_stdout = RunGpuroof({"compare", trace, trace, "--json", "-", "--markdown", "-"});
  expect_refused(two_on_stdout,
                 "--json and --markdown both write to stdout; give one of them a file");
  EXPECT_EQ(two_on_stdout.out, "");

  // A history built by appending one run; it must survive every refused spelling.
  const std::string history = (dir / "runs.jsonl").string();
  ASSERT_EQ(
      RunGpuroof({"compare", "--current", trace, "--history-append", history, "-q"}).exit_code, 0);
  const std::string kept = ReadFile(history);
  ASSERT_FALSE(kept.empty());
  expect_refused(
      RunGpuroof({"compare", "--current", trace, "--history-append", history, "-o", history}),
      "name the same file");
  expect_refused(RunGpuroof({"compare", "--current", trace, "--history", history, "-o", history}),
                 "--output would overwrite the --history file " + history);
  expect_refused(RunGpuroof({"compare", "--current", trace, "--history", history,
                             "--history-append", history, "--json", history}),
                 "would overwrite the --history file");
  EXPECT_EQ(ReadFile(history), kept) << "the history was changed";
  // Gated against the history and appended to it: still the intended use. The line is made
  // another run's (its trace hash): the same trace again is refused as a run appended twice.
  std::string other_run = kept;
  const size_t hash = other_run.find("\"trace_sha256\": \"");
  ASSERT_NE(hash, std::string::npos) << other_run;
  other_run.replace(hash + 17, 64, std::string(64, '0'));
  WriteFile(history, other_run);
  CliResult gated = RunGpuroof(
      {"compare", "--current", trace, "--history", history, "--history-append", history, "-q"});
  EXPECT_NE(gated.exit_code, 2) << gated.err;
  EXPECT_GT(ReadFile(history).size(), kept.size());

  // report's --env stamp.
  const std::string env = (dir / "env.json").string();
  WriteFile(env, "{}\n");
  expect_refused(RunGpuroof({"report", trace, "--env", env, "-o", env}),
                 "--output would overwrite the --env file " + env);
  EXPECT_EQ(ReadFile(env), "{}\n");
}

TEST(OutputSafety, AMissingOutputFolderIsFoundBeforeTheAnalysis) {
  TempDir dir;
  const std::string missing = (dir / "no_such_folder" / "out.csv").string();
  CliResult r = RunGpuroof({"analyze", Example().string(), "-o", missing});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gpuroof: error: " + missing + ": cannot create output: the folder " +
                       (dir / "no_such_folder").string() + " does not exist\n");
}

TEST(OutputSafety, AnErrorAboutAFileWithALineBreakInItsNameIsOneLine) {
  TempDir dir;
  const std::string odd = (dir / "two\nlines.sqlite").string();
  CliResult r = RunGpuroof({"analyze", odd});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("two\\nlines.sqlite"), std::string::npos) << r.err;
}

TEST(OutputSafety, ANanThresholdIsRefused) {
  CliResult r = RunGpuroof({"findings", Example().string(), "--min-cost-pct", "NaN"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--min-cost-pct: not a number: NaN"), std::string::npos) << r.err;
}

// An input is read more than once (its format from the first bytes, then the reader), so a
// pipe or FIFO is refused by its type before it is opened: a FIFO without a writer would block
// the open forever, and `<(gunzip -c t.json.gz)` would reach the reader with its head cut off.
TEST(OutputSafety, ATraceThatIsAFifoIsRefusedBeforeItIsOpened) {
  TempDir dir;
  const fs::path fifo = dir / "trace.sqlite";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  CliResult r = RunGpuroof({"analyze", fifo.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "gpuroof: error: " + fifo.string() +
                       ": is not a regular file (a pipe, FIFO or device?): a trace is read more "
                       "than once; save it to a file first\n");
}

TEST(OutputSafety, AFifoIsWrittenThroughNotReplaced) {
  TempDir dir;
  const fs::path fifo = dir / "out.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  // The reader opens without blocking, so gpuroof's open for writing finds it; it stops at the
  // end of what was written, or after 60 s if nothing comes (a failing run, not a hang).
  const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  std::string received;
  std::thread reader([&] {
    bool got = false;
    for (int waited_ms = 0; waited_ms < 60000;) {
      pollfd p{fd, POLLIN, 0};
      if (poll(&p, 1, 50) == 0) {
        waited_ms += 50;
        continue;
      }
      char buffer[4096];
      const ssize_t n = read(fd, buffer, sizeof buffer);
      if (n > 0) {
        received.append(buffer, static_cast<size_t>(n));
        got = true;
      } else if (got) {
        break;  // the writer closed after writing
      } else {
        usleep(50000);  // no writer yet
        waited_ms += 50;
      }
    }
  });
  CliResult r = RunGpuroof({"analyze", Example().string(), "-o", fifo.string()});
  reader.join();
  close(fd);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  struct stat after {};
  ASSERT_EQ(lstat(fifo.c_str(), &after), 0);
  EXPECT_TRUE(S_ISFIFO(after.st_mode)) << "the FIFO was replaced by a file";
  EXPECT_NE(received.find("bottleneck: H2D"), std::string::npos) << received;
}

TEST(OutputSafety, DevStdoutRedirectedToAFileGetsBothDocuments) {
  // `--json /dev/stdout > out.txt`: the JSON goes through the shell's descriptor, then the table;
  // resolving /dev/stdout to out.txt and renaming over it lost the table, a new open wrote over.
  TempDir dir;
  const fs::path out = dir / "out.txt";
  const std::string example = Example().string();
  CliResult r = RunProgram({"sh", "-c",
                            std::string("'") + GPUROOF_BINARY + "' compare '" + example + "' '" +
                                example + "' --json /dev/stdout > '" + out.string() + "'"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = ReadFile(out);
  EXPECT_EQ(text.rfind("{\n", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find("\"schema\": \"gpuroof.compare/1\""), std::string::npos);
  EXPECT_NE(text.find("result: PASS"), std::string::npos) << text;
}

TEST(OutputSafety, ALinkedOutputReplacesItsTargetAndKeepsItsPermissions) {
  TempDir dir;
  const fs::path target = dir / "result.txt";
  WriteFile(target, "earlier result\n");
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  fs::create_symlink(target, dir / "latest.txt");
  CliResult r = RunGpuroof({"analyze", Example().string(), "-o", (dir / "latest.txt").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "latest.txt")) << "the link was replaced by a file";
  EXPECT_NE(ReadFile(target).find("bottleneck: H2D"), std::string::npos);
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST(OutputSafety, AUsageErrorIsOneLine) {
  CliResult r = RunGpuroof({"analyze", Example().string(), "--windw", "all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("gpuroof analyze --help"), std::string::npos) << r.err;
}

TEST(RepeatedInputs, CompareAndRanksRefuseATraceGivenTwice) {
  TempDir dir;
  const fs::path trace = dir / "t.sqlite";
  fs::copy_file(Example(), trace);
  fs::create_hard_link(trace, dir / "hard.sqlite");
  const std::string same = trace.string();
  const std::string hard = (dir / "hard.sqlite").string();
  const std::string other = Example().string();

  CliResult ranks = RunGpuroof({"ranks", same, other, same});
  EXPECT_EQ(ranks.exit_code, 2) << ranks.out;
  EXPECT_EQ(ranks.err, "gpuroof: error: " + same +
                           ": is given twice: each trace is one run (or rank); give it once\n");
  // One side of a set-of-runs compare: two copies would pass for two runs with no noise.
  CliResult sides = RunGpuroof({"compare", "--baseline", same, hard, "--current", other});
  EXPECT_EQ(sides.exit_code, 2) << sides.out;
  EXPECT_NE(sides.err.find(hard + ": is the same file as " + same), std::string::npos) << sides.err;
  // The two profiles of a two-sided compare may be one file: an A/A check.
  CliResult same_pair = RunGpuroof({"compare", same, hard});
  EXPECT_EQ(same_pair.exit_code, 0) << same_pair.err;
}

TEST(RepeatedInputs, OtherCommandsShowItTwiceAndSaySo) {
  const std::string trace = Example().string();
  CliResult r = RunGpuroof({"kernels", trace, trace, "--format", "csv"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("gpuroof: warning: " + trace +
                       ": is given twice; it is read and shown "
                       "twice"),
            std::string::npos)
      << r.err;
  CliResult quiet = RunGpuroof({"kernels", trace, trace, "--format", "csv", "-q"});
  EXPECT_EQ(quiet.err.find("given twice"), std::string::npos) << quiet.err;
}

}  // namespace
}  // namespace gpuroof::testing
