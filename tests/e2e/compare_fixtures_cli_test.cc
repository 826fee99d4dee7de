// End-to-end tests of `gpuroof compare` on the shared real traces (../shared/fixtures), one per
// case of issue 14: a LOW-N gate is not a plain PASS, a gate that checked nothing (or whose rows
// are INCONCLUSIVE) says so, per-kernel warm-up is disclosed, devices are matched by position,
// and different GPUs can be diffed with --across-hardware. Skipped, loudly, when the folder is
// absent; a file missing from it fails. Expected figures are worked out from the raw rows (the
// sqlite3 queries and the fixtures' PROVENANCE.md reference figures quoted in each test), not
// from the program's output.
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli_runner.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path Fixture(const std::string& relative) {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / relative;
}

// Skips the test when the shared folder is absent; fails when it lacks one of `files`.
#define REQUIRE_FIXTURES(...)                                                                \
  do {                                                                                       \
    if (!std::filesystem::is_directory(GPUROOF_SHARED_FIXTURES_DIR)) {                       \
      GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at "                        \
                   << GPUROOF_SHARED_FIXTURES_DIR;                                           \
    }                                                                                        \
    for (const std::string& file : {__VA_ARGS__}) {                                          \
      ASSERT_TRUE(std::filesystem::exists(Fixture(file))) << Fixture(file) << " is missing"; \
    }                                                                                        \
  } while (false)

const std::string kSaxpy0 = "nsys/nsys2021_5_saxpy_rank0.sqlite";
const std::string kSaxpy1 = "nsys/nsys2021_5_saxpy_rank1.sqlite";
const std::string kGaussianA = "nsys/nsys2022_4_gaussian_grid256_a.sqlite";
const std::string kGaussianB = "nsys/nsys2022_4_gaussian_grid256_b.sqlite";
// Kernels are keyed by their demangled name (sqlite3: demangledName of Fan2 in StringIds).
const std::string kFan2Label =
    "Fan2(float *, float *, float *, int, int, int) <<<(256,256,1),(16,16,1)>>>";
const std::string kFan2 = "kernel:" + kFan2Label;

// `out` with its wrapped context lines joined back (a continuation line is indented by two
// spaces: docs/formats.md, "Tables").
std::string Unwrapped(std::string out) {
  for (size_t wrap = out.find("\n  "); wrap != std::string::npos; wrap = out.find("\n  ", wrap))
    out.replace(wrap, 3, " ");
  return out;
}

// The context line that starts with `prefix`, whole (joined back where it wraps).
std::string Line(const std::string& out, const std::string& prefix) {
  const std::string text = Unwrapped(out);
  const size_t at = text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  return text.substr(at + 1, text.find('\n', at + 1) - at - 1);
}

// The metric object with `id` in a gpuroof.compare/1 document.
simdjson::dom::element Metric(simdjson::dom::element doc, const std::string& id) {
  for (simdjson::dom::element m : doc["metrics"].get_array()) {
    if (std::string_view(m["id"].get_string()) == id) return m;
  }
  ADD_FAILURE() << "no metric " << id;
  return doc;
}

uint64_t SummaryCount(simdjson::dom::element doc, const char* key) {
  return doc["summary"][key].get_uint64().value();
}

// Rows counted from the metrics array, to hold the summary against.
std::map<std::string, uint64_t> VerdictsOfRows(simdjson::dom::element doc) {
  std::map<std::string, uint64_t> rows;
  for (simdjson::dom::element m : doc["metrics"].get_array())
    ++rows[std::string(std::string_view(m["verdict"].get_string()))];
  return rows;
}

void ExpectSummaryRowsMatch(simdjson::dom::element doc) {
  std::map<std::string, uint64_t> summary;
  for (auto [verdict, count] : doc["summary"]["rows"].get_object())
    summary[std::string(verdict)] = count.get_uint64().value();
  EXPECT_EQ(summary, VerdictsOfRows(doc));
}

// Issue 14, cases 1 and 4. The NVTX range "saxpy" has 5 instances per rank (sqlite3: SELECT
// end-start FROM NVTX_EVENTS WHERE text='saxpy'): rank 0 72777, 79110, 51047, 51948, 10074131 ns;
// rank 1 107793, 84960, 103786, 83928, 61005 ns. Warm-up auto drops the first (5 iterations are
// one MSER batch: nothing to compare, so the minimum of one), leaving 4 < 6 steps a side.
// Medians: (51948 + 79110) / 2 = 65529 and (83928 + 84960) / 2 = 84444 -> ratio 1.28865, +28.9%,
// over 1 + 3% floor + 2% min-effect. Each step launches one saxpy kernel (KERNEL rows: rank 0 on
// device 0, rank 1 on device 1); kept durations 20230763, 20183884, 20044429, 19198903 and
// 19933837, 19916782, 19913582, 19949966 ns: GPU busy medians 20114156.5 and 19925309.5 (-0.9%).
// Gated: iteration time, GPU busy, and the kernel (100% of the kernel time, impact far above
// 0.5%): 3, all LOW-N.
TEST(CompareFixturesCli, LowNIsPassWithWarningsNotPass) {
  REQUIRE_FIXTURES(kSaxpy0, kSaxpy1);
  TempDir dir;
  const std::vector<std::string> args = {"compare",
                                         "--baseline",
                                         Fixture(kSaxpy0).string(),
                                         "--current",
                                         Fixture(kSaxpy1).string(),
                                         "--iteration-range",
                                         "saxpy"};
  std::vector<std::string> with_outputs = args;
  for (const char* option : {"--json", "--markdown", "--html"})
    with_outputs.insert(with_outputs.end(), {option, (dir / option).string()});
  const CliResult r = RunGpuroof(with_outputs);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string result = Line(r.out, "result: ");
  EXPECT_EQ(result.rfind("result: PASS WITH WARNINGS: ", 0), 0u) << r.out;
  EXPECT_NE(result.find("iteration time LOW-N (+28.9% over threshold), 4 < 6 steps"),
            std::string::npos)
      << result;
  EXPECT_NE(result.find("GPU busy LOW-N (-0.9%, under threshold), 4 < 6 steps"), std::string::npos)
      << result;
  EXPECT_NE(result.find("nothing checked: all 3 gated metric(s) are LOW-N"), std::string::npos);
  EXPECT_EQ(Line(r.out, "summary: ").rfind("summary: 6 metrics: 3 gated (0 checked, 3 LOW-N", 0),
            0u)
      << r.out;

  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.load((dir / "--json").string()).value();
  EXPECT_EQ(std::string_view(doc["verdict"].get_string()), "pass-with-warnings");
  EXPECT_EQ(doc["exit_code"].get_int64().value(), 0);
  EXPECT_GE(doc["verdict_reasons"].get_array().size(), 3u);
  EXPECT_EQ(SummaryCount(doc, "gated"), 3u);
  EXPECT_EQ(SummaryCount(doc, "checked"), 0u);
  EXPECT_EQ(SummaryCount(doc, "low_n"), 3u);
  ExpectSummaryRowsMatch(doc);
  const simdjson::dom::element iteration = Metric(doc, "iteration");
  EXPECT_EQ(iteration["baseline"]["median"].get_double().value(), 65529.0);
  EXPECT_EQ(iteration["current"]["median"].get_double().value(), 84444.0);
  EXPECT_NEAR(iteration["ratio"]["estimate"].get_double().value(), 84444.0 / 65529.0, 1e-12);
  EXPECT_TRUE(iteration["low_n_over_threshold"].get_bool().value());

  // s34 review2 P6: each range only launches its kernel, which then runs ~20 ms without a gap:
  // no idle inside the iteration's length (it read 20.114 ms, the kernel's busy time, capped at
  // the length). The rest of each window to the next step's first kernel is said in one note a
  // profile, not a warning (python over the KERNEL rows: medians 175311755.5, 165921389 ns).
  EXPECT_EQ(Metric(doc, "idle:0")["baseline"]["median"].get_double().value(), 0.0);
  EXPECT_EQ(Metric(doc, "idle:0")["current"]["median"].get_double().value(), 0.0);
  size_t idle_notes = 0;
  std::istringstream text(Unwrapped(r.out));
  for (std::string line; std::getline(text, line);) {
    if (line.find("GPU idle / iter: counted within") == std::string::npos) continue;
    ++idle_notes;
    EXPECT_EQ(line.rfind("note: ", 0), 0u) << line;
    EXPECT_NE(line.find("on 4 of 4 steady iteration(s)"), std::string::npos) << line;
  }
  EXPECT_EQ(idle_notes, 2u) << r.out;
  EXPECT_NE(r.out.find("first op 175.312 ms"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first op 165.921 ms"), std::string::npos) << r.out;

  // Case 4: device 0 against device 1 is one GPU busy metric, matched by position, and said.
  const simdjson::dom::element busy = Metric(doc, "busy:kernel:0");
  EXPECT_EQ(busy["baseline"]["median"].get_double().value(), 20114156.5);
  EXPECT_EQ(busy["current"]["median"].get_double().value(), 19925309.5);
  EXPECT_TRUE(busy["gated"].get_bool().value());
  const std::map<std::string, uint64_t> rows = VerdictsOfRows(doc);
  EXPECT_EQ(rows.count("new") + rows.count("removed"), 0u) << r.out;
  EXPECT_EQ(std::string_view(doc["inputs"]["devices"]["matching"].get_string()), "position");
  EXPECT_EQ(doc["inputs"]["devices"]["baseline"].at(0).get_int64().value(), 0);
  EXPECT_EQ(doc["inputs"]["devices"]["current"].at(0).get_int64().value(), 1);
  EXPECT_NE(r.out.find("\ndevices: one active GPU per profile, matched by position (baseline "
                       "device 0, current device 1)\n"),
            std::string::npos)
      << r.out;

  // Not green anywhere.
  const std::string md = ReadFile(dir / "--markdown");
  EXPECT_EQ(md.rfind("### ⚠️ GPU performance gate: PASS WITH WARNINGS: ", 0), 0u) << md;
  EXPECT_EQ(md.find("✅ GPU performance gate: pass"), std::string::npos);
  const std::string html = ReadFile(dir / "--html");
  EXPECT_NE(html.find("<p class=\"status warn\">PASS WITH WARNINGS: "), std::string::npos);
  EXPECT_EQ(html.find("status pass"), std::string::npos);

  // Exit 1 only when asked: --low-n gate (iteration time is over threshold) or --fail-on
  // inconclusive (nothing was checked).
  std::vector<std::string> gate = args;
  gate.insert(gate.end(), {"--low-n", "gate"});
  const CliResult low_n_gate = RunGpuroof(gate);
  EXPECT_EQ(low_n_gate.exit_code, 1) << low_n_gate.out;
  EXPECT_EQ(Line(low_n_gate.out, "result: "), "result: REGRESSION (1 gated metric) -> exit 1");
  std::vector<std::string> fail_on = args;
  fail_on.insert(fail_on.end(), {"--fail-on", "inconclusive"});
  const CliResult inconclusive = RunGpuroof(fail_on);
  EXPECT_EQ(inconclusive.exit_code, 1) << inconclusive.out;
  EXPECT_EQ(Line(inconclusive.out, "result: ")
                .rfind("result: INCONCLUSIVE (--fail-on inconclusive): nothing checked", 0),
            0u)
      << inconclusive.out;
}

// Issue 14, case 2: an A/A run (the same two profiles on both sides). Every run-level ratio is
// exactly 1, so no kernel's impact reaches the gating threshold; Fan2 (99% of the kernel time)
// is checked below it, and its interval is wide: with two runs a side, each side's run summaries
// are ln 126224 and ln 118591.5 (the medians of Fan2's launches after the first, sqlite3: the
// 2047th and 2048th of the 4094 sorted durations, (126208 + 126240) / 2 and
// (118495 + 118688) / 2), so SE = |ln(126224 / 118591.5)| / sqrt(2), df = 2, and the 99% ratio
// interval is exp(+-t SE) with t_{0.995,2} = 0.99 / sqrt(2 * 0.995 * 0.005): [-35.5%, +54.9%] —
// a 5% regression is not ruled out.
TEST(CompareFixturesCli, AaRunWithAnInconclusiveRowIsNotAPass) {
  REQUIRE_FIXTURES(kGaussianA, kGaussianB);
  TempDir dir;
  const std::string a = Fixture(kGaussianA).string();
  const std::string b = Fixture(kGaussianB).string();
  const CliResult r = RunGpuroof({"compare", "--baseline", a, b, "--current", a, b, "--json",
                                  (dir / "g.json").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.load((dir / "g.json").string()).value();
  EXPECT_EQ(std::string_view(doc["verdict"].get_string()), "pass-with-warnings");
  ExpectSummaryRowsMatch(doc);
  // Gated: the compute kernel time of the kernel-only mode, as wide as Fan2 (its whole weight).
  EXPECT_EQ(SummaryCount(doc, "gated"), 1u);
  EXPECT_EQ(SummaryCount(doc, "inconclusive"), VerdictsOfRows(doc)["inconclusive"]);
  EXPECT_EQ(SummaryCount(doc, "inconclusive"), 2u);
  const simdjson::dom::element fan2 = Metric(doc, kFan2);
  EXPECT_EQ(fan2["ratio"]["estimate"].get_double().value(), 1.0);
  EXPECT_TRUE(fan2["below_impact"].get_bool().value());
  const double se = std::log(126224.0 / 118591.5) / std::sqrt(2.0);
  const double t = 0.99 / std::sqrt(2.0 * 0.995 * 0.005);
  EXPECT_NEAR(fan2["ratio"]["ci"].at(0).get_double().value(), std::exp(-t * se), 1e-9);
  EXPECT_NEAR(fan2["ratio"]["ci"].at(1).get_double().value(), std::exp(t * se), 1e-9);
  const std::string result = Line(r.out, "result: ");
  // The same two files on both sides: said first (a run compared with itself), then the rows.
  EXPECT_NE(result.find("PASS WITH WARNINGS: the same profile on both sides: 2 of 2 current "
                        "profile(s) are baseline ones: "),
            std::string::npos)
      << r.out;
  EXPECT_NE(result.find("compute kernel time INCONCLUSIVE"), std::string::npos) << r.out;
  EXPECT_NE(result.find("kernel " + kFan2Label +
                        " INCONCLUSIVE "
                        "(+0.0% [-35.5%, +54.9%]): a 5% regression is not ruled out"),
            std::string::npos)
      << r.out;
  EXPECT_NE(Line(r.out, "summary: ").find("rows: 2 INCONCLUSIVE, 1 ~"), std::string::npos) << r.out;

  const CliResult fail = RunGpuroof(
      {"compare", "--baseline", a, b, "--current", a, b, "--fail-on", "inconclusive", "--quiet"});
  EXPECT_EQ(fail.exit_code, 1) << fail.out;
}

// Issue 14, case 3. Fan2 has 4095 launches in each gaussian_grid256 file (sqlite3: SELECT count(*)
// FROM CUPTI_ACTIVITY_KIND_KERNEL JOIN StringIds ON id = shortName WHERE value = 'Fan2'). MSER-5
// reaches its cap (819 batches, d* = 409: 2045 launches) — no steady state — so only the first
// launch is dropped, and that is reported per metric. Kept medians 126224 and 118591.5 ns (see
// above): Fan2 got faster, as its total time did (765645556 -> 700934512 ns, sqlite3 sum), where
// dropping the cap's 2045 launches made it look 1.4% slower.
TEST(CompareFixturesCli, PerKernelWarmupIsDisclosed) {
  REQUIRE_FIXTURES(kGaussianA, kGaussianB);
  TempDir dir;
  const std::string a = Fixture(kGaussianA).string();
  const std::string b = Fixture(kGaussianB).string();
  const CliResult r = RunGpuroof({"compare", a, b, "--json", (dir / "g.json").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.load((dir / "g.json").string()).value();
  const simdjson::dom::element fan2 = Metric(doc, kFan2);
  for (const char* side : {"baseline", "current"}) {
    SCOPED_TRACE(side);
    EXPECT_EQ(fan2["warmup"][side]["dropped"].get_uint64().value(), 1u);
    EXPECT_EQ(fan2["warmup"][side]["of"].get_uint64().value(), 4095u);
    EXPECT_EQ(fan2["warmup"][side]["no_steady_state"].get_uint64().value(), 1u);
    EXPECT_EQ(fan2[side]["n"].get_uint64().value(), 4094u);
  }
  EXPECT_EQ(fan2["baseline"]["median"].get_double().value(), 126224.0);
  EXPECT_EQ(fan2["current"]["median"].get_double().value(), 118591.5);
  EXPECT_LT(fan2["ratio"]["estimate"].get_double().value(), 1.0);
  EXPECT_NE(
      Unwrapped(r.out).find("warning: NO STEADY STATE: kernel " + kFan2Label +
                            " "
                            "(baseline): MSER-5 reached its cap (half of 4095 launches); only the "
                            "first launch dropped\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1/1 (no steady state)"), std::string::npos) << r.out;
  EXPECT_NE(Line(r.out, "result: ").find("NO STEADY STATE in the launches of 1 checked kernel(s)"),
            std::string::npos)
      << r.out;

  // A fixed trim above 10% of a kernel's launches is named.
  const CliResult fixed = RunGpuroof({"compare", a, b, "--warmup", "2045", "--quiet"});
  EXPECT_NE(Unwrapped(fixed.out).find(
                "warning: kernel " + kFan2Label +
                ": warm-up dropped "
                "baseline 2045 of 4095, current 2045 of 4095 launches (over 10%)\n"),
            std::string::npos)
      << fixed.out;
}

// Issue 14, case 5. hta_simple_add_a100 (NVIDIA A100-PG509-200) and hta_rank0_a100 (NVIDIA
// A100-SXM4-80GB) are different GPU models: refused as a gate, diffed with --across-hardware.
// Per-engine busy over the whole trace, from kineto/PROVENANCE.md's reference figures: kernel
// 10,670,000 -> 396,315,000 ns, H2D 39,080,000 -> 21,155,000 ns; D2D exists only in the second.
// The second's 396,315,000 ns of kernels are compute 210,998,000 ns and NCCL (comm) 187,870,000
// ns (unions of the raw kernel events without and with a name starting "nccl", in Python).
TEST(CompareFixturesCli, TheTextTableShowsKernelsByBaseNameWithinTheWidth) {
  // Keys hold the demangled signature (nsys and Kineto agree on it); the table shows the base
  // name and the launch shape, and fits 160 columns (docs/formats.md, "Tables").
  REQUIRE_FIXTURES(kGaussianA, kGaussianB, std::string("kineto/hta_compare_base.json.gz"),
                   std::string("kineto/hta_compare_test.json.gz"));
  const CliResult nsys =
      RunGpuroof({"compare", Fixture(kGaussianA).string(), Fixture(kGaussianB).string()});
  ASSERT_EQ(nsys.exit_code, 0) << nsys.err;
  EXPECT_NE(nsys.out.find("\nkernel Fan2 <<<(256,256,1),(16,16,1)>>>  "), std::string::npos)
      << nsys.out;
  const CliResult kineto =
      RunGpuroof({"compare", Fixture("kineto/hta_compare_base.json.gz").string(),
                  Fixture("kineto/hta_compare_test.json.gz").string()});
  ASSERT_EQ(kineto.exit_code, 0) << kineto.err;
  EXPECT_NE(kineto.out.find("\nkernel vectorized_elementwise_kernel <<<(1,1,1),(128,1,1)>>> "
                            "(report)  "),
            std::string::npos)
      << kineto.out;
  for (const std::string& out : {nsys.out, kineto.out}) {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.rfind("kernel ", 0) == 0 || line.rfind("metric ", 0) == 0) {
        EXPECT_LE(line.size(), 160u) << line;
      }
    }
  }
}

TEST(CompareFixturesCli, DifferentGpusAreDiffedOnlyWhenAsked) {
  const std::string base_file = "kineto/hta_simple_add_a100.json.gz";
  const std::string cur_file = "kineto/hta_rank0_a100.json.gz";
  REQUIRE_FIXTURES(base_file, cur_file);
  TempDir dir;
  const std::string base = Fixture(base_file).string();
  const std::string cur = Fixture(cur_file).string();
  const CliResult refused = RunGpuroof({"compare", base, cur});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_NE(refused.err.find("not comparable: GPU model 'NVIDIA A100-SXM4-80GB' differs from "
                             "'NVIDIA A100-PG509-200'"),
            std::string::npos)
      << refused.err;

  const CliResult r = RunGpuroof(
      {"compare", "--across-hardware", base, cur, "--json", (dir / "hw.json").string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(Line(r.out, "result: "), "result: EXPLORATORY (across hardware, not a gate) -> exit 0");
  EXPECT_NE(r.out.find("\nmode: EXPLORATORY across hardware, not a gate"), std::string::npos)
      << r.out;
  simdjson::dom::parser parser;
  const simdjson::dom::element doc = parser.load((dir / "hw.json").string()).value();
  EXPECT_EQ(std::string_view(doc["verdict"].get_string()), "exploratory");
  EXPECT_EQ(std::string_view(doc["settings"]["kernel_key"].get_string()), "name");
  ExpectSummaryRowsMatch(doc);
  const simdjson::dom::element kernel = Metric(doc, "engine:kernel:0");
  // Run-level medians go through exp(ln(x)): equal to well under 1 ns.
  EXPECT_NEAR(kernel["baseline"]["median"].get_double().value(), 10670000.0, 1e-3);
  EXPECT_NEAR(kernel["current"]["median"].get_double().value(), 210998000.0, 1e-3);
  EXPECT_NEAR(kernel["ratio"]["estimate"].get_double().value(), 210998000.0 / 10670000.0, 1e-9);
  const simdjson::dom::element comm = Metric(doc, "engine:comm:0");
  EXPECT_EQ(std::string_view(comm["verdict"].get_string()), "new");
  EXPECT_NEAR(comm["current"]["median"].get_double().value(), 187870000.0, 1e-3);
  const simdjson::dom::element h2d = Metric(doc, "engine:H2D:0");
  EXPECT_NEAR(h2d["ratio"]["estimate"].get_double().value(), 21155000.0 / 39080000.0, 1e-12);
  EXPECT_EQ(std::string_view(Metric(doc, "engine:D2D:0")["verdict"].get_string()), "new");
  // Added and removed kernels are the rows with one side only.
  size_t one_sided = 0;
  for (simdjson::dom::element m : doc["metrics"].get_array()) {
    const bool base_only = m["current"].is_null();
    const bool cur_only = m["baseline"].is_null();
    if (base_only || cur_only) ++one_sided;
  }
  EXPECT_EQ(one_sided, VerdictsOfRows(doc)["new"] + VerdictsOfRows(doc)["removed"]);
  EXPECT_GT(VerdictsOfRows(doc)["new"], 0u);

  // --fail-on, given, applies the gate's rule: keyed by the full signature, the common kernels
  // have too few launches and are LOW-N, which --fail-on inconclusive fails on.
  const CliResult fail = RunGpuroof({"compare", "--across-hardware", base, cur, "--kernel-key",
                                     "demangled", "--fail-on", "inconclusive", "-q"});
  EXPECT_EQ(fail.exit_code, 1) << fail.out;
  EXPECT_EQ(Line(fail.out, "result: "),
            "result: EXPLORATORY (across hardware, not a gate): --fail-on matched -> exit 1");
}

}  // namespace
}  // namespace gpuroof::testing
