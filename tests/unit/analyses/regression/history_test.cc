#include "gpuroof/analyses/regression/history.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/reports/compare_report.h"

namespace gpuroof {
namespace {

ProfileSummary Current(double iteration_ms) {
  ProfileSummary p;
  p.path = "pr.sqlite";
  p.device_model = "GPU X";
  p.device_count = 1;
  p.has_iterations = true;
  SampleSet& set = p.metrics["iteration"];
  set.level = MetricLevel::kIteration;
  set.name = "step";
  set.values = {iteration_ms * 1e6};
  return p;
}

// A line as this build writes it: device "GPU X", iteration range "" and kernel key "launch" (as
// Current()).
HistoryEntry Entry(std::map<std::string, double> medians) {
  HistoryEntry entry;
  entry.device = "GPU X";
  entry.has_device = true;
  entry.medians = std::move(medians);
  entry.rules = kHistoryRules;
  entry.has_iteration_range = true;
  entry.kernel_key = "launch";  // as Current(): ProfileOptions' default key
  entry.has_kernel_key = true;
  return entry;
}

std::vector<HistoryEntry> E9History() {
  std::vector<HistoryEntry> history;
  for (double ms : {41.2, 41.5, 40.9, 41.3, 41.1, 41.6, 41.0, 41.4, 41.2, 41.3})
    history.push_back(Entry({{"iteration", ms * 1e6}}));
  return history;
}

const std::string* WarningWith(const CompareResult& r, const std::string& text) {
  for (const std::string& w : r.warnings)
    if (w.find(text) != std::string::npos) return &w;
  return nullptr;
}

// E9: 42.4 ms (+2.79 %) is above the +1.571 % limit and the 2 % minimum effect; 41.9 ms
// (+1.58 %) is above the limit only.
TEST(HistoryTest, ExampleE9) {
  const std::vector<HistoryEntry> history = E9History();
  const std::vector<ProfileSummary> slow = {Current(42.4)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  ASSERT_EQ(r.metrics.size(), 1u);
  EXPECT_EQ(r.mode, CompareMode::kHistory);
  EXPECT_EQ(r.metrics[0].verdict, Verdict::kRegressed);
  EXPECT_NEAR(*r.metrics[0].ci_high - 1, 0.01571, 1e-5);
  // The limit is one-sided at 99 % (t_{0.99,9}) each way: the band holds 98 % of unchanged runs,
  // its level (JSON ci_level); it said 0.99.
  EXPECT_DOUBLE_EQ(r.metrics[0].ci_level, 0.98);
  EXPECT_NEAR(*r.metrics[0].ratio - 1, 0.0279, 1e-4);
  EXPECT_EQ(r.exit_code, 1);
  const std::vector<ProfileSummary> edge = {Current(41.9)};
  const CompareResult e = CompareWithHistory(history, edge, GateSettings{}, "h.jsonl");
  EXPECT_EQ(e.metrics[0].verdict, Verdict::kWithinNoise);
  EXPECT_EQ(e.exit_code, 0);
}

// E9's MDE at 80 % power: a change is flagged beyond max(q, ln 1.02) = 0.019803, and four times
// in five when it is t_{0.8,9} = 0.883404 prediction errors (0.0055253) beyond that: +2.50 %.
TEST(HistoryTest, ExampleE9MinimumDetectableEffect) {
  const std::vector<ProfileSummary> slow = {Current(42.4)};
  const CompareResult r = CompareWithHistory(E9History(), slow, GateSettings{}, "h.jsonl");
  EXPECT_NEAR(*r.metrics[0].mde, std::expm1(std::log(1.02) + 0.883404 * 0.0055253), 2e-5);
}

// Eight gated kernels tested against the history are one family (§3.4): a kernel 2.05 % slower
// passes the limit and the minimum effect alone (one-sided p ~ 0.0024), but not Holm's 8 x p, so
// it is ~ and the gate passes; one 6 % slower (p ~ 1e-6) stays REGRESSED.
TEST(HistoryTest, GatedKernelsAreHolmAdjusted) {
  const std::vector<double> history_ms = {41.2, 41.5, 40.9, 41.3, 41.1,
                                          41.6, 41.0, 41.4, 41.2, 41.3};
  double mean_log = 0;
  for (double ms : history_ms)
    mean_log += std::log(ms * 1e3) / static_cast<double>(history_ms.size());
  for (double slower : {1.0205, 1.06}) {
    std::vector<HistoryEntry> history;
    for (double ms : history_ms) {
      HistoryEntry entry = Entry({});
      for (int k = 0; k < 8; ++k)
        entry.medians[fmt::format("kernel:k{}", k)] = ms * 1e3;
      history.push_back(entry);
    }
    ProfileSummary current = Current(41.2);
    for (int k = 0; k < 8; ++k) {
      SampleSet& set = current.metrics[fmt::format("kernel:k{}", k)];
      set.level = MetricLevel::kKernel;
      set.name = fmt::format("k{}", k);
      set.values = {std::exp(mean_log) * (k == 0 ? slower : 1.0)};
      set.total = 1000;
      current.kernel_time_ns += set.total;
    }
    GateSettings settings;
    settings.kernel_min_impact = 0;  // every kernel (share 12.5 %) is gated, changed or not
    const CompareResult r = CompareWithHistory(history, std::vector{current}, settings, "h.jsonl");
    const MetricComparison* k0 = nullptr;
    int gated = 0;
    for (const MetricComparison& m : r.metrics) {
      if (m.id == "kernel:k0") k0 = &m;
      gated += m.level == MetricLevel::kKernel && m.gated ? 1 : 0;
    }
    ASSERT_NE(k0, nullptr);
    EXPECT_EQ(gated, 8);
    ASSERT_TRUE(k0->p_value && k0->p_adjusted);
    EXPECT_LT(*k0->p_value, 0.01);
    if (slower < 1.05) {
      EXPECT_GT(*k0->p_adjusted, 0.01);
      EXPECT_EQ(k0->verdict, Verdict::kNoChange);
      EXPECT_EQ(r.exit_code, 0);
    } else {
      EXPECT_LT(*k0->p_adjusted, 0.01);
      EXPECT_EQ(k0->verdict, Verdict::kRegressed);
      EXPECT_EQ(r.exit_code, 1);
    }
  }
}

// Entries written under earlier metric definitions are compared, and the result says how many.
TEST(HistoryTest, EntriesUnderEarlierRulesAreCountedInAWarning) {
  std::vector<HistoryEntry> history = E9History();
  const std::vector<ProfileSummary> slow = {Current(42.4)};
  const auto warned = [](const CompareResult& r) {
    for (const std::string& w : r.warnings)
      if (w.find("written under earlier metric rules") != std::string::npos) return w;
    return std::string();
  };
  EXPECT_EQ(warned(CompareWithHistory(history, slow, GateSettings{}, "h.jsonl")), "");
  history[0].rules = 1;
  history[3].rules = 1;
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  EXPECT_EQ(warned(r).rfind("2 of 10 history entries", 0), 0u) << warned(r);
  EXPECT_EQ(r.metrics[0].verdict, Verdict::kRegressed);  // still compared
}

// Identical history summaries (coarse timer, short kernels) have no spread: a kernel 6 % above
// them is beyond the history for certain (p = 0), and Holm over the family keeps it REGRESSED.
TEST(HistoryTest, AHistoryWithoutSpreadStillCatchesARegressedKernel) {
  std::vector<HistoryEntry> history;
  for (int run = 0; run < 6; ++run)
    history.push_back(Entry({{"kernel:k0", 1000.0}, {"kernel:k1", 2000.0}}));
  ProfileSummary current = Current(41.2);
  for (const auto& [id, value] : {std::pair{"kernel:k0", 1060.0}, std::pair{"kernel:k1", 2000.0}}) {
    SampleSet& set = current.metrics[id];
    set.level = MetricLevel::kKernel;
    set.name = std::string(id).substr(7);
    set.values = {value};
    set.total = 1000;
    current.kernel_time_ns += set.total;
  }
  GateSettings settings;
  settings.kernel_min_impact = 0;
  const CompareResult r = CompareWithHistory(history, std::vector{current}, settings, "h.jsonl");
  for (const MetricComparison& m : r.metrics) {
    if (m.id != "kernel:k0") continue;
    EXPECT_EQ(*m.p_value, 0.0);
    EXPECT_EQ(*m.p_adjusted, 0.0);
    EXPECT_EQ(m.verdict, Verdict::kRegressed);
  }
  EXPECT_EQ(r.exit_code, 1);
}

TEST(HistoryTest, ShortHistoryIsLowN) {
  std::vector<HistoryEntry> history = E9History();
  history.resize(4);
  const std::vector<ProfileSummary> slow = {Current(50)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  EXPECT_EQ(r.metrics[0].verdict, Verdict::kLowN);
  EXPECT_EQ(r.exit_code, 0);
}

TEST(HistoryTest, LinesRoundTripAndBadLinesNameTheLine) {
  HistoryEntry entry = Entry({{"iteration", 41200000.5}, {"kernel:k <<<(1,1,1),(2,1,1)>>>", 7}});
  entry.device = "GPU \"X\"";
  entry.iteration_range = "step";
  entry.kernel_key = "launch";
  const std::string text =
      RenderHistoryLine(entry, "a.sqlite") + "\n" + RenderHistoryLine(entry, "b.sqlite");
  const std::vector<HistoryEntry> parsed = ParseHistory(text, "h.jsonl");
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[1].device, entry.device);
  EXPECT_EQ(parsed[1].medians, entry.medians);
  EXPECT_EQ(parsed[1].rules, kHistoryRules);
  EXPECT_EQ(parsed[1].iteration_range, "step");
  EXPECT_TRUE(parsed[1].has_iteration_range);
  EXPECT_EQ(parsed[1].kernel_key, "launch");
  EXPECT_TRUE(parsed[1].has_kernel_key);
  EXPECT_TRUE(parsed[1].has_device);
  EXPECT_EQ(parsed[1].line, 3u);
  // A line written before "rules" existed is revision 1.
  EXPECT_EQ(ParseHistory(R"({"device": "X", "metrics": {"iteration": 1}})", "h.jsonl")[0].rules, 1);
  try {
    ParseHistory(text + "{\"metrics\": {\"iteration\": }}\n", "h.jsonl");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "h.jsonl:4");
  }
  const std::vector<ProfileSummary> other = {Current(41)};
  EXPECT_THROW(CompareWithHistory(parsed, other, GateSettings{}, "h.jsonl"), InputError);
}

// s34: a JSON object that is no run summary was read as a line without metrics, and the compare
// then said "no metric is present in both". It is refused at its line, as is another gpuroof
// document (its schema).
TEST(HistoryTest, AnObjectThatIsNoRunSummaryIsRefusedAtItsLine) {
  for (const auto& [text, problem] : std::vector<std::pair<std::string, std::string>>{
           {R"({"foo": [1, 2, 3]})", "not a gpuroof run summary (no 'metrics' key)"},
           {"{}", "not a gpuroof run summary (no 'metrics' key)"},
           // s34 review2: an empty 'metrics' fell through to "no metric is present in both".
           {R"({"metrics": {}})", "not a gpuroof run summary (no metric: its 'metrics' is empty)"},
           {R"({"metrics":{}, "device": "GPU X"})", "not a gpuroof run summary (no metric"},
           {R"({"schema": "gpuroof.compare/1", "metrics": {"iteration": 5}})",
            "not a gpuroof run summary: its schema is 'gpuroof.compare/1'"}}) {
    SCOPED_TRACE(text);
    try {
      ParseHistory(R"({"metrics": {"iteration": 5}})" + std::string("\n") + text, "h.jsonl");
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "h.jsonl:2");
      EXPECT_EQ(e.problem().rfind(problem, 0), 0u) << e.problem();
    }
  }
  // The schema gpuroof writes is read.
  EXPECT_EQ(ParseHistory(R"({"schema": "gpuroof.compare-history/1", "metrics": {"iteration": 5}})",
                         "h.jsonl")
                .size(),
            1u);
}

// Several current profiles must agree among themselves (GPU model, device count), as in the
// two-sided gate; before, only the first was checked against the history.
TEST(HistoryTest, CurrentProfilesOfDifferentGpusAreRefused) {
  ProfileSummary other = Current(41.2);
  other.path = "other.sqlite";
  other.device_model = "GPU Y";
  const std::vector<ProfileSummary> current = {Current(41.2), other};
  EXPECT_THROW(CompareWithHistory(E9History(), current, GateSettings{}, "h.jsonl"), InputError);
  ProfileSummary two = Current(41.2);
  two.device_count = 2;
  const std::vector<ProfileSummary> counts = {Current(41.2), two};
  EXPECT_THROW(CompareWithHistory(E9History(), counts, GateSettings{}, "h.jsonl"), InputError);
}

// A metric of the current run that the history lacks is a NEW row (not gated, counted); one the
// latest history line has and the current run lacks is REMOVED.
TEST(HistoryTest, MetricsOnOneSideAreRowsToo) {
  std::vector<HistoryEntry> history = E9History();
  history.back().medians["range:gone"] = 5e6;
  ProfileSummary current = Current(41.2);
  SampleSet& range = current.metrics["range:fresh"];
  range.level = MetricLevel::kRange;
  range.name = "fresh";
  range.values = {20e6};
  range.total = 20e6;
  GateSettings settings;
  settings.gate_ranges = {"fresh"};
  const CompareResult r = CompareWithHistory(history, std::vector{current}, settings, "h.jsonl");
  std::map<std::string, Verdict> verdicts;
  for (const MetricComparison& m : r.metrics)
    verdicts[m.id] = m.verdict;
  EXPECT_EQ(verdicts["range:fresh"], Verdict::kNew);
  EXPECT_EQ(verdicts["range:gone"], Verdict::kRemoved);
  EXPECT_EQ(r.summary.rows.at(Verdict::kNew), 1u);
  // A --gate-range neither side has is an input error, as in the two-sided gate.
  settings.gate_ranges = {"nosuchrange"};
  EXPECT_THROW(CompareWithHistory(history, std::vector{current}, settings, "h.jsonl"), InputError);
}

// Lines record their iteration range: lines of another range are left out and counted; when
// none is left, the history is not comparable. Lines without the field are pre-revision lines.
TEST(HistoryTest, LinesOfAnotherIterationRangeAreLeftOut) {
  std::vector<HistoryEntry> history = E9History();
  for (size_t i = 0; i < 3; ++i)
    history[i].iteration_range = "fwd";
  const std::vector<ProfileSummary> slow = {Current(42.4)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  const std::string* left = WarningWith(r, "history entries left out");
  ASSERT_NE(left, nullptr);
  EXPECT_EQ(left->rfind("3 of 10 history entries left out: recorded with --iteration-range fwd", 0),
            0u)
      << *left;
  EXPECT_EQ(r.metrics[0].baseline->n, 7u);
  for (HistoryEntry& entry : history)
    entry.iteration_range = "fwd";
  EXPECT_THROW(CompareWithHistory(history, slow, GateSettings{}, "h.jsonl"), InputError);
  // Written before the field existed: compared, and counted as written under earlier rules.
  const std::vector<HistoryEntry> old =
      ParseHistory(R"({"device": "GPU X", "rules": 2, "metrics": {"iteration": 41200000}})"
                   "\n"
                   R"({"device": "GPU X", "rules": 2, "metrics": {"iteration": 41300000}})",
                   "h.jsonl");
  EXPECT_FALSE(old[0].has_iteration_range);
  const CompareResult o = CompareWithHistory(old, slow, GateSettings{}, "h.jsonl");
  EXPECT_NE(WarningWith(o, "2 of 2 history entries were written under earlier metric rules"),
            nullptr);
}

// Lines record their --kernel-key: kernel rows of lines keyed otherwise name other groups of
// launches, so they are left out of those lines (said, counted), and the lines' other metrics
// still count; when every line is keyed otherwise no kernel could be gated: not comparable.
TEST(HistoryTest, KernelRowsOfLinesOfAnotherKernelKeyAreLeftOut) {
  const std::string launch_id = "kernel:k <<<(1,1,1),(2,1,1)>>>";
  std::vector<HistoryEntry> history;
  for (int i = 0; i < 10; ++i) {
    const bool by_name = i >= 6;  // the last four lines, the latest among them
    HistoryEntry entry =
        Entry({{"iteration", 41.2e6}, {by_name ? "kernel:k" : launch_id, 1e6 + i * 1e3}});
    entry.kernel_key = by_name ? "name" : "launch";
    entry.has_kernel_key = true;
    history.push_back(entry);
  }
  ProfileSummary current = Current(41.2);
  current.kernel_key = KernelKey::kLaunch;
  current.kernel_time_ns = 1e6;
  SampleSet& kernel = current.metrics[launch_id];
  kernel.level = MetricLevel::kKernel;
  kernel.name = "k <<<(1,1,1),(2,1,1)>>>";
  kernel.values = {1e6};
  kernel.total = 1e6;
  const std::vector<ProfileSummary> now = {current};
  const CompareResult r = CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
  const std::string* warning = WarningWith(r, "--kernel-key name, not launch");
  ASSERT_NE(warning, nullptr);
  EXPECT_EQ(warning->rfind("4 of 10 history entries were recorded with --kernel-key name", 0), 0u)
      << *warning;
  std::map<std::string, const MetricComparison*> rows;
  for (const MetricComparison& m : r.metrics)
    rows[m.id] = &m;
  ASSERT_EQ(rows.count(launch_id), 1u);
  EXPECT_EQ(rows[launch_id]->baseline->n, 6u);
  EXPECT_EQ(rows["iteration"]->baseline->n, 10u);
  EXPECT_EQ(rows.count("kernel:k"), 0u);  // not a REMOVED row: it was never this run's key
  EXPECT_EQ(WarningWith(r, "record no --kernel-key"), nullptr);
  // Lines written before lines recorded the key: taken as keyed like this run, said.
  std::vector<HistoryEntry> unkeyed = history;
  for (size_t i = 0; i < 3; ++i)
    unkeyed[i].has_kernel_key = false;
  const CompareResult u = CompareWithHistory(unkeyed, now, GateSettings{}, "h.jsonl");
  const std::string* guess = WarningWith(u, "record no --kernel-key");
  ASSERT_NE(guess, nullptr);
  EXPECT_EQ(guess->rfind("3 of 10 history entries record no --kernel-key (written before lines "
                         "did): taken as keyed by launch",
                         0),
            0u)
      << *guess;
  for (HistoryEntry& entry : history)
    entry.kernel_key = "name";
  try {
    CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("all 10 history entries were recorded with --kernel-key "
                                         "name, the current run with launch"),
              std::string::npos)
        << e.what();
  }
}

// Values a run summary cannot have are refused with the line; a line without "device" is not
// checked against the GPU model, and said with the count.
TEST(HistoryTest, ImpossibleValuesAreRefusedAndMissingDevicesCounted) {
  for (const char* bad : {R"({"device": "X", "metrics": {"iteration": -1}})",
                          R"({"device": "X", "metrics": {"iteration": NaN}})",
                          R"({"device": "X", "metrics": {"busy:kernel:0": -5}})"}) {
    SCOPED_TRACE(bad);
    try {
      ParseHistory(std::string(R"({"device": "X", "metrics": {"iteration": 1}})") + "\n" + bad,
                   "h.jsonl");
      FAIL() << "no error";
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "h.jsonl:2");
    }
  }
  // An engine idle in most iterations has a median busy time of 0, and a kernel under a
  // microsecond in a whole-microsecond Kineto trace a median of 0: values gpuroof writes itself,
  // so a history holding them stays readable.
  EXPECT_NO_THROW(ParseHistory(R"({"device": "X", "metrics": {"copy:H2D:0": 0}})", "h.jsonl"));
  EXPECT_NO_THROW(ParseHistory(R"({"device": "X", "metrics": {"kernel:k": 0}})", "h.jsonl"));
  std::vector<HistoryEntry> history = E9History();
  history[2].has_device = false;
  history[2].device.clear();
  const std::vector<ProfileSummary> slow = {Current(42.4)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  EXPECT_NE(WarningWith(r, "1 of 10 history entries record no device"), nullptr);
}

// F2: a noisy history (one line x1.5) and a +20 % run: INCONCLUSIVE, so PASS WITH WARNINGS, and
// exit 1 under --fail-on inconclusive (it was a plain PASS).
TEST(HistoryTest, ANoisyHistoryIsInconclusiveNotAPass) {
  std::vector<HistoryEntry> history = E9History();
  history[3].medians["iteration"] *= 1.5;
  const std::vector<ProfileSummary> slow = {Current(49.5)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  ASSERT_EQ(r.metrics.size(), 1u);
  EXPECT_EQ(r.metrics[0].verdict, Verdict::kInconclusive);
  EXPECT_EQ(r.verdict, "pass-with-warnings");
  EXPECT_EQ(r.exit_code, 0);
  GateSettings strict;
  strict.fail_on_inconclusive = true;
  const CompareResult f = CompareWithHistory(history, slow, strict, "h.jsonl");
  EXPECT_EQ(f.verdict, "inconclusive");
  EXPECT_EQ(f.exit_code, 1);
}

// F2: an iteration time of 0 is refused at FILE:LINE; a GPU compute busy of 0 is said, with it.
TEST(HistoryTest, ZeroIterationIsRefusedAndZeroBusyIsSaid) {
  try {
    ParseHistory("{\"metrics\": {\"iteration\": 5}}\n{\"metrics\": {\"iteration\": 0}}\n",
                 "h.jsonl");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "h.jsonl:2");
  }
  try {
    ParseHistory("{\"metrics\": {\"iteration\": 5}}\n{\"metrics\": {\"iteration\": 1e300}}\n",
                 "h.jsonl");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "h.jsonl:2");
  }
  std::vector<HistoryEntry> history = E9History();
  for (size_t i = 0; i < history.size(); ++i) {
    history[i].line = i + 1;
    history[i].medians["busy:kernel:0"] = i == 6 ? 0.0 : 4e7;
  }
  const std::vector<ProfileSummary> now = {Current(41.3)};
  const CompareResult r = CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
  const std::string* w = WarningWith(r, "history value(s) of GPU compute busy are 0");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->find("h.jsonl:7 (busy:kernel:0)"), std::string::npos) << *w;
}

