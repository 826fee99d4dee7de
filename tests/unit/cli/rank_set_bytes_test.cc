// The bytes MPI processes exchange under `mpirun gpuroof ranks`: every field of a summary comes
// back bit for bit, malformed bytes are refused, and the share by file size is the greedy one
// worked by hand.
#include "rank_set_bytes.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

LoadedRank AnalysedRank() {
  RankSummary summary;
  summary.source = "/jobs/a/worker_3.pt.trace.json";
  summary.format = "kineto-json";
  summary.rank = 3;
  summary.world_size = 8;
  summary.rank_origin = "distributedInfo.rank";
  summary.rank_left_out = "the captured environment names rank 1 (SLURM_PROCID), but 2 processes";
  summary.device_id = -1;
  summary.other_devices = 2;
  summary.tied_devices = 1;
  summary.other_device_ops = 123456789012;
  summary.steps_label = "'ProfilerStep#*' (2 instances)";
  summary.whole_trace = true;  // not so with two steps: only each field's coming back matters
  summary.ops_outside_steps = 880;
  summary.busy_outside_steps_ns = 57'000'000'001;
  summary.step_numbers = {550, std::numeric_limits<int64_t>::max()};
  summary.records_lost = 26;
  summary.steps.push_back({1000, 2000, 600, 200, 110, 50, 800, {7, 3, 190}});
  summary.steps.push_back({std::numeric_limits<int64_t>::min(),
                           std::numeric_limits<int64_t>::max(),
                           -5,
                           0,
                           1,
                           2,
                           3,
                           {4, 5, 6}});
  summary.step_median_ns = 0.1 + 0.2;  // not a short decimal: bits must survive, not digits
  summary.step_p95_ns = std::nextafter(1e9, 2e9);
  summary.AddCollective(0, 0, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 500);
  summary.AddCollective(1, 3, std::string("odd\0name\n\xff", 11), -650);
  summary.AddCollective(1, 4, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 7);
  LoadedRank loaded;
  loaded.summary = summary;
  loaded.diagnostics_summary = "read 10 = used 9 + skipped 1";
  loaded.reader_notes = {"3 GPU op(s) have zero duration", ""};
  loaded.data_loss = true;
  return loaded;
}

TEST(RankSetBytesTest, LoadedRanksComeBackFieldForField) {
  LoadedRank failed;
  failed.error = "/jobs/a/broken.json: JSON ends early";
  LoadedRank bare;  // a summary with no rank, no steps, no collectives
  bare.summary = RankSummary{};
  LoadedShare share;
  share.ranks = {{7, AnalysedRank()}, {0, failed}, {42, bare}};
  share.collectives.Add(7, *AnalysedRank().summary);
  LoadedShare back = DecodeLoadedShare(EncodeLoadedShare(share));
  ASSERT_EQ(back.ranks.size(), 3u);
  EXPECT_EQ(back, share);
  EXPECT_EQ(back.ranks[0].loaded.summary->step_median_ns, 0.1 + 0.2);
  EXPECT_EQ(back.ranks[0].loaded.summary->collective_names.size(), 2u);
  EXPECT_FALSE(back.ranks[1].loaded.summary.has_value());
  EXPECT_FALSE(back.ranks[2].loaded.summary->rank.has_value());
  EXPECT_EQ(back.collectives.names(), share.collectives.names());
  EXPECT_EQ(back.collectives.Instances().size(), 3u);
  EXPECT_EQ(DecodeLoadedShare(EncodeLoadedShare({})), LoadedShare{});
}

TEST(RankSetBytesTest, IntegersAreLittleEndianInEightBytes) {
  std::string bytes = EncodeRankShares({{"ab"}, {258}});
  // count 1, length 2, "ab", process 258 = 0x0102
  std::string expected = std::string("\x01\0\0\0\0\0\0\0", 8) +
                         std::string("\x02\0\0\0\0\0\0\0", 8) + "ab" +
                         std::string("\x02\x01\0\0\0\0\0\0", 8);
  EXPECT_EQ(bytes, expected);
}

