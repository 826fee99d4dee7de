// End-to-end tests of `--window steady` and `analyze --steady-report` on builder-made traces with
// a slow start, worked out by hand below, and the inputs too short for a steady state.
#include <algorithm>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path Build(const TempDir& dir, const std::string& name, const std::string& body) {
  std::filesystem::path file = dir / (name + ".sqlite");
  testsupport::BuildFromDescription("gpu 0 \"Test GPU\"\n" + body, name, file);
  return file;
}

// Kernel-bound frames: the first 100 kernels take 20 us, the other 1900 10 us, back to back.
// Processing window [0, 2 ms + 1900 x 10 us) = [0, 21 ms). Series (--units-from kernel:frame):
// 1999 launch intervals, 100 of 20 us then 1899 of 10 us; MSER-5 drops the first 20 batches = 100
// intervals, so the steady state starts at launch 100, 2 ms into the window.
//   whole:  2000 frames, kernel busy 21 ms -> 10.5 us/frame (window 21 ms / 2000 the same)
//   steady: [2 ms, 21 ms), 1900 frames, busy 19 ms -> 10 us/frame: 100 (10/10.5 - 1) = -4.8 %
const char* kSlowKernels = R"desc(
repeat 100 step=20us {
  kernel start=0 end=20us name=frame stream=1
}
repeat 1900 step=10us {
  kernel start=2ms end=2ms+10us name=frame stream=1
}
)desc";