// F11: "rules" must be a whole number (2.7, 1e10 refused at FILE:LINE); a newer one is said.
TEST(HistoryTest, RulesFieldIsCheckedAndNewerRulesAreSaid) {
  for (const char* bad : {"2.7", "1e10", "0", "-3"}) {
    try {
      ParseHistory(fmt::format("{{\"rules\": {}, \"metrics\": {{\"iteration\": 5}}}}\n", bad),
                   "h.jsonl");
      FAIL() << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(e.source(), "h.jsonl:1") << bad;
    }
  }
  std::vector<HistoryEntry> history = E9History();
  history[0].rules = 99;
  const std::vector<ProfileSummary> now = {Current(41.3)};
  const CompareResult r = CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
  EXPECT_NE(WarningWith(r,
                        "1 of 10 history entries were written under newer metric rules (up to "
                        "99)"),
            nullptr);
}

// F7: the history cell shows the history's own spread (IQR / centre), not ±0.
TEST(HistoryTest, HistoryCellShowsTheHistorysSpread) {
  const std::vector<ProfileSummary> now = {Current(41.3)};
  const CompareResult r = CompareWithHistory(E9History(), now, GateSettings{}, "h.jsonl");
  ASSERT_TRUE(r.metrics[0].baseline);
  // E9's lines: p25 41.125 ms, p75 41.375 ms (linear), centre 41.2495 ms.
  EXPECT_NEAR(r.metrics[0].baseline->iqr_rel, 0.25 / 41.2495, 1e-4);
}

