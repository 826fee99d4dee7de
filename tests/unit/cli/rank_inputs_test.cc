// The rule that tells a file found in a rank directory: every real Kineto trace in the shared
// fixtures, plain and gzip, is a trace; JSON documents without a top-level traceEvents key are
// not, whatever their values hold; files whose bytes cannot be told go by their name.
#include "rank_inputs.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/readers/gzip_input.h"

namespace gpuroof {
namespace {

namespace fs = std::filesystem;

class TempFolder {
 public:
  TempFolder()
      : path_(fs::temp_directory_path() /
              ("gpuroof_rank_inputs_" + std::to_string(::getpid()) + "_" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name())) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  fs::path Write(const std::string& name, const std::string& content) const {
    std::ofstream(path_ / name, std::ios::binary) << content;
    return path_ / name;
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(RankInputs, EveryKinetoFixtureIsATracePlainAndGzip) {
  const fs::path fixtures = fs::path(GPUROOF_SHARED_FIXTURES_DIR) / "kineto";
  // CI has ../shared beside the clone; elsewhere the test says loudly that it did not run.
  if (!fs::is_directory(fixtures)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared Kineto fixtures not found at " << fixtures;
  }
  TempFolder folder;
  int traces = 0;
  for (const fs::directory_entry& entry : fs::directory_iterator(fixtures)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    ++traces;
    EXPECT_EQ(TellFoundFile(entry.path()), FoundFile::kTrace) << name;
    // Inflated, as a plain .json.
    std::unique_ptr<ByteSource> input = OpenByteSource(entry.path());
    std::string plain;
    char buffer[1 << 16];
    for (size_t n; (n = input->Read(buffer, sizeof buffer)) > 0;)
      plain.append(buffer, n);
    const fs::path inflated = folder.Write(name.substr(0, name.size() - 3), plain);
    EXPECT_EQ(TellFoundFile(inflated), FoundFile::kTrace) << inflated;
    fs::remove(inflated);
  }
  EXPECT_GE(traces, 6);
  // The fixtures' own metrics file is JSON and no trace.
  EXPECT_EQ(TellFoundFile(fixtures / "reference_metrics.json"), FoundFile::kJsonNotTrace);
}

TEST(RankInputs, JsonWithoutATopLevelTraceEventsKeyIsNoTrace) {
  TempFolder folder;
  EXPECT_EQ(TellFoundFile(folder.Write("env.json", R"({"gpu": "A100"})")),
            FoundFile::kJsonNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write(
                "own.json", "\xEF\xBB\xBF {\"schema\": \"gpuroof.ranks/1\", \"ranks\": []}\n")),
            FoundFile::kJsonNotTrace);
  // The key inside a string, an escaped quote or a nested object is not at the top level.
  EXPECT_EQ(TellFoundFile(folder.Write(
                "tricky.json",
                R"({"a": "\"traceEvents\": [", "b": {"traceEvents": []}, "c": [{"}": "]"}]})")),
            FoundFile::kJsonNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("empty.json", "{}")), FoundFile::kJsonNotTrace);
}

// Any other complete JSON value is no trace either, and left out the same way (not a damaged
// rank): a loss history, a status string, a number, a list of lists.
TEST(RankInputs, ACompleteJsonValueThatIsNoTraceIsLeftOut) {
  TempFolder folder;
  EXPECT_EQ(TellFoundFile(folder.Write("loss_history.json", "[2.31, 2.17, -2.05e-3]\n")),
            FoundFile::kJsonNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("status.json", "\"done \\\"ok\\\" \\u00e9\"\n")),
            FoundFile::kJsonNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("n.json", " 0 ")), FoundFile::kJsonNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("flags.json", "\xEF\xBB\xBF[true, false, null]")),
            FoundFile::kJsonNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("nested.json", R"([[1, {"a": [2, {}]}], [], "x"])")),
            FoundFile::kJsonNotTrace);
  // "[1, 2]", gzipped.
  const std::string gzipped(
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\x8b\x36\xd4\x51\x30\x8a\x05\x00\xff\xe7\xc9\x61"
      "\x06\x00\x00\x00",
      26);
  EXPECT_EQ(TellFoundFile(folder.Write("list.json.gz", gzipped)), FoundFile::kJsonNotTrace);
  // In a job directory beside a trace: counted as no trace, the trace alone is a rank.
  const fs::path job = folder.path() / "job";
  fs::create_directories(job);
  std::ofstream(job / "r0.json") << R"({"traceEvents": []})";
  std::ofstream(job / "loss_history.json") << "[1, 2]";
  std::ofstream(job / "status.json") << "\"x\"";
  const RankInputs inputs = FindRankInputs({job.string()});
  EXPECT_EQ(inputs.paths.size(), 1u);
  EXPECT_EQ(inputs.json_not_traces, 2u);
}

