// Training steps on the shared Kineto fixtures: the GPU work of each ProfilerStep#N, as `ranges`
// and `analyze --window nvtx:ProfilerStep#N` report it, against an independent computation from
// the raw events (docs/metrics.md, "Which GPU work belongs to a range"): an op is a step's when
// the runtime call with its correlation id started, on any thread, while the step was open.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>
#include <zlib.h>

#include "cli_runner.h"
#include "kineto_raw_events.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path KinetoFixtures() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "kineto";
}

struct RawStep {
  std::string name;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int64_t ops = 0;
  std::vector<std::pair<int64_t, int64_t>> intervals;  // the step's GPU ops
};

// The steps of a fixture and their GPU work, straight from the JSON.
std::vector<RawStep> StepsFromRawEvents(const std::filesystem::path& path) {
  const std::string text = Gunzip(path);
  simdjson::dom::parser parser;
  simdjson::dom::element root = parser.parse(text);
  simdjson::dom::array events = root["traceEvents"].get_array();
  std::map<int64_t, int64_t> call_start;                             // correlation -> launch time
  std::vector<std::pair<int64_t, std::pair<int64_t, int64_t>>> ops;  // correlation, interval
  std::vector<RawStep> steps;
  for (simdjson::dom::element event : events) {
    std::string_view phase;
    if (event["ph"].get(phase) != simdjson::SUCCESS || phase != "X") continue;
    std::string_view category;
    std::string_view name;
    if (event["cat"].get(category) != simdjson::SUCCESS) continue;
    if (event["name"].get(name) != simdjson::SUCCESS) continue;
    const std::string cat = Lower(category);
    const int64_t start = Ns(event["ts"]);
    const int64_t end = start + Ns(event["dur"]);
    int64_t correlation = -1;
    simdjson::dom::element args;
    if (event["args"].get(args) == simdjson::SUCCESS) {
      int64_t value = 0;
      if (args["correlation"].get(value) == simdjson::SUCCESS) correlation = value;
    }
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "memcpy" ||
        cat == "memset") {
      ops.push_back({correlation, {start, end}});
    } else if (cat == "cuda_runtime" || cat == "cuda_driver" || cat == "runtime") {
      if (correlation > 0) call_start[correlation] = start;
    } else if ((cat == "user_annotation" || cat == "operator" || cat == "cpu_op") &&
               name.starts_with("ProfilerStep#")) {
      steps.push_back({std::string(name), start, end, 0, {}});
    }
  }
  std::sort(steps.begin(), steps.end(),
            [](const RawStep& a, const RawStep& b) { return a.start_ns < b.start_ns; });
  for (const auto& [correlation, interval] : ops) {
    auto call = call_start.find(correlation);
    if (call == call_start.end()) continue;
    for (RawStep& step : steps) {
      if (step.start_ns <= call->second && call->second <= step.end_ns) {
        ++step.ops;
        step.intervals.push_back(interval);
      }
    }
  }
  return steps;
}

int64_t Int(const std::map<std::string, std::string>& row, const std::string& column) {
  auto it = row.find(column);
  EXPECT_NE(it, row.end()) << column;
  return it == row.end() || it->second.empty() ? 0 : std::stoll(it->second);
}

double Ms(const std::map<std::string, std::string>& row, const std::string& column) {
  auto it = row.find(column);
  EXPECT_NE(it, row.end()) << column;
  return it == row.end() || it->second.empty() ? 0 : std::stod(it->second);
}