TEST(RankSetBytesTest, SharesComeBack) {
  RankShares shares{{"a.json", "", "dir/c.sqlite"}, {1, 0, 1}};
  EXPECT_EQ(DecodeRankShares(EncodeRankShares(shares)), shares);
}

TEST(RankSetBytesTest, MalformedBytesAreRefused) {
  LoadedShare share;
  share.ranks = {{7, AnalysedRank()}};
  share.collectives.Add(7, *AnalysedRank().summary);
  std::string bytes = EncodeLoadedShare(share);
  for (size_t cut : {size_t{0}, size_t{5}, size_t{8}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_THROW(DecodeLoadedShare(bytes.substr(0, cut)), std::runtime_error) << cut;
  EXPECT_THROW(DecodeLoadedShare(bytes + "x"), std::runtime_error);
  // A count far beyond what the bytes hold is refused before anything is reserved.
  std::string huge(8, '\xff');
  EXPECT_THROW(DecodeLoadedShare(huge), std::runtime_error);
  EXPECT_THROW(DecodeRankShares(huge), std::runtime_error);
  // A number too large for its field (a process number beyond int) is refused, not truncated.
  const std::string one_empty_path = std::string("\x01\0\0\0\0\0\0\0", 8) + std::string(8, '\0');
  EXPECT_EQ(DecodeRankShares(one_empty_path + std::string("\x05\0\0\0\0\0\0\0", 8)),
            (RankShares{{""}, {5}}));
  EXPECT_THROW(DecodeRankShares(one_empty_path + std::string("\0\0\0\0\x01\0\0\0", 8)),
               std::runtime_error);
  // An arrival naming a name the summary does not hold.
  LoadedShare bad;
  bad.ranks = {{0, AnalysedRank()}};
  bad.ranks[0].loaded.summary->collectives.back().name_id = 2;
  EXPECT_THROW(DecodeLoadedShare(EncodeLoadedShare(bad)), std::runtime_error);
  // A folded instance naming a name the tally does not hold: the last instance's name id is 9 x 8
  // bytes before the steps' name counts (then come order, order input, ranks present, earliest,
  // latest, whole trace, input count and the input), which are a count and 5 x 8 bytes each.
  const size_t count_bytes = 8 + 5 * 8 * share.collectives.NameCounts().size();
  std::string unnamed = bytes;
  unnamed[unnamed.size() - count_bytes - 9 * 8] = '\x09';
  EXPECT_THROW(DecodeLoadedShare(unnamed), std::runtime_error);
  // The same step's count of one name and input twice.
  std::string twice = bytes;
  ASSERT_FALSE(share.collectives.NameCounts().empty());
  twice[twice.size() - count_bytes] =
      static_cast<char>(share.collectives.NameCounts().size() + 1);  // < 128 counts
  twice += twice.substr(twice.size() - 5 * 8);
  EXPECT_THROW(DecodeLoadedShare(twice), std::runtime_error);
}

// Sizes 10 50 30 30 20 on 2 processes, largest first: 50 -> p0 (0,0: the lower), 30 (file 2) ->
// p1 (50,0), 30 (file 3) -> p1 (50,30), 20 -> p0 (50,60), 10 -> p1 (70,60). Loads 70 and 70.
TEST(RankSetBytesTest, ShareByFileSizeIsGreedyLargestFirst) {
  EXPECT_EQ(ShareByFileSize({10, 50, 30, 30, 20}, 2), (std::vector<int>{1, 0, 1, 1, 0}));
  // Equal sizes alternate in file order; more processes than files leave some idle.
  EXPECT_EQ(ShareByFileSize({5, 5, 5, 5}, 2), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(ShareByFileSize({1, 2}, 4), (std::vector<int>{1, 0}));
  EXPECT_EQ(ShareByFileSize({3, 1}, 1), (std::vector<int>{0, 0}));
  EXPECT_TRUE(ShareByFileSize({}, 3).empty());
}

}  // namespace
}  // namespace gpuroof