TEST(RankInputs, AnythingThatMayBeATraceIsOne) {
  TempFolder folder;
  EXPECT_EQ(TellFoundFile(folder.Write("t.json", R"({"x": [1, {"y": 2}], "traceEvents": []})")),
            FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("bare.json", R"([{"ph": "X"}])")), FoundFile::kTrace);
  // Truncated before the object ends, or the key written with an escape: the reader decides.
  EXPECT_EQ(TellFoundFile(folder.Write("cut.json", R"({"schemaVersion": 1, "deviceProp)")),
            FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("esc.json", R"({"trace\u0045vents": []})")),
            FoundFile::kTrace);
  // Bytes that cannot be told: a trace's name makes it a trace, any other name leaves it out.
  const std::string bad_gzip("\x1f\x8b\x08\x00garbagegarbage", 18);
  EXPECT_EQ(TellFoundFile(folder.Write("r.json.gz", bad_gzip)), FoundFile::kTrace);
  std::string problem;
  EXPECT_EQ(TellFoundFile(folder.Write("junk.bin", bad_gzip), &problem), FoundFile::kUnreadable);
  EXPECT_NE(problem.find("junk.bin: "), std::string::npos) << problem;
  EXPECT_EQ(TellFoundFile(folder.Write("blank.txt", "  \n  ")), FoundFile::kUnreadable);
  EXPECT_EQ(TellFoundFile(folder.Write("README.txt", "hello\n")), FoundFile::kNotTrace);
  // Content that starts like no trace under a trace's name: a damaged rank, not "no trace".
  EXPECT_EQ(TellFoundFile(folder.Write("r2.json", "garbage\n")), FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("r3.sqlite", "not a database\n")), FoundFile::kTrace);
  // A JSON value cut short, or JSON-like garbage, under a trace's name: damaged too.
  EXPECT_EQ(TellFoundFile(folder.Write("cut_list.json", "[1, 2")), FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("cut_string.json", "\"don")), FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("two.json", "[1] [2]")), FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("bad_number.json", "[1, 02]")), FoundFile::kTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("bad_key.json", "[{\"a\" 1}, 2]")), FoundFile::kTrace);
  // A sweep file beside the traces starts with '[' but holds no events: no trace.
  EXPECT_EQ(TellFoundFile(folder.Write("sweep.toml", "[grid]\nstreams = [1, 2]\n")),
            FoundFile::kNotTrace);
  EXPECT_EQ(TellFoundFile(folder.Write("spaced.json", "[ \n {\"ph\": \"X\"}]")), FoundFile::kTrace);
}

// An .nsys-rep beside its .sqlite export is read through that export; `analyze` would export
// the report again when the export is older, so ranks counts those and names the first.
TEST(RankInputs, AnExportOlderThanItsReportIsCounted) {
  TempFolder folder;
  const std::string sqlite_header("SQLite format 3\0", 16);
  const fs::path old_export = folder.Write("r1.sqlite", sqlite_header);
  const fs::path report = folder.Write("r1.nsys-rep", "report");
  folder.Write("r2.sqlite", sqlite_header);
  const fs::path fresh_report = folder.Write("r2.nsys-rep", "report");
  fs::last_write_time(old_export, fs::last_write_time(report) - std::chrono::hours(1));
  fs::last_write_time(fresh_report, fs::last_write_time(report) - std::chrono::hours(2));
  const RankInputs inputs = FindRankInputs({folder.path().string()});
  EXPECT_EQ(inputs.exported_twice, 2u);
  EXPECT_EQ(inputs.older_exports, 1u);
  EXPECT_EQ(inputs.first_older_export, old_export.string());
}

// The readers' naming rule: a .qdrep (older nsys) pairs with its export as a .nsys-rep does.
TEST(RankInputs, AQdrepPairsWithItsExport) {
  TempFolder folder;
  const fs::path exported = folder.Write("r3.sqlite", std::string("SQLite format 3\0", 16));
  const fs::path report = folder.Write("r3.qdrep", "report");
  fs::last_write_time(report, fs::last_write_time(exported) - std::chrono::hours(1));
  const RankInputs inputs = FindRankInputs({folder.path().string()});
  EXPECT_EQ(inputs.exported_twice, 1u);
  ASSERT_EQ(inputs.paths.size(), 1u);
  EXPECT_EQ(inputs.paths[0], exported.string());
}

}  // namespace
}  // namespace gpuroof