// A kernel-only run (no iterations): "big" (1 ms x `big_scale`) and 100 small kernels of 8 us x
// `small_scale` (0.44 % of the kernel time each), 40 launches each (`small_launches` for the
// small ones) with +-0.5 % launch-to-launch noise.
void AddKernel(ProfileSummary& p, const std::string& key, double ns, double session, int seed,
               int launches = 40) {
  SampleSet& set = p.metrics["kernel:" + key];
  set.level = MetricLevel::kKernel;
  set.name = key;
  for (int i = 0; i < launches; ++i)
    set.values.push_back(ns * session * (1.0 + 0.005 * ((i * 7919 + seed) % 61 - 30) / 30.0));
  for (double v : set.values)
    set.total += v;
  p.kernel_time_ns += set.total;
}

ProfileSummary KernelOnlyRun(double small_scale, double session, int seed, double big_scale = 1.0,
                             int small_launches = 40) {
  ProfileSummary p;
  p.path = fmt::format("run{}.sqlite", seed);
  p.device_model = "GPU X";
  p.device_count = 1;
  AddKernel(p, "big", 1e6 * big_scale, session, seed);
  for (int k = 0; k < 100; ++k)
    AddKernel(p, fmt::format("s{}", k), 8000 * small_scale, session, seed, small_launches);
  return p;
}

