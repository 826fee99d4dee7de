#include "gpuroof/analyses/regression/history_append.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {
namespace {

// A line of the file `hist.jsonl` (line number `line`, 0: a run of this call) of run `path`.
HistoryEntry Line(size_t line, std::string path, std::string sha, double iteration_ns) {
  HistoryEntry entry;
  entry.device = "GPU X";
  entry.has_device = true;
  entry.device_count = 1;
  entry.has_device_count = true;
  entry.rules = kHistoryRules;
  entry.has_iteration_range = true;
  entry.kernel_key = "launch";
  entry.has_kernel_key = true;
  entry.medians = {{"iteration", iteration_ns}, {"idle:0", 5}};
  entry.trace_sha256 = std::move(sha);
  entry.path = std::move(path);
  entry.line = line;
  return entry;
}

const std::string kSha1(64, 'a');
const std::string kSha2(64, 'b');

// The message the refusal gives ("" when none is thrown).
std::string Refusal(const std::vector<HistoryEntry>& history, const HistoryEntry& entry,
                    bool names_trace = false) {
  try {
    CheckNotAppended(history, entry, "hist.jsonl", entry.path,
                     [&](const HistoryEntry&) { return names_trace; });
  } catch (const InputError& e) {
    return e.what();
  }
  return {};
}

TEST(HistoryAppendTest, RunStemDropsEveryTraceSuffix) {
  EXPECT_EQ(RunStem("/d/run7.json.gz"), "run7");
  EXPECT_EQ(RunStem("run7.json"), "run7");
  EXPECT_EQ(RunStem("a/run7.nsys-rep"), "run7");
  EXPECT_EQ(RunStem("run7.sqlite"), "run7");
  EXPECT_EQ(RunStem("run7.qdrep"), "run7");
  // Only trace suffixes: a dotted run name keeps its other parts.
  EXPECT_EQ(RunStem("run.v2.sqlite"), "run.v2");
}

TEST(HistoryAppendTest, TheSameTraceBytesAreRefusedNamingTheLine) {
  const std::vector<HistoryEntry> history = {Line(1, "a.sqlite", kSha1, 10),
                                             Line(2, "b.sqlite", kSha2, 11)};
  // Another name, other summaries: the hash decides.
  const std::string message = Refusal(history, Line(0, "copy.sqlite", kSha2, 99));
  EXPECT_NE(message.find("copy.sqlite"), std::string::npos) << message;
  EXPECT_NE(message.find("its line 2 already holds this run"), std::string::npos) << message;
  EXPECT_NE(message.find("SHA-256 bbbbbbbbbbbb"), std::string::npos) << message;
}

TEST(HistoryAppendTest, ARunOfTheSameCallWithTheSameBytesIsRefused) {
  const std::vector<HistoryEntry> history = {Line(0, "a.sqlite", kSha1, 10)};
  const std::string message = Refusal(history, Line(0, "again.sqlite", kSha1, 10));
  EXPECT_NE(message.find("another run given with it already holds this run"), std::string::npos)
      << message;
}

TEST(HistoryAppendTest, AHashlessLineIsThisRunOnlyWhenItNamesTheTraceWithItsSummaries) {
  const std::vector<HistoryEntry> history = {Line(3, "a.sqlite", "", 10)};
  // Same summaries, the line names the trace: refused, the line to remove named.
  const std::string message = Refusal(history, Line(0, "a.sqlite", kSha1, 10), true);
  EXPECT_NE(message.find("its line 3 already holds this run"), std::string::npos) << message;
  EXPECT_NE(message.find("remove line 3 from hist.jsonl"), std::string::npos) << message;
  // Same summaries, another trace: appended.
  EXPECT_EQ(Refusal(history, Line(0, "a.sqlite", kSha1, 10), false), "");
  // Names the trace, other summaries: another run of that path, appended.
  EXPECT_EQ(Refusal(history, Line(0, "a.sqlite", kSha1, 10.5), true), "");
}

TEST(HistoryAppendTest, OnlyComparedMediansUnderTheSameRulesMakeTheSameSummaries) {
  std::vector<HistoryEntry> history = {Line(4, "a.sqlite", "", 10)};
  HistoryEntry entry = Line(0, "a.sqlite", kSha1, 10);
  // GPU idle is for reports only: another idle is still the same summaries.
  entry.medians["idle:0"] = 6;
  EXPECT_NE(Refusal(history, entry, true), "");
  // Under earlier rules the line is another measurement.
  history[0].rules = kHistoryRules - 1;
  EXPECT_EQ(Refusal(history, entry, true), "");
}

TEST(HistoryAppendTest, AnotherFileOfTheSameRunIsAWarningNotARefusal) {
  const std::vector<HistoryEntry> history = {Line(5, "/ci/run7.json.gz", kSha1, 10)};
  const HistoryEntry entry = Line(0, "run7.json", kSha2, 10);
  std::string warning;
  EXPECT_NO_THROW(warning = CheckNotAppended(history, entry, "hist.jsonl", entry.path,
                                             [](const HistoryEntry&) { return false; }));
  EXPECT_NE(warning.find("run7.json: appended to hist.jsonl, whose line 5 holds the same run "
                         "summaries"),
            std::string::npos)
      << warning;
  // Another name: no warning (two runs can share medians).
  const HistoryEntry other = Line(0, "run8.json", kSha2, 10);
  EXPECT_EQ(CheckNotAppended(history, other, "hist.jsonl", other.path,
                             [](const HistoryEntry&) { return false; }),
            "");
  // Summaries without an iteration or a kernel are too few to suspect a copy.
  std::vector<HistoryEntry> busy_only = history;
  busy_only[0].medians = {{"busy:0:kernel", 10}};
  HistoryEntry busy_entry = entry;
  busy_entry.medians = {{"busy:0:kernel", 10}};
  EXPECT_EQ(CheckNotAppended(busy_only, busy_entry, "hist.jsonl", entry.path,
                             [](const HistoryEntry&) { return false; }),
            "");
}

TEST(HistoryAppendTest, AnotherFileOfTheSameRunInTheSameCallIsSaid) {
  const std::vector<HistoryEntry> history = {Line(0, "run7.json.gz", kSha1, 10)};
  const HistoryEntry entry = Line(0, "run7.json", kSha2, 10);
  const std::string warning = CheckNotAppended(history, entry, "hist.jsonl", entry.path,
                                               [](const HistoryEntry&) { return false; });
  EXPECT_NE(warning.find("as another trace given with it holds"), std::string::npos) << warning;
}

TEST(HistoryAppendTest, ALineOfAnotherKindIsRefusedNamingWhatDiffers) {
  std::vector<HistoryEntry> history = {Line(1, "a.sqlite", kSha1, 10),
                                       Line(2, "b.sqlite", kSha2, 10)};
  history[1].device = "GPU Y";
  HistoryEntry entry = Line(0, "c.sqlite", std::string(64, 'c'), 12);
  try {
    CheckAppendable(history, entry, "hist.jsonl", "c.sqlite");
    FAIL() << "another GPU model was appended";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("(last: line 2) were measured with the GPU model 'GPU Y', this run "
                           "with 'GPU X'"),
              std::string::npos)
        << message;
  }
  // The last line that records each setting decides: a line without one is not checked.
  history[1].has_device = false;
  EXPECT_NO_THROW(CheckAppendable(history, entry, "hist.jsonl", "c.sqlite"));
  // A run of the same call with another kernel key.
  std::vector<HistoryEntry> in_call = {Line(0, "a.sqlite", kSha1, 10)};
  in_call[0].kernel_key = "name";
  try {
    CheckAppendable(in_call, entry, "hist.jsonl", "c.sqlite");
    FAIL() << "another kernel key was appended";
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("another run given with it was measured with --kernel-key 'name', "
                           "this run with 'launch'"),
              std::string::npos)
        << message;
  }
}

}  // namespace
}  // namespace gpuroof