// Per step: ops and busy time from `ranges` and from `analyze --window`, equal to the raw
// events' answer; the sum over steps is the family's total.
TEST(StepAttributionFixtures, EveryStepMatchesTheRawEventsInRangesAndAnalyze) {
  if (!std::filesystem::is_directory(KinetoFixtures())) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared Kineto fixtures not found at " << KinetoFixtures();
  }
  int fixtures_with_steps = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KinetoFixtures())) {
    if (entry.path().extension() != ".gz") continue;
    const std::string file = entry.path().string();
    SCOPED_TRACE(file);
    const std::vector<RawStep> steps = StepsFromRawEvents(entry.path());
    if (steps.empty()) continue;  // no ProfilerStep#N in this capture
    ++fixtures_with_steps;

    CliResult ranges =
        RunGpuroof({"ranges", file, "--name", "ProfilerStep#*", "--format", "csv", "--quiet"});
    ASSERT_EQ(ranges.exit_code, 0) << ranges.err;
    const auto rows = ParseCsv(ranges.out);
    int64_t family_ops = 0;
    for (const RawStep& step : steps) {
      SCOPED_TRACE(step.name);
      // The instance rows of this step (one per device; these captures use one GPU).
      int64_t ops = 0;
      int64_t busy = 0;
      for (const auto& row : rows) {
        if (Int(row, "cpu_start_ns") != step.start_ns) continue;
        ops += Int(row, "gpu_ops");
        busy += Int(row, "any_busy_ns");
      }
      EXPECT_EQ(ops, step.ops);
      EXPECT_EQ(busy, UnionNs(step.intervals));
      family_ops += ops;
      if (step.ops == 0) continue;

      CliResult analyze = RunGpuroof(
          {"analyze", file, "--window", "nvtx:" + step.name, "--format", "csv", "--quiet"});
      ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
      const auto devices = ParseCsv(analyze.out);
      ASSERT_EQ(devices.size(), 1u) << analyze.out;
      int64_t analyze_ops = 0;
      for (const auto& [column, value] : devices[0]) {
        if (column.size() > 2 && column.ends_with("_n") && column != "window_range") {
          analyze_ops += value.empty() ? 0 : std::stoll(value);
        }
      }
      EXPECT_EQ(analyze_ops, step.ops);
      EXPECT_EQ(devices[0].at("window_range"), "'" + step.name + "' (1 instance)");
      // The window is the step's GPU span.
      const auto [first, last] = std::minmax_element(step.intervals.begin(), step.intervals.end());
      int64_t span_end = 0;
      for (const auto& interval : step.intervals)
        span_end = std::max(span_end, interval.second);
      EXPECT_NEAR(Ms(devices[0], "window_ms"), static_cast<double>(span_end - first->first) / 1e6,
                  1e-9);
      (void)last;
    }
    // The family total over the whole capture, from the overview's one row per name.
    CliResult overview = RunGpuroof({"ranges", file, "--format", "csv", "--quiet"});
    ASSERT_EQ(overview.exit_code, 0) << overview.err;
    bool found = false;
    for (const auto& row : ParseCsv(overview.out)) {
      if (row.at("range") != "ProfilerStep#*") continue;
      found = true;
      EXPECT_EQ(Int(row, "gpu_ops"), family_ops);
    }
    EXPECT_TRUE(found) << overview.out;
  }
  // hta_compare_base/test (2 steps), hta_rank0_a100 (5), kineto_rn50_pt18 (6).
  EXPECT_GE(fixtures_with_steps, 4);
}

// kineto_rn50_pt18 has ProfilerStep#5 ... #10: "#7" is a name, not the 7th instance. Its
// backward pass runs on a second thread: 626 of the step's 1547 ops are launched from there.
TEST(StepAttributionFixtures, Rn50StepSevenIsStepSevenWithItsBackwardPass) {
  const std::filesystem::path file = KinetoFixtures() / "kineto_rn50_pt18.json.gz";
  if (!std::filesystem::is_directory(KinetoFixtures())) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared Kineto fixtures not found at " << KinetoFixtures();
  }
  ASSERT_TRUE(std::filesystem::exists(file)) << file << " is missing from the fixtures";
  CliResult r = RunGpuroof({"analyze", file.string(), "--window", "nvtx:ProfilerStep#7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("window nvtx 'ProfilerStep#7' (1 instance)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("any GPU op  1547 "), std::string::npos) << r.out;
  // The old reading (#5 as "the 5th instance") is gone: ProfilerStep#5 is the first step.
  CliResult five =
      RunGpuroof({"analyze", file.string(), "--window", "nvtx:ProfilerStep#5", "--format", "csv"});
  ASSERT_EQ(five.exit_code, 0) << five.err;
  EXPECT_EQ(ParseCsv(five.out).at(0).at("window_range"), "'ProfilerStep#5' (1 instance)");
  // With the thread rule, the other thread's launches are left out and counted.
  CliResult thread = RunGpuroof({"analyze", file.string(), "--window", "nvtx:ProfilerStep#7",
                                 "--attribute", "thread", "--format", "csv"});
  ASSERT_EQ(thread.exit_code, 0) << thread.err;
  EXPECT_NE(thread.err.find("626 op(s) launched by other threads"), std::string::npos)
      << thread.err;
}