std::vector<HistoryEntry> KernelOnlyHistory() {
  std::vector<HistoryEntry> history;
  for (int run = 0; run < 6; ++run)
    history.push_back(HistoryEntryOf(KernelOnlyRun(1.0, 1.0 + 0.003 * (run % 3 - 1), run)));
  return history;
}

const MetricComparison* Row(const CompareResult& r, const std::string& id) {
  for (const MetricComparison& m : r.metrics)
    if (m.id == id) return &m;
  return nullptr;
}

// A12: without iterations, +25 % in 100 small kernels (+11 % of the compute kernel time, no
// kernel gated alone) was a PASS in history mode: there was no total row. The compute kernel
// time per launch at this run's mix is now gated, computed from the lines' kernel medians (no
// line stores a total).
TEST(HistoryTest, KernelOnlyComputeKernelTimeIsGated) {
  std::vector<HistoryEntry> history = KernelOnlyHistory();
  EXPECT_EQ(history[0].medians.count("kernel-total"), 0u);
  EXPECT_EQ(history[0].medians.size(), 101u);
  const std::vector<ProfileSummary> slow = {KernelOnlyRun(1.25, 1.0, 40)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  const MetricComparison* total = Row(r, "kernel-total");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->level, MetricLevel::kKernelTotal);
  EXPECT_EQ(total->name, "compute kernel time / launch (this run's mix)");
  EXPECT_TRUE(total->gated);
  EXPECT_NEAR(*total->ratio, 2.0 / 1.8, 0.01);
  // (1e6 + 100 x 8000) / 101 launches per 101 launches, history and current.
  EXPECT_NEAR(total->baseline->median, 1.8e6 / 101, 1.8e6 / 101 * 0.01);
  EXPECT_NEAR(total->current->median, 2.0e6 / 101, 2.0e6 / 101 * 0.01);
  EXPECT_EQ(total->baseline->n, 6u);
  EXPECT_EQ(total->verdict, Verdict::kRegressed);
  EXPECT_FALSE(Row(r, "kernel:s0")->gated);
  EXPECT_EQ(r.exit_code, 1);
  // An unchanged run passes.
  const std::vector<ProfileSummary> same = {KernelOnlyRun(1.0, 1.0, 41)};
  const CompareResult ok = CompareWithHistory(history, same, GateSettings{}, "h.jsonl");
  EXPECT_EQ(Row(ok, "kernel-total")->verdict, Verdict::kNoChange);
  EXPECT_EQ(ok.verdict, "pass");
  // A "kernel-total" a line holds (written by a development build) is an unknown id: read,
  // ignored, as other ids are.
  const std::vector<HistoryEntry> parsed = ParseHistory(
      R"({"device": "GPU X", "rules": 4, "metrics": {"kernel:big": 1000000, "kernel-total": 5}})",
      "h.jsonl");
  EXPECT_EQ(parsed[0].medians.at("kernel-total"), 5.0);
  history[0].medians["kernel-total"] = 1e9;
  const CompareResult stored = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  EXPECT_NEAR(*Row(stored, "kernel-total")->ratio, 2.0 / 1.8, 0.01);
  // No kernel of this run in every line, nor in 5 lines together: the row is absent, and the
  // verdict says why (never a silent pass).
  history[0].medians.erase("kernel:big");
  history[1].medians.erase("kernel:big");
  for (int k = 0; k < 100; ++k) {
    history[1].medians.erase(fmt::format("kernel:s{}", k));
    history[2].medians.erase(fmt::format("kernel:s{}", k));
  }
  const CompareResult none = CompareWithHistory(history, same, GateSettings{}, "h.jsonl");
  EXPECT_EQ(Row(none, "kernel-total"), nullptr);
  const std::string* absent = WarningWith(
      none,
      "compute kernel time not gated: none of this run's 101 compute kernels is in all 5 history "
      "entries with kernel rows");  // the 6th lost all its kernel rows
  ASSERT_NE(absent, nullptr);
  EXPECT_EQ(none.verdict, "pass-with-warnings");
  EXPECT_NE(std::find(none.verdict_reasons.begin(), none.verdict_reasons.end(), *absent),
            none.verdict_reasons.end());
  // With iterations the GPU busy per iteration gates the total: no row.
  const std::vector<ProfileSummary> stepped = {Current(41.3)};
  EXPECT_EQ(
      Row(CompareWithHistory(E9History(), stepped, GateSettings{}, "h.jsonl"), "kernel-total"),
      nullptr);
}