TEST(SteadyStateCli, SlowFirstFramesAreDroppedFromTheSteadyWindow) {
  TempDir dir;
  std::filesystem::path trace = Build(dir, "slow", kSlowKernels);
  CliResult r =
      RunGpuroof({"analyze", trace.string(), "--units-from", "kernel:frame", "--window", "steady"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The 100 slow warm-up frames (20 us each) are what the steady window leaves out.
  EXPECT_EQ(r.err, "gpuroof: note: " + trace.string() +
                       ": device 0: 100 op(s) (2.000 ms busy) lie outside the window; --window "
                       "all includes them\n");
  EXPECT_NE(
      r.out.find("window steady: 2.000 ms to 21.000 ms after the first GPU op, 19.000 ms long "
                 "· 1900 frames"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("steady state from 2.000 ms into the processing window (unit 101 of 1999; "
                       "100 warm-up units dropped by MSER-5 over 1999 intervals between launches "
                       "of kernel\n  'frame')\n"  // context lines wrap at 160 columns
                       "  bottleneck kernel per frame: 10.000 us in the steady part vs 10.500 us "
                       "over the whole window (-4.8 %)\n"
                       "  window per frame: 10.000 us in the steady part vs 10.500 us over the "
                       "whole window (-4.8 %)\n"),
            std::string::npos)
      << r.out;

  CliResult csv = RunGpuroof({"analyze", trace.string(), "--units-from", "kernel:frame", "--window",
                              "steady", "--format", "csv"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("\n0,1900,19,10,100000,1900,19,19,1,100,10,"), std::string::npos)
      << csv.out;

  CliResult json = RunGpuroof({"analyze", trace.string(), "--units-from", "kernel:frame",
                               "--steady-report", "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  for (const char* expected :
       {"\"steady_state\": {", "\"source\": \"kernel\"", "\"dropped_units\": 100",
        "\"start_ns\": 2000000", "\"offset_ns\": 2000000", "\"hit_cap\": false", "\"warnings\": []",
        "\"roofline_us_per_unit\": 10.5", "\"roofline_us_per_unit\": 10,"}) {
    EXPECT_NE(json.out.find(expected), std::string::npos) << expected << "\n" << json.out;
  }
  // --steady-report keeps the chosen window for the engine table.
  EXPECT_NE(json.out.find("\"policy\": \"processing\""), std::string::npos);
}

// CPU-bound frames every 20 us: the first 100 kernels take 16 us, the other 900 10 us; a last D2H
// makes the processing window exactly [0, 20 ms), so each of the 50 slices (400 us) holds 20
// frames. Kernel busy per slice: 5 x 320 us, then 45 x 200 us; MSER-5 drops one batch of 5
// slices: steady from 2 ms. Per slice: whole 10.6 ms / 50 = 212 us, steady 9 ms / 45 = 200 us.
TEST(SteadyStateCli, FixedSlicesWithoutUnits) {
  TempDir dir;
  std::filesystem::path trace = Build(dir, "slices", R"desc(
repeat 100 step=20us {
  kernel start=0 end=16us name=frame stream=1
}
repeat 900 step=20us {
  kernel start=2ms end=2ms+10us name=frame stream=1
}
memcpy start=19.99ms end=20ms kind=DtoH bytes=1000 stream=2
)desc");
  CliResult r = RunGpuroof({"analyze", trace.string(), "--steady-report"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("steady state from 2.000 ms into the processing window (unit 6 of 50; 5 "
                       "warm-up units dropped by MSER-5 over 50 slices (busy time of kernel))\n"
                       "  bottleneck kernel per slice: 200.000 us in the steady part vs 212.000 "
                       "us over the whole window (-5.7 %)\n"),
            std::string::npos)
      << r.out;

  // Every command that takes --window takes steady (fixed slices there).
  CliResult kernels =
      RunGpuroof({"kernels", trace.string(), "--window", "steady", "--format", "csv"});
  ASSERT_EQ(kernels.exit_code, 0) << kernels.err;
  EXPECT_NE(kernels.out.find("\n0,frame,kernel,900,9000000,"), std::string::npos) << kernels.out;
}

// A period that keeps shrinking (launch i every 200 - i us... here 20 launches 100 us apart
// minus 2 us more each time) never settles: MSER-5 hits its cap, which is a warning on stderr
// and in the window note, not an error.
TEST(SteadyStateCli, NoSteadyStateIsAWarning) {
  TempDir dir;
  std::string body;
  int64_t start_us = 0;
  for (int i = 0; i < 21; ++i) {
    body += "kernel start=" + std::to_string(start_us) + "us end=" + std::to_string(start_us + 5) +
            "us name=k\n";
    start_us += 100 - 2 * i;
  }
  std::filesystem::path trace = Build(dir, "ramp", body);
  CliResult r = RunGpuroof({"analyze", trace.string(), "--units-from", "kernel:k", "--window",
                            "steady", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.rfind("gpuroof: note: " + trace.string() + ": device 0: no steady state", 0), 0u)
      << r.err;
  EXPECT_NE(r.out.find("\"hit_cap\": true"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"note\": \"no steady state"), std::string::npos) << r.out;
}

TEST(SteadyStateCli, TooShortOrBadOptionsEndInOneLineAndExit2) {
  TempDir dir;
  std::filesystem::path few = Build(dir, "few", R"desc(
repeat 10 step=10us {
  kernel start=0 end=5us name=k
}
)desc");
  std::filesystem::path tiny = Build(dir, "tiny", "kernel start=0 end=30 name=k\n");
  struct Case {
    std::vector<std::string> args;
    std::string prefix;
  };
  const std::vector<Case> cases = {
      {{"analyze", few.string(), "--units-from", "kernel:k", "--window", "steady"},
       few.string() + ": device 0: only 9 unit(s) from launches of kernel 'k'"},
      {{"analyze", few.string(), "--units-from", "kernel:nope", "--window", "steady"},
       few.string() + ": no kernel named 'nope'"},
      {{"analyze", few.string(), "--units-from", "nvtx:epoch", "--steady-report"},
       few.string() + ": --units-from: no NVTX range named 'epoch'"},
      {{"analyze", few.string(), "--units", "10", "--window", "steady"}, "--units: a fixed count"},
      {{"copies", few.string(), "--window", "steady"}, few.string() + ": no memory copies"},
      {{"kernels", tiny.string(), "--window", "steady"},
       tiny.string() + ": device 0: the processing window (30 ns) is too short"},
  };
  for (const Case& c : cases) {
    CliResult r = RunGpuroof(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.prefix;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(r.err.rfind("gpuroof: error: " + c.prefix, 0), 0u) << r.err;
  }
}

}  // namespace
}  // namespace gpuroof::testing
