// End-to-end tests of `gpuroof report`: the bars' geometry against a golden SVG and hand-worked
// heights, escaping of names taken from the trace, several traces on one scale, the timeline's
// gap highlight, and bad input that must end in one clear line, exit 2 and no output file.
#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "support/trace_description.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path WriteTrace(const TempDir& dir, const std::string& name,
                                 const std::string& body) {
  std::filesystem::path file = dir / name;
  testsupport::BuildFromDescription("schema 2024\ngpu 0 \"Test GPU\"\n" + body, name, file);
  return file;
}

// The tiny trace of the golden SVG, by hand: processing window [0, 4 us) (first kernel start to
// the later of the last kernel end and the last D2H end); 2 units ->
//   kernel 4 us busy = 2 us/frame, H2D 2 us = 1 us/frame, D2H 1 us = 0.5 us/frame.
constexpr const char* kTinyTrace =
    "kernel start=0 end=4us stream=7 name=k\n"
    "memcpy start=0 end=2us kind=HtoD bytes=4096 src=pinned dst=device stream=8\n"
    "memcpy start=2us end=3us kind=DtoH bytes=4096 src=device dst=pinned stream=9\n";

// The first <svg ...> element whose class is `css_class`.
std::string ExtractSvg(const std::string& html, const std::string& css_class) {
  size_t start = html.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"" + css_class + "\"");
  if (start == std::string::npos) return "";
  size_t end = html.find("</svg>", start);
  return end == std::string::npos ? "" : html.substr(start, end + 6 - start);
}

bool IsOneErrorLine(const std::string& err) {
  return err.rfind("gpuroof: error: ", 0) == 0 && std::count(err.begin(), err.end(), '\n') == 1;
}

TEST(ReportCli, EngineBarsMatchTheGoldenSvgAndTheHandWorkedHeights) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "tiny.sqlite", kTinyTrace);
  std::filesystem::path page = dir / "report.html";
  CliResult r = RunGpuroof({"report", trace.string(), "--units", "2", "-o", page.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::string svg = ExtractSvg(ReadFile(page), "bars");
  ASSERT_FALSE(svg.empty());
  // Heights proportional to busy per unit, the tallest spanning the 240 px plot: 2 : 1 : 0.5.
  EXPECT_NE(svg.find("height=\"240\" class=\"bar e-kernel bottleneck\""), std::string::npos);
  EXPECT_NE(svg.find("height=\"120\" class=\"bar e-H2D\""), std::string::npos);
  EXPECT_NE(svg.find("height=\"60\" class=\"bar e-D2H\""), std::string::npos);
  // The roofline at the top of the tallest bar (y = 40, the top of the plot), across the group's
  // three 66-px slots (html_engine_bars_test.cc works the geometry out).
  EXPECT_NE(svg.find("y1=\"40\" x2=\"398\" y2=\"40\" class=\"roofline\""), std::string::npos);
  std::filesystem::path golden = SourceDir() / "tests" / "golden" / "report_bars.svg";
  EXPECT_EQ(svg + "\n", ReadFile(golden)) << "regenerate by hand only after checking the change";
}

// The engine table's per-unit column is there with --units and left out without (it was a
// column of "-" headed ns/frame), as the text table leaves it out.
TEST(ReportCli, EngineTableHasAPerUnitColumnOnlyWithUnits) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "tiny.sqlite", kTinyTrace);
  const std::filesystem::path plain = dir / "plain.html";
  const std::filesystem::path units = dir / "units.html";
  ASSERT_EQ(RunGpuroof({"report", trace.string(), "-o", plain.string(), "-q"}).exit_code, 0);
  ASSERT_EQ(
      RunGpuroof({"report", trace.string(), "--units", "2", "-o", units.string(), "-q"}).exit_code,
      0);
  EXPECT_EQ(ReadFile(plain).find("/frame</th>"), std::string::npos);
  EXPECT_NE(ReadFile(units).find("/frame</th>"), std::string::npos);
}