// The two compute kernel time rows weight a kernel by the same launches: those before its own
// warm-up trim (two-sided: the baseline's, at its steady time per launch; history: this run's, at
// each line's medians). The two-sided row weighted by the steady time (launches after the trim),
// so one change read +6.36 % two-sided and +6.94 % against a history of the baseline.
TEST(HistoryTest, ComputeKernelTimeWeightsKernelsAsTheTwoSidedRow) {
  auto run = [](const std::string& path, double a_ns, double b_ns) {
    ProfileSummary p;
    p.path = path;
    p.device_model = "GPU X";
    p.device_count = 1;
    auto add = [&p](const std::string& key, double ns, size_t steady, size_t dropped) {
      SampleSet& set = p.metrics["kernel:" + key];
      set.level = MetricLevel::kKernel;
      set.name = key;
      set.values.assign(steady, ns);
      set.warmup_dropped = dropped;
      set.warmup_of = steady + dropped;
      set.total = ns * static_cast<double>(steady);
      p.kernel_time_ns += set.total;
    };
    add("a", a_ns, 100, 50);  // a long warm-up: 150 launches before the trim
    add("b", b_ns, 100, 1);
    return p;
  };
  const std::vector<ProfileSummary> base = {run("b.sqlite", 1000, 10000)};
  const std::vector<ProfileSummary> cur = {run("c.sqlite", 1200, 10500)};
  const CompareResult two_sided = CompareProfiles(base, cur, GateSettings{});
  const MetricComparison* paired = Row(two_sided, "kernel-total");
  ASSERT_NE(paired, nullptr);
  // (150 x 1.2 us + 101 x 10.5 us) / (150 x 1 us + 101 x 10 us).
  EXPECT_NEAR(*paired->ratio, 1240.5 / 1160.0, 1e-12);
  const std::vector<HistoryEntry> history(6, HistoryEntryOf(base[0]));
  const CompareResult against = CompareWithHistory(history, cur, GateSettings{}, "h.jsonl");
  const MetricComparison* total = Row(against, "kernel-total");
  ASSERT_NE(total, nullptr);
  EXPECT_NEAR(*total->ratio / *paired->ratio, 1.0, 1e-9) << *total->ratio;
}