// nsys2021_5_saxpy_rank0: five "saxpy" NVTX ranges each launch one kernel. The first range opens
// before the first kernel, so a window starting at the first kernel used to lose a unit. The
// figures come from `nsys stats`' own CSVs beside the export (nvtxpptrace, kernexectrace,
// gputrace).
TEST(StepAttributionFixtures, SaxpyUnitsAreItsFiveRangesAndTheirFiveKernels) {
  const std::filesystem::path shared(GPUROOF_SHARED_FIXTURES_DIR);
  const std::filesystem::path file = shared / "nsys" / "nsys2021_5_saxpy_rank0.sqlite";
  if (!std::filesystem::is_directory(shared)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << shared;
  }
  ASSERT_TRUE(std::filesystem::exists(file)) << file << " is missing from the fixtures";
  const std::filesystem::path csv = shared / "nsys-csv";
  int64_t saxpy_ranges = 0;
  for (const auto& row : ParseCsv(ReadFile(csv / "nsys2021_5_saxpy_rank0_nvtxpptrace.csv")))
    saxpy_ranges += row.at("Name") == "saxpy";
  int64_t kernel_ns = 0;
  const auto kernels = ParseCsv(ReadFile(csv / "nsys2021_5_saxpy_rank0_kernexectrace.csv"));
  for (const auto& row : kernels)
    kernel_ns += std::stoll(row.at("Kernel Dur (ns)"));
  ASSERT_EQ(saxpy_ranges, 5);

  CliResult r = RunGpuroof(
      {"analyze", file.string(), "--units-from", "nvtx:saxpy", "--format", "csv", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = ParseCsv(r.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Int(rows[0], "n_frames"), saxpy_ranges);
  EXPECT_EQ(Int(rows[0], "kernel_n"), static_cast<int64_t>(kernels.size()));
  EXPECT_NEAR(Ms(rows[0], "kernel_sum_ms"), static_cast<double>(kernel_ns) / 1e6, 1e-9);
  EXPECT_NEAR(Ms(rows[0], "kernel_us_per_frame"),
              static_cast<double>(kernel_ns) / 1e3 / static_cast<double>(saxpy_ranges), 1e-6);

  // `copies --window all` counts what `nsys stats` counts; the default window says what it left.
  std::map<std::string, int64_t> stats_copies;
  for (const auto& row : ParseCsv(ReadFile(csv / "nsys2021_5_saxpy_rank0_gputrace.csv")))
    ++stats_copies[row.at("Name")];
  CliResult all = RunGpuroof({"copies", file.string(), "--window", "all", "--format", "csv"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  std::map<std::string, int64_t> counted;
  for (const auto& row : ParseCsv(all.out))
    counted[row.at("engine")] += Int(row, "count");
  EXPECT_EQ(counted["H2D"], stats_copies["[CUDA memcpy HtoD]"]);
  EXPECT_EQ(counted["D2H"], stats_copies["[CUDA memcpy DtoH]"]);
  CliResult processing = RunGpuroof({"copies", file.string(), "--format", "csv"});
  ASSERT_EQ(processing.exit_code, 0) << processing.err;
  EXPECT_NE(processing.err.find("lie outside the window; --window all includes them"),
            std::string::npos)
      << processing.err;
}

}  // namespace
}  // namespace gpuroof::testing
