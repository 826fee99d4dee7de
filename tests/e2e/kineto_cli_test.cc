// End-to-end: gpuroof's commands on Kineto (PyTorch profiler) traces with no extra flags, on a
// small gzipped trace whose figures are worked out by hand, on a shared fixture, and on broken
// files that must end in one error line with exit code 2.
#include <algorithm>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <zlib.h>

#include "cli_runner.h"
#include "support/kineto_json_builder.h"

namespace gpuroof::testing {
namespace {

// One device, two streams (µs):
//   H2D  [0, 100)    pageable setup upload, 1 MB   (before the first kernel)
//   A    [100, 150)  stream 7
//   B    [200, 250)  stream 7
//   C    [220, 280)  stream 8  (overlaps B for 30)
//   D2H  [300, 320)  pinned, 400 kB
// Processing window: first kernel start 100 -> max(last kernel end 280, last D2H end 320) = 320,
// so 220 µs; the upload ends where the window starts and does not count.
// Kernels: sum 50 + 50 + 60 = 160 µs; busy [100,150) + [200,280) = 130 µs.
// Gaps between busy intervals: [150,200) 50 µs and [280,300) 20 µs.
// ProfilerStep#1 [120, 370) launched B, C and the D2H (at 130, 135, 140); A was launched at 95,
// before it: the step's work is B, C and the D2H, [200, 320).
std::string SmallTrace() {
  return KinetoJsonBuilder()
      .TopLevel("deviceProperties", R"([{"id": 0, "name": "NVIDIA Test GPU"}])")
      .Annotation("ProfilerStep#1", "120", "250")
      .Runtime("cudaLaunchKernel", "95", "2", 2)
      .Runtime("cudaLaunchKernel", "130", "2", 3)
      .Runtime("cudaLaunchKernel", "135", "2", 4)
      .Runtime("cudaMemcpyAsync", "140", "2", 5)
      .Memcpy("Memcpy HtoD (Pageable -> Device)", "0", "100", 1'000'000, 0, 7, 1)
      .Kernel("A", "100", "50", 0, 7, 2)
      .Kernel("C", "220", "60", 0, 8, 4)
      .Kernel("B", "200", "50", 0, 7, 3)
      .Memcpy("Memcpy DtoH (Device -> Pinned)", "300", "20", 400'000, 0, 7, 5)
      .ObjectJson();
}

void WriteGzip(const std::filesystem::path& path, const std::string& text) {
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  ASSERT_EQ(gzwrite(gz, text.data(), static_cast<unsigned>(text.size())),
            static_cast<int>(text.size()));
  gzclose(gz);
}

// Splits `text` at `separator` (a trailing empty field is kept).
std::vector<std::string> Split(const std::string& text, char separator) {
  std::vector<std::string> parts(1);
  for (char c : text) {
    if (c == separator) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// CSV without quoted commas (true of these outputs) -> one header-keyed map per row.
std::vector<std::map<std::string, std::string>> Rows(const std::string& csv) {
  std::vector<std::string> lines = Split(csv, '\n');
  while (!lines.empty() && lines.back().empty())
    lines.pop_back();
  std::vector<std::map<std::string, std::string>> rows;
  if (lines.empty()) return rows;
  std::vector<std::string> header = Split(lines[0], ',');
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cells = Split(lines[i], ',');
    std::map<std::string, std::string>& row = rows.emplace_back();
    for (size_t j = 0; j < header.size() && j < cells.size(); ++j)
      row[header[j]] = cells[j];
  }
  return rows;
}

double Num(const std::map<std::string, std::string>& row, const std::string& key) {
  auto it = row.find(key);
  if (it == row.end()) {
    ADD_FAILURE() << "no column " << key;
    return -1;
  }
  return std::stod(it->second);
}

bool IsOneErrorLine(const std::string& err) {
  return err.rfind("gpuroof: error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

class KinetoCli : public ::testing::Test {
 protected:
  void SetUp() override { WriteGzip(trace_, SmallTrace()); }
  TempDir dir_;
  std::filesystem::path trace_ = dir_ / "small.pt.trace.json.gz";
};

TEST_F(KinetoCli, AnalyzeByHand) {
  CliResult r = RunGpuroof({"analyze", trace_.string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "gpuroof: note: " + trace_.string() +
                       ": device 0: 1 op(s) (100.000 us busy) lie outside the window; --window all "
                       "includes them\n");
  auto rows = Rows(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  EXPECT_EQ(rows[0].at("device"), "0");
  EXPECT_DOUBLE_EQ(Num(rows[0], "window_ms"), 0.22);
  EXPECT_EQ(rows[0].at("kernel_n"), "3");
  EXPECT_DOUBLE_EQ(Num(rows[0], "kernel_sum_ms"), 0.16);
  EXPECT_DOUBLE_EQ(Num(rows[0], "kernel_busy_ms"), 0.13);
  EXPECT_EQ(rows[0].at("D2H_n"), "1");
  EXPECT_DOUBLE_EQ(Num(rows[0], "D2H_busy_ms"), 0.02);
  EXPECT_EQ(rows[0].at("H2D_n"), "0") << r.out;  // the setup upload is outside the window
}

TEST_F(KinetoCli, KernelsCopiesAndGapsRun) {
  CliResult kernels = RunGpuroof({"kernels", trace_.string(), "--format", "csv"});
  ASSERT_EQ(kernels.exit_code, 0) << kernels.err;
  auto kernel_rows = Rows(kernels.out);
  ASSERT_EQ(kernel_rows.size(), 3u) << kernels.out;

  CliResult copies = RunGpuroof({"copies", trace_.string(), "--format", "csv"});
  ASSERT_EQ(copies.exit_code, 0) << copies.err;
  auto copy_rows = Rows(copies.out);
  ASSERT_EQ(copy_rows.size(), 1u) << copies.out;
  EXPECT_EQ(copy_rows[0].at("copy"), "D2H Device->Pinned");
  EXPECT_EQ(copy_rows[0].at("bytes"), "400000");
  // 400000 B in 20000 ns = 20 B/ns = 20 GB/s.
  EXPECT_DOUBLE_EQ(Num(copy_rows[0], "bandwidth_gbps"), 20.0);

  CliResult gaps = RunGpuroof({"gaps", trace_.string(), "--min", "10us", "--format", "csv"});
  ASSERT_EQ(gaps.exit_code, 0) << gaps.err;
  auto gap_rows = Rows(gaps.out);
  ASSERT_EQ(gap_rows.size(), 2u) << gaps.out;
  std::vector<double> durations = {Num(gap_rows[0], "duration_ns") / 1e6,
                                   Num(gap_rows[1], "duration_ns") / 1e6};
  std::sort(durations.begin(), durations.end());
  EXPECT_DOUBLE_EQ(durations[0], 0.02);
  EXPECT_DOUBLE_EQ(durations[1], 0.05);
}

TEST_F(KinetoCli, ProfilerStepUnitsFromTheAnnotation) {
  CliResult r = RunGpuroof(
      {"analyze", trace_.string(), "--units-from", "nvtx:ProfilerStep#1", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = Rows(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  EXPECT_EQ(rows[0].at("n_frames"), "1") << r.out;
  // The window is the step's work: B, C and the D2H, [200, 320) = 0.12 ms; A is not counted.
  EXPECT_DOUBLE_EQ(Num(rows[0], "window_ms"), 0.12);
  EXPECT_EQ(rows[0].at("kernel_n"), "2");
  EXPECT_DOUBLE_EQ(Num(rows[0], "kernel_busy_ms"), 0.08);
  EXPECT_EQ(rows[0].at("window_range"), "'ProfilerStep#1' (1 instance)");
}

// Two PyTorch steps. The main thread (tid 100) runs forward and launches kernel F; the autograd
// thread (tid 101) launches kernel B while "## backward ##" is open on the main thread. Each
// record_function is written twice, on the CPU thread and on the GPU row (same External id).
// By hand, per step i (0, 1; times in µs + 1000 i): step [0,500), F [100,150), B [200,300);
// work 2 kernels, busy 150 us, span 200 us; the two steps' work spans [100, 1300).
std::string TwoThreadSteps() {
  KinetoJsonBuilder b;
  for (int i = 0; i < 2; ++i) {
    const auto at = [i](int us) { return std::to_string(us + 1000 * i); };
    b.Annotation("ProfilerStep#" + std::to_string(i + 1), at(0), "500", 100, 100, 10 + i)
        .Annotation("## backward ##", at(40), "100", 100, 100, 20 + i)
        .GpuAnnotation("## backward ##", at(200), "100", 0, 7, 20 + i)
        .Runtime("cudaLaunchKernel", at(10), "2", 1 + 2 * i, 100, 100)
        .Runtime("cudaLaunchKernel", at(50), "2", 2 + 2 * i, 100, 101)
        .Kernel("F", at(100), "50", 0, 7, 1 + 2 * i)
        .Kernel("B", at(200), "100", 0, 7, 2 + 2 * i);
  }
  return b.ObjectJson();
}

TEST(KinetoCliSteps, WorkFromEveryThreadAndOneRangePerAnnotation) {
  TempDir dir;
  const std::filesystem::path trace = dir / "steps.pt.trace.json";
  WriteFile(trace, TwoThreadSteps());
  CliResult steps = RunGpuroof(
      {"ranges", trace.string(), "--name", "ProfilerStep#*", "--format", "csv", "--quiet"});
  ASSERT_EQ(steps.exit_code, 0) << steps.err;
  const auto rows = Rows(steps.out);
  ASSERT_EQ(rows.size(), 2u) << steps.out;
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("gpu_ops"), "2");
    EXPECT_EQ(row.at("kernel_busy_ns"), "150000");
  }
  // One row per annotation: "## backward ##" twice, not four times.
  CliResult overview = RunGpuroof({"ranges", trace.string(), "--format", "csv", "--quiet"});
  ASSERT_EQ(overview.exit_code, 0) << overview.err;
  int backward_rows = 0;
  for (const auto& row : Rows(overview.out)) {
    if (row.at("range") != "## backward ##") continue;
    ++backward_rows;
    EXPECT_EQ(row.at("instances"), "2");
  }
  EXPECT_EQ(backward_rows, 1) << overview.out;
  // Units: 2 backward passes for 2 steps, the window their work (kernel B, 100 us each, launched
  // by the autograd thread while the annotation was open).
  CliResult units = RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:## backward ##",
                                "--format", "csv", "--quiet"});
  ASSERT_EQ(units.exit_code, 0) << units.err;
  const auto unit_rows = Rows(units.out);
  ASSERT_EQ(unit_rows.size(), 1u);
  EXPECT_EQ(unit_rows[0].at("n_frames"), "2");
  EXPECT_EQ(unit_rows[0].at("kernel_n"), "2");
  EXPECT_DOUBLE_EQ(Num(unit_rows[0], "kernel_us_per_frame"), 100.0);
  // The step family as units: 2 steps, window [100, 1300) us.
  CliResult family = RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:ProfilerStep#*",
                                 "--format", "csv", "--quiet"});
  ASSERT_EQ(family.exit_code, 0) << family.err;
  const auto family_rows = Rows(family.out);
  EXPECT_EQ(family_rows[0].at("n_frames"), "2");
  EXPECT_DOUBLE_EQ(Num(family_rows[0], "window_ms"), 1.2);
  EXPECT_DOUBLE_EQ(Num(family_rows[0], "kernel_us_per_frame"), 150.0);
}

TEST(KinetoCliErrors, BrokenFilesEndInOneLineAndExitTwo) {
  TempDir dir;
  std::string json = SmallTrace();
  WriteFile(dir / "truncated.json", json.substr(0, json.size() / 2));
  WriteFile(dir / "not_a_trace.json", R"({"epochs": 3})");
  WriteGzip(dir / "whole.json.gz", json);
  std::string gz = ReadFile(dir / "whole.json.gz");
  WriteFile(dir / "truncated.json.gz", gz.substr(0, gz.size() - 40));
  for (const char* name : {"truncated.json", "not_a_trace.json", "truncated.json.gz"}) {
    SCOPED_TRACE(name);
    CliResult r = RunGpuroof({"analyze", (dir / name).string()});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(IsOneErrorLine(r.err)) << r.err;
    EXPECT_NE(r.err.find((dir / name).string()), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
  CliResult truncated = RunGpuroof({"analyze", (dir / "truncated.json").string()});
  EXPECT_NE(truncated.err.find("(at byte "), std::string::npos) << truncated.err;
}

// Two template instances of one kernel and another kernel, each launched by its own call
// (µs): scale<float> [100,101) and [120,121), scale<double> [140,141) and [160,161), other
// [180,190); twelve more 1 µs scale<float>/<double> launches [200+10i, 201+10i), every launch
// call 5 µs long (launch-bound: 16 of 17 kernels shorter than their call).
// A Kineto kernel's name is its demangled signature: the short name (the default key) folds the
// instances, as nsys's shortName does and as compare --kernel-key name does.
constexpr const char* kScaleFloat = "void ns::scale<float>(float*, int)";
constexpr const char* kScaleDouble = "void ns::scale<double>(double*, int)";
std::string TemplateInstancesTrace() {
  KinetoJsonBuilder b;
  b.TopLevel("deviceProperties", R"([{"id": 0, "name": "NVIDIA Test GPU"}])");
  int64_t correlation = 1;
  auto launch = [&](const std::string& name, int start_us, int dur_us) {
    b.Runtime("cudaLaunchKernel", std::to_string(start_us - 10), "5", correlation)
        .Kernel(name, std::to_string(start_us), std::to_string(dur_us), 0, 7, correlation);
    ++correlation;
  };
  launch(kScaleFloat, 100, 1);
  launch(kScaleFloat, 120, 1);
  launch(kScaleDouble, 140, 1);
  launch(kScaleDouble, 160, 1);
  launch("void other(int)", 180, 10);
  for (int i = 0; i < 12; ++i)
    launch(i % 2 == 0 ? kScaleFloat : kScaleDouble, 200 + 10 * i, 1);
  return b.ObjectJson();
}

TEST(KinetoCliKernelNames, DefaultKeyFoldsTemplateInstancesToTheShortName) {
  TempDir dir;
  const std::filesystem::path trace = dir / "instances.pt.trace.json.gz";
  WriteGzip(trace, TemplateInstancesTrace());

  CliResult by_name = RunGpuroof({"kernels", trace.string(), "--format", "json", "-q"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  EXPECT_NE(by_name.out.find("\"keys\": 2,"), std::string::npos) << by_name.out;
  EXPECT_NE(by_name.out.find("\"key\": \"scale\",\n"), std::string::npos) << by_name.out;
  EXPECT_NE(by_name.out.find("\"instances\": 16,"), std::string::npos) << by_name.out;
  EXPECT_EQ(by_name.out.find("void ns::scale"), std::string::npos) << by_name.out;
  CliResult text = RunGpuroof({"kernels", trace.string(), "-q"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.find("#1"), std::string::npos) << text.out;  // one row per short name

  // --key demangled keeps the instances apart; `name` is still the short name.
  CliResult demangled =
      RunGpuroof({"kernels", trace.string(), "--key", "demangled", "--format", "json", "-q"});
  ASSERT_EQ(demangled.exit_code, 0) << demangled.err;
  EXPECT_NE(demangled.out.find("\"keys\": 3,"), std::string::npos) << demangled.out;
  EXPECT_NE(demangled.out.find(std::string("\"key\": \"") + kScaleDouble + "\",\n"),
            std::string::npos)
      << demangled.out;
  EXPECT_EQ(demangled.out.find(std::string("\"name\": \"") + kScaleDouble), std::string::npos)
      << demangled.out;

  // launches --key name (the default) folds them the same way.
  CliResult launches = RunGpuroof({"launches", trace.string(), "--format", "csv", "-q"});
  ASSERT_EQ(launches.exit_code, 0) << launches.err;
  auto rows = Rows(launches.out);
  ASSERT_EQ(rows.size(), 2u) << launches.out;
  std::map<std::string, std::string> launch_count;
  for (const auto& row : rows)
    launch_count[row.at("kernel")] = row.at("launches");
  EXPECT_EQ(launch_count["scale"], "16") << launches.out;
  EXPECT_EQ(launch_count["other"], "1") << launches.out;

  // findings: the launch-bound rule names the kernels by the same short name.
  CliResult findings = RunGpuroof({"findings", trace.string(), "--format", "json", "-q"});
  ASSERT_LE(findings.exit_code, 1) << findings.err;
  EXPECT_NE(findings.out.find("most: scale x16"), std::string::npos) << findings.out;
  EXPECT_EQ(findings.out.find("void ns::scale"), std::string::npos) << findings.out;

  // gaps: JSON before/after are "kernel <short name>".
  CliResult gaps = RunGpuroof({"gaps", trace.string(), "--min", "5us", "--format", "json", "-q"});
  ASSERT_EQ(gaps.exit_code, 0) << gaps.err;
  EXPECT_NE(gaps.out.find("\"before\": \"kernel scale\""), std::string::npos) << gaps.out;
  EXPECT_NE(gaps.out.find("\"after\": \"kernel other\""), std::string::npos) << gaps.out;
}

// gaps text: a label too long for its column is cut after its engine word, never cut down to a
// base name without it; the same label reads the same in both columns.
TEST(KinetoCliKernelNames, GapLabelsKeepTheirEngineWord) {
  const std::string long_name = "void ns::" + std::string(120, 'k') + "<float>(float*, int)";
  TempDir dir;
  const std::filesystem::path trace = dir / "long.pt.trace.json.gz";
  WriteGzip(trace, KinetoJsonBuilder()
                       .Kernel(long_name, "100", "10", 0, 7, 1)
                       .Kernel(long_name, "200", "10", 0, 7, 2)
                       .Kernel("void other(int)", "300", "10", 0, 7, 3)
                       .ObjectJson());
  CliResult gaps = RunGpuroof({"gaps", trace.string(), "--min", "5us", "-q"});
  ASSERT_EQ(gaps.exit_code, 0) << gaps.err;
  // Row 1: kkk… to kkk…; row 2: kkk… to other.
  EXPECT_EQ(gaps.out.find("  kkk"), std::string::npos) << gaps.out;  // no label lost "kernel "
  const std::string cut = "kernel " + std::string(20, 'k');
  size_t first = gaps.out.find(cut);
  ASSERT_NE(first, std::string::npos) << gaps.out;
  EXPECT_NE(gaps.out.find(cut, first + 1), std::string::npos) << gaps.out;
  EXPECT_NE(gaps.out.find("kernel other"), std::string::npos) << gaps.out;
  EXPECT_NE(gaps.out.find("…"), std::string::npos) << gaps.out;
  EXPECT_EQ(gaps.out.find(" #1"), std::string::npos) << gaps.out;  // one full name: no number
}

// Range names are user strings: a range name too long for the ranges table is cut (its printed
// text a prefix of the name, "…" added), not read as a C++ signature ("step(1)_…" -> "step"),
// and an unknown --name lists the closest real names first.
TEST(KinetoCliRangeNames, LongRangeNamesAreCutNotReadAsSignatures) {
  const std::string long_range =
      "execute_context_1(888_788544)_generation_0(0)_" + std::string(150, 'g');
  KinetoJsonBuilder b;
  b.Annotation(long_range, "90", "40").Runtime("cudaLaunchKernel", "95", "2", 1);
  for (int i = 0; i < 9; ++i)
    b.Annotation("a_range_" + std::to_string(i), std::to_string(200 + 10 * i), "5");
  b.Kernel("k", "100", "10", 0, 7, 1);
  TempDir dir;
  const std::filesystem::path trace = dir / "ranges.pt.trace.json.gz";
  WriteGzip(trace, b.ObjectJson());

  CliResult ranges = RunGpuroof({"ranges", trace.string(), "-q"});
  ASSERT_EQ(ranges.exit_code, 0) << ranges.err;
  const size_t at = ranges.out.find("execute_context_1(888_788544)_generation_0(0)_ggg");
  ASSERT_NE(at, std::string::npos) << ranges.out;
  const size_t end = ranges.out.find('\n', at);
  const std::string printed = ranges.out.substr(at, end - at);
  ASSERT_TRUE(printed.ends_with("…")) << printed;
  EXPECT_TRUE(long_range.starts_with(printed.substr(0, printed.size() - std::string("…").size())))
      << printed;

  // The printed (cut) name and a bare prefix are not names; the error lists the real one first.
  for (const std::string& typed : {printed, std::string("execute_context_1")}) {
    CliResult unknown = RunGpuroof({"ranges", trace.string(), "--name", typed});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
    EXPECT_NE(unknown.err.find("no NVTX range named '" + typed + "' (ranges include '" +
                               long_range + "', 'a_range_0'"),
              std::string::npos)
        << unknown.err;
  }
  CliResult units = RunGpuroof({"analyze", trace.string(), "--units-from", "nvtx:execute_context"});
  EXPECT_EQ(units.exit_code, 2) << units.err;
  EXPECT_NE(units.err.find("(ranges include '" + long_range + "'"), std::string::npos) << units.err;
}

TEST(KinetoCliFixtures, RankTraceAnalyzeMatchesTheReference) {
  std::filesystem::path file =
      std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "kineto" / "hta_rank0_a100.json.gz";
  if (!std::filesystem::is_directory(GPUROOF_SHARED_FIXTURES_DIR)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << GPUROOF_SHARED_FIXTURES_DIR;
  }
  ASSERT_TRUE(std::filesystem::exists(file)) << file << " is missing from the shared fixtures";
  CliResult r = RunGpuroof({"analyze", file.string(), "--window", "all", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = Rows(r.out);
  ASSERT_EQ(rows.size(), 1u) << r.out;
  // reference_metrics.json: window 1231461000 ns, D2D 26591000 ns; its kernel busy, 396315000
  // ns, is every kernel's. gpuroof splits that into compute and the 80 NCCL kernels (comm):
  // unions of the raw kernel events, in Python, without and with a name starting "nccl".
  EXPECT_DOUBLE_EQ(Num(rows[0], "window_ms"), 1231.461);
  EXPECT_DOUBLE_EQ(Num(rows[0], "kernel_busy_ms"), 210.998);
  EXPECT_DOUBLE_EQ(Num(rows[0], "comm_busy_ms"), 187.870);
  EXPECT_DOUBLE_EQ(Num(rows[0], "D2D_busy_ms"), 26.591);
}

}  // namespace
}  // namespace gpuroof::testing