// A12 (masking): a per-launch mean of each run's own mix moved with the mix, so a slower kernel
// plus more cheap launches read as faster: big +10 % with twice the small launches was -24.6 %
// (IMPROVED), +10 % in the small kernels with twice their launches -23 % (IMPROVED, a PASS: no
// kernel gated alone). At this run's mix, both are regressions.
TEST(HistoryTest, KernelOnlyComputeKernelTimeIsNotMaskedByTheLaunchMix) {
  const std::vector<HistoryEntry> history = KernelOnlyHistory();
  // (40 x 1.1 ms + 8000 x 8 us) / (40 x 1 ms + 8000 x 8 us) = 108 / 104.
  const std::vector<ProfileSummary> big = {KernelOnlyRun(1.0, 1.0, 40, 1.1, 80)};
  const CompareResult r = CompareWithHistory(history, big, GateSettings{}, "h.jsonl");
  const MetricComparison* total = Row(r, "kernel-total");
  ASSERT_NE(total, nullptr);
  EXPECT_NEAR(*total->ratio, 108.0 / 104.0, 0.005);
  EXPECT_EQ(total->verdict, Verdict::kRegressed);
  // (40 x 1 ms + 8000 x 8.8 us) / (40 x 1 ms + 8000 x 8 us) = 110.4 / 104; no kernel gated alone.
  const std::vector<ProfileSummary> spread = {KernelOnlyRun(1.1, 1.0, 40, 1.0, 80)};
  const CompareResult s = CompareWithHistory(history, spread, GateSettings{}, "h.jsonl");
  EXPECT_NEAR(*Row(s, "kernel-total")->ratio, 110.4 / 104.0, 0.005);
  EXPECT_EQ(Row(s, "kernel-total")->verdict, Verdict::kRegressed);
  EXPECT_FALSE(Row(s, "kernel:s0")->gated);
  EXPECT_EQ(s.exit_code, 1);
}

