// End-to-end tests of `gpuroof copies --contention` on a builder-made trace whose figures are
// worked out by hand below, and bad input that must end in one clear line with exit code 2.
#include <algorithm>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

// 100 periods of 30 us. In each: H2D [0,10us) 100 kB alone (10 GB/s), H2D [10,20us) 50 kB while
// a D2H [10,20us) 40 kB runs (5 and 4 GB/s), D2H [20,30us) 60 kB alone (6 GB/s); one kernel at
// the start makes the processing window [0, 3 ms) (first kernel start to the last D2H end).
//   H2D: 200 ops, 15 MB; 1 ms while D2H is busy (5 MB: 5 GB/s), 1 ms while it is idle (10 MB:
//        10 GB/s): busy share 50 %, loss 100 (1 - 5/10) = 50 %
//   D2H: 200 ops, 10 MB; 1 ms against a busy H2D (4 MB: 4 GB/s), 1 ms alone (6 MB: 6 GB/s):
//        busy share 50 %, loss 100 (1 - 4/6) = 33.33 %
std::filesystem::path WriteDuplexTrace(const TempDir& dir) {
  std::filesystem::path file = dir / "duplex.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "Test GPU"
kernel start=0 end=5us name=k stream=1
repeat 100 step=30us {
  memcpy start=0 end=10us kind=HtoD bytes=100000 src=pinned dst=device stream=2
  memcpy start=10us end=20us kind=HtoD bytes=50000 src=pinned dst=device stream=2
  memcpy start=10us end=20us kind=DtoH bytes=40000 src=device dst=pinned stream=3
  memcpy start=20us end=30us kind=DtoH bytes=60000 src=device dst=pinned stream=3
}
)desc",
                                    "duplex", file);
  return file;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

TEST(ContentionCli, DuplexTraceByHand) {
  TempDir dir;
  std::filesystem::path trace = WriteDuplexTrace(dir);
  CliResult r = RunGpuroof({"copies", trace.string(), "--contention", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0],
            "device,copy,opposite,ops,time_ns,bytes,opposite_busy_ns,opposite_busy_bytes,"
            "opposite_busy_gbps,opposite_idle_ns,opposite_idle_bytes,opposite_idle_gbps,"
            "busy_share_pct,loss_pct");
  EXPECT_EQ(lines[1], "0,H2D,D2H,200,2000000,15000000,1000000,5000000,5,1000000,10000000,10,50,50");
  const std::string d2h = "0,D2H,H2D,200,2000000,10000000,1000000,4000000,4,1000000,6000000,6,50,";
  ASSERT_EQ(lines[2].rfind(d2h, 0), 0u) << lines[2];
  EXPECT_NEAR(std::stod(lines[2].substr(d2h.size())), 100.0 / 3.0, 1e-9);

  CliResult table = RunGpuroof({"copies", trace.string(), "--contention"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("H2D loses 50.0 % of its bandwidth against a busy D2H (5.00 GB/s vs "
                           "10.00 GB/s while D2H is idle; 50.0 % of its copy time overlaps a "
                           "busy D2H)."),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("D2H loses 33.3 % of its bandwidth against a busy H2D (4.00 GB/s vs "
                           "6.00 GB/s"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("window processing: 0 ns to 3.000 ms after the first GPU op"),
            std::string::npos)
      << table.out;

  CliResult json = RunGpuroof({"copies", trace.string(), "--contention", "--format", "json", "-o",
                               (dir / "c.json").string()});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, "");
  std::string text = ReadFile(dir / "c.json");
  EXPECT_NE(text.find("\"schema\": \"gpuroof.contention/2\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"opposite_busy_ns\": 1000000"), std::string::npos) << text;
  EXPECT_NE(text.find("\"loss_pct\": 50"), std::string::npos) << text;
}

// The window applies as everywhere: [0, 1 ms) holds 33 full periods and the first third of the
// 34th (its H2D alone): H2D 67 ops, 33 x 10 us against a busy D2H and 34 x 10 us alone.
TEST(ContentionCli, ExplicitWindowClipsTheCopies) {
  TempDir dir;
  std::filesystem::path trace = WriteDuplexTrace(dir);
  CliResult r = RunGpuroof(
      {"copies", trace.string(), "--contention", "--window", "0:1ms", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[1].rfind("0,H2D,D2H,67,670000,5050000,330000,1650000,5,340000,3400000,10,", 0),
            0u)
      << lines[1];
}

TEST(ContentionCli, TraceWithoutCopiesIsOneLineAndExit2) {
  TempDir dir;
  std::filesystem::path file = dir / "kernels.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "Test GPU"
kernel start=0 end=100 name=k
memset start=0 end=50 bytes=64
)desc",
                                    "kernels", file);
  CliResult r =
      RunGpuroof({"copies", file.string(), "--contention", "-o", (dir / "out.csv").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("gpuroof: error: " + file.string() + ": no H2D or D2H copies", 0), 0u)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.csv"));
}

// Copies that take no time have no bandwidth: left out of the directions, but counted. Here one
// timed H2D and D2H each (figures as usual), and 3 zero-duration H2D copies of 1000 B plus one
// D2H of 500 B in the window: 4 copies, 3.50 kB, said on stderr with CSV and in the table.
TEST(ContentionCli, ZeroDurationCopiesAreCountedAndSaid) {
  TempDir dir;
  std::filesystem::path file = dir / "zero.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "Test GPU"
kernel start=0 end=5us name=k stream=1
memcpy start=0 end=10us kind=HtoD bytes=100000 src=pinned dst=device stream=2
memcpy start=10us end=20us kind=DtoH bytes=60000 src=device dst=pinned stream=3
repeat 3 step=1us {
  memcpy start=2us end=2us kind=HtoD bytes=1000 src=pinned dst=device stream=2
}
memcpy start=15us end=15us kind=DtoH bytes=500 src=device dst=pinned stream=3
)desc",
                                    "zero", file);
  CliResult r = RunGpuroof({"copies", file.string(), "--contention", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[1].rfind("0,H2D,D2H,1,10000,100000,", 0), 0u) << lines[1];
  EXPECT_EQ(r.err, "gpuroof: note: " + file.string() +
                       ": device 0: 4 H2D/D2H copies (3.50 kB) in the window left out: they take "
                       "no time, so have no bandwidth\n");
  r = RunGpuroof({"copies", file.string(), "--contention"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("note: 4 H2D/D2H copies (3.50 kB) in the window left out"),
            std::string::npos)
      << r.out;
}

// When every H2D and D2H copy takes no time, the error says so instead of pointing at
// --window all (the window already in use).
TEST(ContentionCli, OnlyZeroDurationCopiesIsAnErrorThatSaysWhy) {
  TempDir dir;
  std::filesystem::path file = dir / "zero.sqlite";
  testsupport::BuildFromDescription(R"desc(
gpu 0 "Test GPU"
kernel start=0 end=5us name=k stream=1
memcpy start=1us end=1us kind=HtoD bytes=1000 src=pinned dst=device stream=2
memcpy start=2us end=2us kind=DtoH bytes=1000 src=device dst=pinned stream=3
)desc",
                                    "zero", file);
  CliResult r = RunGpuroof({"copies", file.string(), "--contention", "--window", "all"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gpuroof: error: " + file.string() +
                       ": no H2D or D2H copy takes time in the 'all' window: the 2 counted in it "
                       "take no time (zero duration: no bandwidth)\n");
}

}  // namespace
}  // namespace gpuroof::testing
