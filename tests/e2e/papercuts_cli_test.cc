// The papercuts a newcomer hits first (issue "One report model"): each has its test here.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_runner.h"

namespace gpuroof::testing {
namespace {

std::string Example() {
  return (SourceDir() / "examples" / "frame_pipeline.sqlite").string();
}

TEST(Papercuts, DashMeansStdoutForEveryFileOption) {
  CliResult r = RunGpuroof({"kernels", Example(), "-o", "-", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("device,kernel,engine,instances,", 0), 0u) << r.out;

  // compare: the JSON alone on stdout, the verdict table on stderr.
  CliResult json = RunGpuroof({"compare", Example(), Example(), "--json", "-"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out.rfind("{\n", 0), 0u) << json.out;
  EXPECT_NE(json.out.find("\"schema\": \"gpuroof.compare/1\""), std::string::npos);
  EXPECT_NE(json.err.find("PASS"), std::string::npos) << json.err;
  EXPECT_FALSE(std::filesystem::exists("-"));

  CliResult markdown = RunGpuroof({"compare", Example(), Example(), "--markdown", "-"});
  ASSERT_EQ(markdown.exit_code, 0) << markdown.err;
  EXPECT_NE(markdown.out.find("|"), std::string::npos) << markdown.out;
}

TEST(Papercuts, MistypedOptionsGetASuggestion) {
  CliResult r = RunGpuroof({"analyze", Example(), "--windw", "all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("(did you mean --window?)"), std::string::npos) << r.err;
  CliResult far = RunGpuroof({"analyze", Example(), "--zzzzzzzz"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_EQ(far.err.find("did you mean"), std::string::npos) << far.err;
}

// A --threads value that is no number says so (before: "Value abc not in range 0 to 64"); one
// out of range keeps the range's message. Both are usage errors: exit 2 and the --help tail.
TEST(Papercuts, ThreadsThatIsNoNumberSaysSo) {
  CliResult r = RunGpuroof({"analyze", Example(), "--threads", "abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--threads: 'abc' is not a whole number (0 to 64; 0 = automatic)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("(usage: gpuroof analyze --help)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("not in range"), std::string::npos) << r.err;
  CliResult high = RunGpuroof({"kernels", Example(), "--threads", "99"});
  EXPECT_EQ(high.exit_code, 2);
  EXPECT_NE(high.err.find("not in range 0 to 64"), std::string::npos) << high.err;
  EXPECT_EQ(RunGpuroof({"kernels", Example(), "--threads", "3", "-q"}).exit_code, 0);
}

// compare takes no --format: the error names the options that write its JSON and Markdown.
TEST(Papercuts, CompareFormatPointsToJsonAndMarkdown) {
  CliResult r = RunGpuroof({"compare", Example(), Example(), "--format", "json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--format (compare writes JSON with --json FILE and Markdown with "
                       "--markdown FILE) (usage: gpuroof compare --help)"),
            std::string::npos)
      << r.err;
}

TEST(Papercuts, FormatValuesAreCaseInsensitive) {
  CliResult r = RunGpuroof({"analyze", Example(), "--format", "CSV"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("device,", 0), 0u) << r.out;
}

TEST(Papercuts, UsageNamesGpuroofAndHelpNamesKinetoInputs) {
  for (const char* command : {"analyze", "kernels", "copies", "gaps", "ranges", "report"}) {
    CliResult r = RunGpuroof({command, "--help"});
    ASSERT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("Usage: gpuroof " + std::string(command)), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("Kineto JSON"), std::string::npos) << command << "\n" << r.out;
  }
}

// Without one value per use, --gate-range swallowed the traces after it.
// The traces stay positional, so the only complaint left is the missing --iteration-range.
TEST(Papercuts, GateRangeTakesOneValuePerUse) {
  CliResult r = RunGpuroof(
      {"compare", "--gate-range", "frame", "--gate-range", "copy", Example(), Example()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err,
            "gpuroof: error: --gate-range: needs --iteration-range: ranges are measured within "
            "iterations\n");
}

// `report` on a terminal would print an HTML page into it: refused, with what to do instead.
TEST(Papercuts, ReportRefusesToPrintHtmlToATerminal) {
  int master = -1;
  pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string binary = GPUROOF_BINARY;
    const std::string example = Example();
    execl(binary.c_str(), binary.c_str(), "report", example.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string seen;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(master, buffer, sizeof buffer)) > 0)
    seen.append(buffer, static_cast<size_t>(n));
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2) << seen;
  EXPECT_NE(seen.find("is a terminal"), std::string::npos) << seen;
  EXPECT_EQ(seen.find("<html"), std::string::npos) << seen;
  // With -o - it is printed anyway (here: not a terminal, so no refusal either way).
  CliResult r = RunGpuroof({"report", Example(), "-o", "-"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<html"), std::string::npos);
}

TEST(Papercuts, KernelUnitsByShortNameOrUniquePart) {
  CliResult part = RunGpuroof({"analyze", Example(), "--units-from", "kernel:process_fr"});
  ASSERT_EQ(part.exit_code, 0) << part.err;
  EXPECT_NE(part.out.find("2000 frames"), std::string::npos) << part.out;
  // A name not taken exactly is said, in the output and on stderr, with the kernel it meant.
  const std::string said =
      "kernel 'process_fr' taken as the one kernel whose name contains it: 'process_frame'";
  EXPECT_NE(part.out.find("note: " + said), std::string::npos) << part.out;
  EXPECT_NE(part.err.find(said), std::string::npos) << part.err;
  CliResult json =
      RunGpuroof({"analyze", Example(), "--units-from", "kernel:process_fr", "--format", "json"});
  EXPECT_NE(json.out.find(said), std::string::npos) << json.out;
  // An exact name needs no note.
  CliResult exact = RunGpuroof({"analyze", Example(), "--units-from", "kernel:process_frame"});
  EXPECT_EQ(exact.out.find("taken as"), std::string::npos) << exact.out;
  EXPECT_EQ(exact.out.find("matched by its base name"), std::string::npos) << exact.out;
  CliResult unknown = RunGpuroof({"analyze", Example(), "--units-from", "kernel:proces_frame2"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("no kernel named 'proces_frame2' (closest: 'process_frame')"),
            std::string::npos)
      << unknown.err;
}

TEST(Papercuts, AnalyzeCsvHasBytesAndTheLongFormLoadsTidy) {
  CliResult wide = RunGpuroof({"analyze", Example(), "--format", "csv"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  auto rows = ParseCsv(wide.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].at("H2D_bytes").empty());
  EXPECT_FALSE(rows[0].at("H2D_gbps").empty());

  CliResult tidy = RunGpuroof({"analyze", Example(), "--format", "csv-long"});
  ASSERT_EQ(tidy.exit_code, 0) << tidy.err;
  auto long_rows = ParseCsv(tidy.out);
  bool found_busy = false;
  for (const auto& row : long_rows) {
    EXPECT_EQ(row.size(), 11u);
    if (row.at("engine") == "H2D" && row.at("metric") == "bytes") {
      EXPECT_EQ(row.at("value"), rows[0].at("H2D_bytes"));
      EXPECT_EQ(row.at("unit"), "bytes");
    }
    if (row.at("engine") == "H2D" && row.at("metric") == "busy") {
      found_busy = true;
      // The wide CSV's ms and the long CSV's ns are the same figure.
      EXPECT_DOUBLE_EQ(std::stod(row.at("value")) / 1e6, std::stod(rows[0].at("H2D_busy_ms")));
      EXPECT_EQ(row.at("unit"), "ns");
    }
  }
  EXPECT_TRUE(found_busy) << tidy.out;
}

}  // namespace
}  // namespace gpuroof::testing