// A12: lines written before rules 4 (no device count, rules 3) hold the kernels' medians, so
// they get the gated row too (the stored total it once needed is gone).
TEST(HistoryTest, RulesThreeHistoryGetsTheComputeKernelTimeRow) {
  std::string text;
  for (HistoryEntry entry : KernelOnlyHistory()) {
    entry.rules = 3;
    entry.has_device_count = false;
    text += RenderHistoryLine(entry, "m.sqlite");
  }
  ASSERT_EQ(text.find("device_count"), std::string::npos) << text;
  const std::vector<HistoryEntry> history = ParseHistory(text, "h.jsonl");
  ASSERT_EQ(history.size(), 6u);
  EXPECT_EQ(history[0].rules, 3);
  const std::vector<ProfileSummary> slow = {KernelOnlyRun(1.25, 1.0, 40)};
  const CompareResult r = CompareWithHistory(history, slow, GateSettings{}, "h.jsonl");
  const MetricComparison* total = Row(r, "kernel-total");
  ASSERT_NE(total, nullptr);
  EXPECT_TRUE(total->gated);
  EXPECT_EQ(total->verdict, Verdict::kRegressed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(WarningWith(r, "compute kernel time not gated"), nullptr);
  EXPECT_NE(WarningWith(r, "6 of 6 history entries were written under earlier metric rules"),
            nullptr);
}

// A12: kernels of this run not in every line are left out of the row, said with their count and
// the share of this run's compute kernel time the row covers; under 90 %, a verdict reason.
TEST(HistoryTest, ComputeKernelTimeCoverageIsSaid) {
  const std::vector<HistoryEntry> history = KernelOnlyHistory();
  // 72 ms of the kernels in every line, 4 ms new: 94.7 %.
  ProfileSummary run = KernelOnlyRun(1.0, 1.0, 41);
  AddKernel(run, "fresh", 1e5, 1.0, 41);
  const CompareResult most =
      CompareWithHistory(std::span(history), std::span(&run, 1), GateSettings{}, "h.jsonl");
  const std::string* said = WarningWith(
      most,
      "compute kernel time / launch covers 94.7% of this run's compute kernel time: 1 of its 102 "
      "compute kernels is not in all 6 history entries with kernel rows");
  ASSERT_NE(said, nullptr);
  EXPECT_EQ(Row(most, "kernel-total")->verdict, Verdict::kNoChange);
  // 5.3 % of the kernel time in no total: a reason (a kernel of 1 % would be gated alone).
  EXPECT_EQ(most.verdict, "pass-with-warnings");
  EXPECT_TRUE(std::any_of(
      most.verdict_reasons.begin(), most.verdict_reasons.end(),
      [](const std::string& reason) { return reason.find("covers 94.7%") != std::string::npos; }));
  // Under 1 % left out: said, not a reason.
  ProfileSummary tiny = KernelOnlyRun(1.0, 1.0, 41);
  AddKernel(tiny, "fresh", 1e3, 1.0, 41);
  const CompareResult little =
      CompareWithHistory(std::span(history), std::span(&tiny, 1), GateSettings{}, "h.jsonl");
  EXPECT_NE(WarningWith(little, "covers 99.9% of this run's compute kernel time"), nullptr);
  for (const std::string& reason : little.verdict_reasons)
    EXPECT_EQ(reason.find("compute kernel time"), std::string::npos) << reason;
  // 72 ms of 112 ms: 64.3 %, a reason of PASS WITH WARNINGS.
  ProfileSummary low = KernelOnlyRun(1.0, 1.0, 41);
  AddKernel(low, "fresh", 1e6, 1.0, 41);
  const CompareResult part =
      CompareWithHistory(std::span(history), std::span(&low, 1), GateSettings{}, "h.jsonl");
  EXPECT_NE(WarningWith(part, "covers 64.3% of this run's compute kernel time: 1 of its 102"),
            nullptr);
  EXPECT_EQ(part.verdict, "pass-with-warnings");
  EXPECT_TRUE(std::any_of(
      part.verdict_reasons.begin(), part.verdict_reasons.end(),
      [](const std::string& reason) { return reason.find("covers 64.3%") != std::string::npos; }));
}

// A kernel added since the history began is in the later lines only. With 5 or more lines that
// hold every kernel of this run found in the history, the total rests on those lines, so a
// regression of the new kernels is caught; it was left out of the row, which passed.
TEST(HistoryTest, ComputeKernelTimeUsesTheLinesThatHoldTheNewKernels) {
  std::vector<HistoryEntry> history = KernelOnlyHistory();  // 6 lines without the late kernels
  for (int run = 6; run < 13; ++run) {
    const double session = 1.0 + 0.003 * (run % 3 - 1);
    ProfileSummary p = KernelOnlyRun(1.0, session, run);
    for (int k = 0; k < 10; ++k)
      AddKernel(p, fmt::format("late{}", k), 8000, session, run);
    // A tiny kernel (0.01 %) in 5 of the 7 new lines: not worth narrowing the band for.
    if (run < 11) AddKernel(p, "tiny", 20, session, run);
    history.push_back(HistoryEntryOf(p));
  }
  // A rare kernel in one old line only: it must not make every line unusable.
  {
    ProfileSummary p = KernelOnlyRun(1.0, 1.0, 0);
    AddKernel(p, "rare", 8000, 1.0, 0);
    history[0] = HistoryEntryOf(p);
  }
  // 10 late kernels of 0.43 % each (none gated alone) twice as slow: +4.3 % of the kernel time.
  ProfileSummary run = KernelOnlyRun(1.0, 1.0, 41);
  for (int k = 0; k < 10; ++k)
    AddKernel(run, fmt::format("late{}", k), 16000, 1.0, 41);
  AddKernel(run, "rare", 8000, 1.0, 41);
  AddKernel(run, "tiny", 20, 1.0, 41);
  const CompareResult r =
      CompareWithHistory(std::span(history), std::span(&run, 1), GateSettings{}, "h.jsonl");
  const MetricComparison* total = Row(r, "kernel-total");
  ASSERT_NE(total, nullptr);
  EXPECT_EQ(total->verdict, Verdict::kRegressed) << *total->ratio;
  EXPECT_NE(WarningWith(r, "rests on the 7 of 13 history entries with kernel rows"), nullptr);
  // The rare and the tiny kernels are left out, and said.
  EXPECT_NE(WarningWith(r, "2 of its 113 compute kernels are not in all 7 history entries"),
            nullptr);
}

// Two sets of lines cover this run's compute kernel time nearly equally (within 1 %): the row
// rests on the newest, which hold main as it is now. The older set, which covered 0.08 % more,
// was taken: its lines predate an accepted 10 % slowdown of the main kernel, and the unchanged
// run read +9.1 %, REGRESSED.
TEST(HistoryTest, ComputeKernelTimePrefersTheNewestLinesAtNearlyEqualCoverage) {
  auto run_of = [](int run, double main_ns) {
    const double session = 1.0 + 0.003 * (run % 3 - 1);
    ProfileSummary p;
    p.path = fmt::format("run{}.sqlite", run);
    p.device_model = "GPU X";
    p.device_count = 1;
    AddKernel(p, "main", main_ns, session, run);
    return p;
  };
  std::vector<HistoryEntry> history;
  for (int run = 0; run < 12; ++run) {
    // Lines 0-5 before the slowdown (and with the kernel "older"), 6-11 after (with "newer").
    ProfileSummary p = run_of(run, run < 6 ? 1e6 : 1.1e6);
    AddKernel(p, run < 6 ? "older" : "newer", run < 6 ? 101000 : 100000, 1.0, run);
    history.push_back(HistoryEntryOf(p));
  }
  ProfileSummary now = run_of(40, 1.1e6);
  AddKernel(now, "older", 101000, 1.0, 40);
  AddKernel(now, "newer", 100000, 1.0, 40);
  const CompareResult r =
      CompareWithHistory(std::span(history), std::span(&now, 1), GateSettings{}, "h.jsonl");
  const MetricComparison* total = Row(r, "kernel-total");
  ASSERT_NE(total, nullptr);
  EXPECT_NEAR(*total->ratio, 1.0, 0.005);
  EXPECT_EQ(total->verdict, Verdict::kNoChange) << *total->ratio;
  EXPECT_NE(WarningWith(r, "rests on the 6 of 12 history entries with kernel rows"), nullptr);
  EXPECT_NE(WarningWith(r, "1 of its 3 compute kernels is not in all 6 history entries"), nullptr);
  // Beyond 1 % more coverage, the older lines are used: "older" three times the time.
  ProfileSummary more = run_of(40, 1.1e6);
  AddKernel(more, "older", 303000, 1.0, 40);
  AddKernel(more, "newer", 100000, 1.0, 40);
  const CompareResult o =
      CompareWithHistory(std::span(history), std::span(&more, 1), GateSettings{}, "h.jsonl");
  EXPECT_GT(*Row(o, "kernel-total")->ratio, 1.05);
}

// F13: lines record the run's number of active GPUs; a line of another count is refused (as
// another GPU model is), with the count; lines without it are compared and counted.
TEST(HistoryTest, DeviceCountIsRecordedAndChecked) {
  ProfileSummary run = Current(41.2);
  run.device_count = 2;
  const HistoryEntry written = HistoryEntryOf(run);
  EXPECT_TRUE(written.has_device_count);
  EXPECT_EQ(written.device_count, 2u);
  const std::vector<HistoryEntry> parsed =
      ParseHistory(RenderHistoryLine(written, "a.sqlite"), "h.jsonl");
  EXPECT_TRUE(parsed[0].has_device_count);
  EXPECT_EQ(parsed[0].device_count, 2u);
  EXPECT_THROW(ParseHistory(R"({"device_count": 1.5, "metrics": {"iteration": 5}})", "h.jsonl"),
               InputError);
  std::vector<HistoryEntry> history = E9History();
  for (size_t i = 0; i < history.size(); ++i) {
    history[i].line = i + 1;
    history[i].device_count = i == 4 || i == 7 ? 2 : 1;
    history[i].has_device_count = true;
  }
  const std::vector<ProfileSummary> now = {Current(41.3)};
  try {
    CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "h.jsonl:5");
    EXPECT_NE(std::string(e.what()).find("2 of 10 history entries were recorded on 2 active "
                                         "GPU(s), pr.sqlite on 1"),
              std::string::npos)
        << e.what();
  }
  history[4].has_device_count = false;
  history[7].has_device_count = false;
  const CompareResult r = CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
  EXPECT_NE(WarningWith(r, "2 of 10 history entries record no device count"), nullptr);
}