TEST(ReportCli, NamesFromTheTraceAreEscapedEverywhere) {
  TempDir dir;
  // The file name and a kernel name carry every character HTML treats specially.
  std::filesystem::path trace = WriteTrace(dir, "a&b<c>.sqlite",
                                           "kernel start=0 end=1ms stream=7 name=\"x<y>&\\\"q'\"\n"
                                           "kernel start=3ms end=4ms stream=7 name=plain\n");
  CliResult r = RunGpuroof({"report", trace.string(), "--gap-min", "1ms"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& html = r.out;
  EXPECT_NE(html.find("x&lt;y&gt;&amp;&quot;q&#39;"), std::string::npos);
  EXPECT_EQ(html.find("x<y>"), std::string::npos);
  EXPECT_EQ(html.find("&\"q"), std::string::npos);
  EXPECT_NE(html.find("a&amp;b&lt;c&gt;.sqlite"), std::string::npos);
  EXPECT_EQ(html.find("b<c>"), std::string::npos);
  // Self-contained: no script, no stylesheet or image fetched from anywhere.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
}

// Kernels [0,1.1ms) and [3.3ms,4.4ms): one 2.2 ms gap. The timeline spans [0, 4.4 ms) in 880
// bins of 5 us, one per pixel from x = 80, so the gap is drawn from 80 + 880/4 = 300 to
// 80 + 880*3/4 = 740, and the first kernel fills bins 0-219 (x 80 to 300) completely.
TEST(ReportCli, TimelineHighlightsTheGapWhereItIs) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "gap.sqlite",
                                           "kernel start=0 end=1.1ms stream=7 name=a\n"
                                           "kernel start=3.3ms end=4.4ms stream=7 name=b\n");
  CliResult r = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = ExtractSvg(r.out, "timeline");
  ASSERT_FALSE(svg.empty());
  EXPECT_NE(svg.find("<rect x=\"300\" y=\"18\" width=\"440\" height=\"28\" class=\"gap\">"
                     "<title>gap 1: 2.200 ms idle from 1.100 ms (after kernel a, before kernel "
                     "b)</title>"),
            std::string::npos)
      << svg;
  EXPECT_NE(
      svg.find("<rect x=\"80\" y=\"18\" width=\"220\" height=\"22\" class=\"busy e-kernel\"/>"),
      std::string::npos);
  EXPECT_NE(
      svg.find("<rect x=\"740\" y=\"18\" width=\"220\" height=\"22\" class=\"busy e-kernel\"/>"),
      std::string::npos);
}

// Every time on the page counts from the trace's first GPU op, the timeline's too: device 1
// starts 10 ms after device 0, so its gap reads "from 11.100 ms", as `gpuroof gaps` says, and its
// axis starts at 10 ms, not 0.
TEST(ReportCli, TimelineTimesCountFromTheTracesFirstGpuOp) {
  TempDir dir;
  std::filesystem::path trace =
      WriteTrace(dir, "late.sqlite",
                 "gpu 1 \"Second GPU\"\n"
                 "kernel start=0 end=4.4ms stream=7 name=a\n"
                 "kernel start=10ms end=11.1ms dev=1 stream=9 name=c\n"
                 "kernel start=13.3ms end=14.4ms dev=1 stream=9 name=d\n");
  const CliResult gaps = RunGpuroof({"gaps", trace.string()});
  ASSERT_EQ(gaps.exit_code, 0) << gaps.err;
  EXPECT_NE(gaps.out.find("11.100"), std::string::npos) << gaps.out;
  const CliResult r = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Device 0 has no gap and its axis starts at 0: what is found is device 1's.
  EXPECT_NE(r.out.find("gap 1: 2.200 ms idle from 11.100 ms"), std::string::npos);
  EXPECT_NE(r.out.find("class=\"tick\">10.000 ms</text>"), std::string::npos);
}

// Per-unit bars need units on every device (one scale): when a device has none, the page says
// which, not "give --units" when units were given.
TEST(ReportCli, BarsSayWhichDeviceLacksUnits) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "two.sqlite",
                                           "gpu 1 \"Second GPU\"\n"
                                           "kernel start=0 end=1ms stream=7 name=frame\n"
                                           "kernel start=1ms end=2ms stream=7 name=frame\n"
                                           "kernel start=0 end=1ms dev=1 stream=9 name=other\n");
  const CliResult r = RunGpuroof({"report", trace.string(), "--units-from", "kernel:frame"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("give --units for per-unit bars"), std::string::npos);
  const size_t explain = r.out.find("<p class=\"explain\">Busy time");
  ASSERT_NE(explain, std::string::npos);
  EXPECT_NE(r.out.find("(no units on device 1, so every bar shows busy time)"), std::string::npos)
      << r.out.substr(explain, 300);
}

