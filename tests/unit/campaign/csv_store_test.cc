// probes.csv-style keyed files: parsing, keyed replacement, refusal to clobber, and no lost rows
// with concurrent writers.
#include "gpuroof/campaign/csv_store.h"

#include <thread>

#include <gtest/gtest.h>

#include "gpuroof/campaign/campaign_session.h"
#include "gpuroof/model/errors.h"

#include "campaign/fake_system.h"

namespace gpuroof {
namespace {

const std::vector<std::string> kHeader = {"key", "device", "value"};

TEST(CsvStore, ParsesQuotedFields) {
  CsvTable table = ParseCsv("a,b\n\"x,1\",\"say \"\"hi\"\"\nthere\"\n,\n", "t.csv");
  EXPECT_EQ(table.header, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"x,1", "say \"hi\"\nthere"}));
  EXPECT_EQ(table.rows[1], (std::vector<std::string>{"", ""}));
  EXPECT_EQ(table.Column("b"), 1);
  EXPECT_EQ(table.Column("c"), -1);
}

// A reader that needs several columns gets them all, in the order it names them, or none.
TEST(CsvStore, ColumnsAreAllFoundOrNone) {
  CsvTable table = ParseCsv("a,b,c\n1,2,3\n", "t.csv");
  EXPECT_EQ(table.Columns({"c", "a"}), (std::array<int, 2>{2, 0}));
  EXPECT_EQ(table.Columns({"b"}), (std::array<int, 1>{1}));
  EXPECT_EQ(table.Columns({"a", "d", "b"}), std::nullopt);
}

// Two runs of one key replaced within one second: each refiled set of rows keeps its own key
// (the second gets "-2"), so neither overwrites the other.
TEST(CsvStore, RefiledRowsOfOneSecondKeepTheirOwnKeys) {
  testing::ScratchDir dir;
  const auto path = dir.path() / "probes.csv";
  const std::vector<std::string> header = {"key", "params", "timestamp", "trace"};
  EarlierRows earlier;
  earlier.timestamp = "2026-12-03T10:00:00Z";
  earlier.rows = {{"label=a", "n=1", earlier.timestamp, "a.sqlite"}};
  EXPECT_EQ(RefileEarlierRows(path, header, earlier, "a.earlier-1.sqlite"),
            "label=a;replaced=20261203T100000Z");
  earlier.rows = {{"label=a", "n=2", earlier.timestamp, "a.sqlite"}};
  EXPECT_EQ(RefileEarlierRows(path, header, earlier, "a.earlier-2.sqlite"),
            "label=a;replaced=20261203T100000Z-2");
  EXPECT_EQ(ReadCsvFile(path).rows.size(), 2u);
}

TEST(CsvStore, BadCsvNamesTheLine) {
  try {
    ParseCsv("a,b\n1,2\n3\n", "t.csv");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "t.csv:3: 1 fields where the header has 2");
  }
  EXPECT_THROW(ParseCsv("a\n\"open\n", "t.csv"), InputError);
}

TEST(CsvStore, ReRunReplacesOnlyItsOwnRows) {
  testing::ScratchDir dir;
  auto path = dir.path() / "probes.csv";
  MergeCsvRows(path, kHeader, "key", {{"b", "0", "1"}, {"b", "1", "2"}, {"a", "0", "3"}});
  EXPECT_EQ(testing::ReadText(path), "key,device,value\na,0,3\nb,0,1\nb,1,2\n");
  // b re-run on one device only: both old b rows go, a stays.
  MergeCsvRows(path, kHeader, "key", {{"b", "0", "9"}});
  EXPECT_EQ(testing::ReadText(path), "key,device,value\na,0,3\nb,0,9\n");
  MergeCsvRows(path, kHeader, "key", {{"c;x=1", "0", "with,comma"}});
  EXPECT_EQ(testing::ReadText(path), "key,device,value\na,0,3\nb,0,9\nc;x=1,0,\"with,comma\"\n");
  // Nothing but the file is left in the folder: the lock is on the folder itself.
  int entries = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir.path()))
    ++entries;
  EXPECT_EQ(entries, 1);
}

TEST(CsvStore, AFailureKeepsTheEarlierOkRowsOfItsKeyWhenAsked) {
  testing::ScratchDir dir;
  auto path = dir.path() / "probes.csv";
  const std::vector<std::string> header = {"key", "device", "status"};
  CsvMergeOptions keep;
  keep.failures_keep_ok_rows = true;
  MergeCsvRows(path, header, "key",
               {{"a", "0", "ok"}, {"a", "1", "ok"}, {"b", "0", "failed"}, {"c", "0", "ok"}});
  const std::string before = testing::ReadText(path);
  // a fails: its two ok rows stay and the merge says so; b had no ok row: its failure replaces
  // the earlier failure; c's new ok row replaces the old one as always.
  CsvMergeResult result = MergeCsvRows(
      path, header, "key", {{"a", "", "failed"}, {"b", "", "failed"}, {"c", "0", "ok"}}, keep);
  EXPECT_EQ(testing::ReadText(path), "key,device,status\na,0,ok\na,1,ok\nb,,failed\nc,0,ok\n");
  ASSERT_EQ(result.kept.size(), 1u);
  EXPECT_EQ(result.kept[0].key, "a");
  EXPECT_EQ(result.kept[0].rows,
            (std::vector<std::vector<std::string>>{{"a", "0", "ok"}, {"a", "1", "ok"}}));
  EXPECT_TRUE(result.changed);
  // A failure that changes nothing says so, so that nothing describing the file is rewritten.
  result = MergeCsvRows(path, header, "key", {{"a", "", "failed"}}, keep);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(result.kept.size(), 1u);
  // Without the option (and for every other caller) a failure replaces its key's rows.
  result = MergeCsvRows(path, header, "key", {{"a", "", "failed"}});
  EXPECT_TRUE(result.kept.empty());
  EXPECT_EQ(testing::ReadText(path), "key,device,status\na,,failed\nb,,failed\nc,0,ok\n");
  EXPECT_NE(before, testing::ReadText(path));
}

TEST(CsvStore, AFileWithOtherColumnsIsNeverOverwritten) {
  testing::ScratchDir dir;
  auto path = dir.path() / "probes.csv";
  testing::WriteText(path, "key,other\nk,1\n");
  EXPECT_THROW(MergeCsvRows(path, kHeader, "key", {{"k", "0", "1"}}), InputError);
  EXPECT_EQ(testing::ReadText(path), "key,other\nk,1\n");
}

// flock locks belong to open file descriptions, so threads that each open the lock file contend
// exactly as two processes would.
TEST(CsvStore, ConcurrentWritersLoseNothing) {
  testing::ScratchDir dir;
  auto path = dir.path() / "probes.csv";
  constexpr int kWriters = 4;
  constexpr int kRowsEach = 25;
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w]() {
      for (int i = 0; i < kRowsEach; ++i) {
        MergeCsvRows(path, kHeader, "key",
                     {{"w" + std::to_string(w) + "_" + std::to_string(i), "0", "x"}});
      }
    });
  }
  for (std::thread& writer : writers)
    writer.join();
  CsvTable table = ReadCsvFile(path);
  EXPECT_EQ(table.rows.size(), static_cast<size_t>(kWriters * kRowsEach));
}

}  // namespace
}  // namespace gpuroof