// A15: the metric definitions changed after rules 3 (MSER's 3-batch rule, disjoint-window idle,
// "device_count"): lines of rules 3 are counted as written under earlier rules.
TEST(HistoryTest, RulesThreeLinesAreEarlierRules) {
  EXPECT_EQ(kHistoryRules, 4);
  std::vector<HistoryEntry> history = E9History();
  history[1].rules = 3;
  history[2].rules = 3;
  history[2].has_iteration_range = false;  // rules 3 lines record it: said
  const std::vector<ProfileSummary> now = {Current(41.3)};
  const CompareResult r = CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
  const std::string* older = WarningWith(r, "written under earlier metric rules");
  ASSERT_NE(older, nullptr);
  EXPECT_EQ(older->rfind("2 of 10 history entries", 0), 0u) << *older;
  EXPECT_NE(older->find("(rules 4)"), std::string::npos) << *older;
  EXPECT_NE(WarningWith(r, "1 of 10 history entries record no iteration range"), nullptr);
}

// F7: the result says how many lines were used and why others were left out.
TEST(HistoryTest, ResultCountsLinesUsedAndLeftOut) {
  std::vector<HistoryEntry> history = E9History();
  for (size_t i = 0; i < 3; ++i)
    history[i].iteration_range = "fwd";
  const std::vector<ProfileSummary> now = {Current(41.3)};
  const CompareResult r = CompareWithHistory(history, now, GateSettings{}, "h.jsonl");
  EXPECT_EQ(r.history_entries, 10u);
  EXPECT_EQ(r.history_used, 7u);
  ASSERT_EQ(r.history_left_out.size(), 1u);
  EXPECT_EQ(r.history_left_out[0], "3 recorded with --iteration-range fwd");
}

}  // namespace
}  // namespace gpuroof