TEST(ReportCli, SeveralTracesShareOneScale) {
  TempDir dir;
  std::filesystem::path a = WriteTrace(dir, "a.sqlite", kTinyTrace);
  // Half the kernel time of trace a, same units: its kernel bar is half as tall (120 px).
  std::filesystem::path b = WriteTrace(dir, "b.sqlite", "kernel start=0 end=2us stream=7 name=k\n");
  CliResult r = RunGpuroof({"report", a.string(), b.string(), "--units", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = ExtractSvg(r.out, "bars");
  EXPECT_NE(svg.find(">#1 · device 0</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">#2 · device 0</text>"), std::string::npos);
  EXPECT_NE(svg.find("height=\"240\" class=\"bar e-kernel bottleneck\""), std::string::npos);
  EXPECT_NE(svg.find("height=\"120\" class=\"bar e-kernel bottleneck\""), std::string::npos);
}

TEST(ReportCli, ExampleShowsTheReadingLineOfAnalyze) {
  std::string example = (SourceDir() / "examples" / "frame_pipeline.sqlite").string();
  CliResult analyze = RunGpuroof({"analyze", example, "--units", "2000"});
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  // The reading line is the last non-empty line of analyze's table.
  std::string text = analyze.out;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  std::string reading = text.substr(text.rfind('\n') + 1);
  ASSERT_EQ(reading.rfind("H2D binds at", 0), 0u) << reading;
  CliResult r = RunGpuroof({"report", example, "--units", "2000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<span class=\"reading\">" + reading + "</span>"), std::string::npos);
  EXPECT_NE(r.out.find("process_frame"), std::string::npos);          // top kernels
  EXPECT_NE(r.out.find("H2D Pinned-&gt;Device"), std::string::npos);  // copies
  EXPECT_NE(r.out.find("class=\"overlap\""), std::string::npos);      // heat table
}

TEST(ReportCli, NvtxRangesGetATableWithEscapedNames) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "nvtx.sqlite",
                                           "kernel start=0 end=1ms stream=7 name=a\n"
                                           "nvtx start=0 end=2ms text=\"step<1>\"\n");
  CliResult r = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<table class=\"ranges\">"), std::string::npos);
  EXPECT_NE(r.out.find("<td class=\"name\">step&lt;1&gt;</td>"), std::string::npos) << r.out;
  // Without ranges there is no such section.
  std::filesystem::path plain = WriteTrace(dir, "plain.sqlite", kTinyTrace);
  CliResult p = RunGpuroof({"report", plain.string()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(p.out.find("NVTX ranges"), std::string::npos);
}

// What the attribution leaves out is on the page as `gpuroof ranges` says it: a launch from
// another thread while the range was open (not counted under --attribute thread), a kernel no API
// call launched.
TEST(ReportCli, NvtxRangesSayWhatTheyLeaveOut) {
  TempDir dir;
  std::filesystem::path trace =
      WriteTrace(dir, "attribution.sqlite",
                 "nvtx start=0 end=2ms text=\"step\" tid=1\n"
                 "api start=0 end=10us corr=1 tid=1\n"
                 "kernel start=20us end=1ms stream=7 corr=1 name=mine\n"
                 "api start=0 end=10us corr=2 tid=2\n"
                 "kernel start=20us end=500us stream=8 corr=2 name=other_thread\n"
                 "kernel start=1ms end=1500us stream=7 corr=9 name=unlaunched\n");
  const CliResult ranges = RunGpuroof({"ranges", trace.string()});
  ASSERT_EQ(ranges.exit_code, 0) << ranges.err;
  const CliResult page = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  int notes = 0;
  std::istringstream lines(ranges.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("note: ", 0) != 0) continue;
    ++notes;
    std::string escaped;
    for (char c : line)
      escaped += c == '\'' ? std::string("&#39;") : std::string(1, c);
    EXPECT_NE(page.out.find("<p class=\"note\">" + escaped + "</p>"), std::string::npos) << line;
  }
  EXPECT_GE(notes, 2) << ranges.out;
  // The findings keep the --window when NVTX units narrow the bars to the ranges' work: said.
  EXPECT_NE(page.out.find("default thresholds, the page&#39;s window)"), std::string::npos);
  const CliResult narrowed = RunGpuroof({"report", trace.string(), "--units-from", "nvtx:step"});
  ASSERT_EQ(narrowed.exit_code, 0) << narrowed.err;
  EXPECT_NE(narrowed.out.find("default thresholds, window processing, not the ranges&#39; work "
                              "the bars show)"),
            std::string::npos);
}

// A sweep's results folder holds env.json beside its traces: the header shows where and with what
// they were recorded, and flags a dirty tree.
// The timeline marks where the warm-up ends. The example's processing window runs from 1.016 ms
// to 33.708 ms; without --units-from the series is 50 slices of (33.708 - 1.016) / 50 = 0.654 ms,
// and MSER-5 drops the first (the pipeline filling), so the steady state starts at 1.670 ms.
TEST(ReportCli, TimelineMarksWhereTheWarmUpEnds) {
  const std::string example = (SourceDir() / "examples" / "frame_pipeline.sqlite").string();
  const CliResult r = RunGpuroof({"report", example, "--units", "2000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("steady from 1.670 ms after the first GPU op: MSER-5 over 50 slices (busy time "
                 "of H2D) dropped 1 unit of warm-up"),
      std::string::npos);
  // On the 880-px plot of 0..33.708 ms from x = 80: 80 + 880 * 1.670 / 33.708 = 123.6.
  EXPECT_NE(r.out.find("<line x1=\"123.6\" y1=\"18\" x2=\"123.6\" y2=\"102\" class=\"steady\"/>"),
            std::string::npos);
  // With --window steady the window itself starts there, labelled so: no second marker.
  const CliResult steady =
      RunGpuroof({"report", example, "--units-from", "kernel:process_frame", "--window", "steady"});
  ASSERT_EQ(steady.exit_code, 0) << steady.err;
  EXPECT_EQ(steady.out.find("class=\"steady\""), std::string::npos);
  EXPECT_NE(steady.out.find(">steady state</text>"), std::string::npos);
  // Too few units for MSER-5: the page says why there is no marker.
  TempDir dir;
  const auto few = WriteTrace(dir, "few.sqlite", kTinyTrace);
  const CliResult short_series = RunGpuroof({"report", few.string(), "--units-from", "kernel:k"});
  ASSERT_EQ(short_series.exit_code, 0) << short_series.err;
  EXPECT_NE(short_series.out.find("note: steady state not marked: "), std::string::npos);
}

// --window steady finds the warm-up over the series the units follow, as `analyze` does (not 50
// slices of busy time), and refuses a fixed count, which cannot be split between the warm-up and
// the steady state.
TEST(ReportCli, SteadyWindowIsAnalyzes) {
  const std::string example = (SourceDir() / "examples" / "frame_pipeline.sqlite").string();
  const std::string window =
      "window steady: 1.033 ms to 33.708 ms after the first GPU op, 32.675 ms long · 1999 frames";
  const CliResult analyze = RunGpuroof(
      {"analyze", example, "--units-from", "kernel:process_frame", "--window", "steady"});
  ASSERT_EQ(analyze.exit_code, 0) << analyze.err;
  EXPECT_NE(analyze.out.find(window), std::string::npos) << analyze.out;
  const CliResult report =
      RunGpuroof({"report", example, "--units-from", "kernel:process_frame", "--window", "steady"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(report.out.find(window), std::string::npos);
  TempDir dir;
  const std::filesystem::path page = dir / "fixed.html";
  const CliResult fixed =
      RunGpuroof({"report", example, "--units", "50", "--window", "steady", "-o", page.string()});
  EXPECT_EQ(fixed.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(fixed.err)) << fixed.err;
  EXPECT_NE(fixed.err.find("--units: a fixed count cannot be split"), std::string::npos)
      << fixed.err;
  EXPECT_FALSE(std::filesystem::exists(page));
}

TEST(ReportCli, HeaderShowsTheCampaignEnvStamp) {
  TempDir dir;
  const std::filesystem::path trace = WriteTrace(dir, "t.sqlite", kTinyTrace);
  WriteFile(dir / "env.json",
            R"({"schema": "gpuroof.env/1", "timestamp": "2026-11-30T08:00:00Z", "host": "lab<1>",
  "git": {"rev": "abc123def456", "branch": "main", "dirty": true},
  "build": {"identity": "v1.2-f64", "source": "regex"},
  "gpus": {"source": "nvml", "note": "", "driver": "565.57",
           "devices": [{"name": "NVIDIA H200", "utilisation_pct": 3},
                       {"name": "NVIDIA H200", "utilisation_pct": 0}]},
  "gpu_utilisation_at_start_pct": 3, "nvcc_version": "release 13.0", "gpuroof_version": "0.1.0"})");
  const CliResult r = RunGpuroof({"report", trace.string(), "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<td class=\"warn\">abc123def456 (main, dirty: uncommitted changes)</td>"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("<td>v1.2-f64 (from regex)</td>"), std::string::npos);
  EXPECT_NE(r.out.find("<td>2 x NVIDIA H200, driver 565.57</td>"), std::string::npos);
  EXPECT_NE(r.out.find("<td>lab&lt;1&gt;</td>"), std::string::npos);

  // An unreadable stamp is said, on stderr and on the page; the page is still made.
  WriteFile(dir / "env.json", "{\"schema\": \"other\"}");
  const CliResult bad = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(bad.exit_code, 0) << bad.err;
  EXPECT_NE(bad.err.find("env.json"), std::string::npos) << bad.err;
  EXPECT_NE(bad.out.find("env stamp unreadable: not an env stamp"), std::string::npos);

  const CliResult missing =
      RunGpuroof({"report", trace.string(), "--env", (dir / "nope.json").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(missing.out, "");
  EXPECT_TRUE(IsOneErrorLine(missing.err)) << missing.err;
  // A stamp the user named is an error when it is no stamp, or a directory: not a quiet note.
  const CliResult named_bad =
      RunGpuroof({"report", trace.string(), "--env", (dir / "env.json").string(), "-q"});
  EXPECT_EQ(named_bad.exit_code, 2);
  EXPECT_EQ(named_bad.out, "");
  EXPECT_TRUE(IsOneErrorLine(named_bad.err)) << named_bad.err;
  EXPECT_NE(named_bad.err.find("not an env stamp"), std::string::npos) << named_bad.err;
  const CliResult folder = RunGpuroof({"report", trace.string(), "--env", dir.path().string()});
  EXPECT_EQ(folder.exit_code, 2);
  EXPECT_NE(folder.err.find("cannot open the env stamp: is a directory"), std::string::npos)
      << folder.err;
}

// The section of the page between the heading `h2` and the next <h2> (or the end).
std::string SectionOf(const std::string& html, const std::string& h2) {
  size_t start = html.find("<h2>" + h2 + "</h2>");
  if (start == std::string::npos) return "";
  size_t end = html.find("<h2>", start + 4);
  return html.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// A cudaDeviceSynchronize (250-1400 us) returns after the first kernel (300-1300 us); the next
// kernel starts at 1700 us. By hand: the GPU is idle from 1300 to 1700 us after the call began,
// 400 us = 400000 ns for sync-call; the same gap (longer than findings' default 100 us) is a
// gpu-gap of 400 us caused by the sync. The processing window is 300-2700 us (2400 us): both are
// above the 1 % minimum cost (24 us). The second sync has no op after it: no cost.
constexpr const char* kSyncTrace =
    "api start=100us end=200us corr=1 name=cudaLaunchKernel_v7000\n"
    "kernel start=300us end=1300us stream=7 corr=1 name=k\n"
    "api start=250us end=1400us corr=2 name=cudaDeviceSynchronize_v3020\n"
    "api start=1500us end=1600us corr=3 name=cudaLaunchKernel_v7000\n"
    "kernel start=1700us end=2700us stream=7 corr=3 name=k\n"
    "api start=1650us end=2800us corr=4 name=cudaDeviceSynchronize_v3020\n";

TEST(ReportCli, FindingsSectionListsEachFindingWithCostEvidenceAndAdvice) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(dir, "sync.sqlite", kSyncTrace);
  CliResult r = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string section = SectionOf(r.out, "Findings");
  ASSERT_FALSE(section.empty()) << r.out;
  // Costliest first; equal costs (400 us each) by id: gpu-gap, then sync-call.
  size_t gap = section.find(">gpu-gap<");
  size_t sync = section.find(">sync-call<");
  ASSERT_NE(gap, std::string::npos) << section;
  ASSERT_NE(sync, std::string::npos) << section;
  EXPECT_LT(gap, sync);
  EXPECT_NE(section.find("Synchronising CUDA calls leave the GPU idle"), std::string::npos);
  EXPECT_NE(section.find("400.000 us in all"), std::string::npos) << section;  // the evidence
  EXPECT_NE(section.find("synchronising call cudaDeviceSynchronize"), std::string::npos);
  EXPECT_NE(section.find("Remove synchronisation from the steady-state loop"), std::string::npos);
  EXPECT_EQ(section.find("no findings"), std::string::npos);
  // The same findings as `gpuroof findings` prints, with the same costs.
  CliResult json = RunGpuroof({"findings", trace.string(), "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find("\"id\": \"sync-call\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"cost_ns\": 400000"), std::string::npos) << json.out;
}

// With steps, the page says where each finding's cost fell, as `gpuroof findings` does: the worst
// step and the part outside every step (cost/step spreads the whole cost over the steps).
TEST(ReportCli, FindingsSectionSaysWhereTheCostFellAmongTheSteps) {
  TempDir dir;
  std::filesystem::path trace = WriteTrace(
      dir, "steps.sqlite", std::string(kSyncTrace) + "nvtx start=0 end=1250us text=\"step\"\n");
  const CliResult findings = RunGpuroof({"findings", trace.string(), "--iteration-range", "step"});
  ASSERT_EQ(findings.exit_code, 0) << findings.err;
  const CliResult r = RunGpuroof({"report", trace.string(), "--iteration-range", "step"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int lines = 0;
  std::istringstream text(findings.out);
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("  per step: ", 0) != 0) continue;
    ++lines;
    std::string escaped;
    for (char c : line.substr(2))
      escaped += c == '\'' ? std::string("&#39;") : std::string(1, c);
    EXPECT_NE(r.out.find(": " + escaped + "</p>"), std::string::npos) << line;
  }
  EXPECT_GE(lines, 1) << findings.out;
  EXPECT_NE(findings.out.find("outside every step"), std::string::npos) << findings.out;
}

TEST(ReportCli, FindingsSectionSaysNoFindingsAndCanBeLeftOut) {
  TempDir dir;
  // Back-to-back kernels on one stream, no API calls: nothing to fix.
  std::filesystem::path trace = WriteTrace(dir, "busy.sqlite",
                                           "kernel start=0 end=1ms stream=7 name=a\n"
                                           "kernel start=1ms end=2ms stream=7 name=b\n");
  CliResult r = RunGpuroof({"report", trace.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string section = SectionOf(r.out, "Findings");
  ASSERT_FALSE(section.empty()) << r.out;
  EXPECT_NE(section.find(">no findings<"), std::string::npos) << section;
  EXPECT_NE(section.find("the trace has no CUDA API calls"), std::string::npos) << section;
  EXPECT_EQ(section.find("<table"), std::string::npos);

  CliResult without = RunGpuroof({"report", trace.string(), "--no-findings"});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(without.out.find("<h2>Findings</h2>"), std::string::npos);
  EXPECT_NE(without.out.find("<h2>Top kernels and copies</h2>"), std::string::npos);
}

TEST(ReportCli, BadInputIsOneLineExitTwoAndNoOutputFile) {
  TempDir dir;
  std::filesystem::path page = dir / "report.html";
  CliResult missing =
      RunGpuroof({"report", (dir / "missing.sqlite").string(), "-o", page.string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(missing.err)) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(page));

  // A good page already there survives a failed run.
  WriteFile(page, "good page\n");
  std::filesystem::path trace = WriteTrace(dir, "t.sqlite", kTinyTrace);
  CliResult bad_gap = RunGpuroof({"report", trace.string(), "--gap-min", "0", "-o", page.string()});
  EXPECT_EQ(bad_gap.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(bad_gap.err)) << bad_gap.err;
  EXPECT_NE(bad_gap.err.find("--gap-min"), std::string::npos);
  CliResult bad_window =
      RunGpuroof({"report", trace.string(), "--window", "nvtx:nope", "-o", page.string()});
  EXPECT_EQ(bad_window.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(bad_window.err)) << bad_window.err;
  EXPECT_EQ(ReadFile(page), "good page\n");

  CliResult unwritable =
      RunGpuroof({"report", trace.string(), "-o", (dir / "no" / "such" / "dir.html").string()});
  EXPECT_EQ(unwritable.exit_code, 2);
  EXPECT_TRUE(IsOneErrorLine(unwritable.err)) << unwritable.err;

  CliResult json = RunGpuroof({"report", trace.string(), "--format", "json"});
  EXPECT_EQ(json.exit_code, 2);
}

}  // namespace
}  // namespace gpuroof::testing
