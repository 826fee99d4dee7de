// The regression gate: compares baseline and current profile summaries metric by metric and
// decides (docs/metrics.md, "compare").
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/regression/bootstrap.h"
#include "gpuroof/analyses/regression/decision.h"
#include "gpuroof/analyses/regression/profile_samples.h"

namespace gpuroof {

enum class CompareMode {
  kSingleRun,  // one profile per side: within-profile tests, level noise floors
  kMultiRun,   // several profiles on a side: run-level pooled t, floor 0
  kHistory,    // current run against a history of earlier runs: prediction interval
};
std::string_view CompareModeName(CompareMode mode);

// One side of a metric: sample (single-run) or run (multi-run) count, median, spread.
struct SideSummary {
  size_t n = 0;
  double median = 0;
  double iqr_rel = 0;  // (p75 - p25) / median
};

// Per-kernel warm-up of one side, summed over its profiles.
struct WarmupTrim {
  size_t dropped = 0;          // launches dropped from the front
  size_t of = 0;               // launches before the trim
  size_t no_steady_state = 0;  // profiles where MSER-5 reached its cap (trim undone)
};

struct MetricComparison {
  std::string id;  // stable: "iteration", "busy:kernel:0", "copy:H2D:0", "kernel:KEY", ...
  MetricLevel level = MetricLevel::kIteration;
  std::string name;
  bool gated = false;
  // A kernel eligible by share whose |impact| is under the gating threshold: not gated (it
  // cannot fail the gate), but checked — the verdict rests on it too (GateKernel()).
  bool below_impact = false;
  std::optional<SideSummary> baseline;  // unset for NEW
  std::optional<SideSummary> current;   // unset for REMOVED
  std::optional<double> ratio;          // current / baseline (HL on logs, or geomean ratio)
  std::optional<double> ci_low;         // ratio interval
  std::optional<double> ci_high;
  double ci_level = 0;  // 1 - alpha (1 - alpha/m_K for gated kernels)
  std::string method;   // "hodges-lehmann-log/moses", "pooled-t-log", "exact", "median-ratio"
  std::optional<BootstrapInterval> median_ratio;  // iteration-level metrics, single-run
  std::string test;                               // "mann-whitney-u", "pooled-t", ""
  std::optional<double> p_value;
  std::optional<double> p_adjusted;    // Holm, gated kernels
  std::optional<double> run_mwu_p;     // multi-run, >= 5 runs per side: exact MWU on summaries
  std::optional<double> share;         // kernels: of baseline kernel time
  std::optional<double> time_ratio;    // kernels: time-per-iteration ratio
  std::optional<double> impact;        // kernels: share of iteration x (time ratio - 1)
  std::optional<double> mde;           // minimum detectable effect (gated metrics)
  std::optional<double> delta;         // exact levels: current - baseline median; GPU idle: shift
  std::optional<double> delta_ci_low;  // GPU idle: the shift's interval (ns)
  std::optional<double> delta_ci_high;
  std::optional<double> delta_of_iteration;  // GPU idle: shift / baseline median iteration
  double floor = 0;
  // Every sample of both sides is the same value (§5 E3): the test has no information (p = 1);
  // said in a warning (a timer too coarse for the metric, or a profile compared with itself).
  bool identical = false;
  Verdict verdict = Verdict::kNoChange;
  bool low_n_over_threshold = false;
  std::optional<WarmupTrim> baseline_trim;  // per-kernel warm-up (kernel level, no iterations)
  std::optional<WarmupTrim> current_trim;
};

// Counted from the rows (`metrics`) they summarise. The verdict rests on the gated rows and the
// kernels below the impact threshold (MetricComparison::below_impact): "checked", "low_n" and
// "inconclusive" count both.
struct CompareSummary {
  size_t gated = 0;
  size_t below_impact = 0;  // kernels eligible by share, not gated: |impact| under the threshold
  size_t checked = 0;       // of those two: with an interval (not LOW-N)
  size_t low_n = 0;         // of those two: LOW-N, too few samples (threshold-only)
  size_t failed = 0;        // gated rows that fail the gate (REGRESSED, LOW-N under --low-n gate)
  size_t regressed = 0;     // gated REGRESSED
  size_t improved = 0;      // gated IMPROVED
  size_t inconclusive = 0;  // of those two: INCONCLUSIVE
  size_t reported = 0;      // not gated (below_impact kernels included)
  std::map<Verdict, size_t> rows;  // every row (gated or not) by verdict
};

struct CompareResult {
  CompareMode mode = CompareMode::kSingleRun;
  GateSettings settings;
  std::vector<MetricComparison> metrics;  // gated REGRESSED first, then by level and impact
  CompareSummary summary;
  std::optional<double> geomean_weighted;  // gated kernels' time ratios, weights = share
  std::optional<double> geomean_plain;
  std::optional<double> noise_sd;  // multi-run: pooled SD of the iteration (or top kernel) logs
  std::vector<std::string> warnings;
  // How devices were paired: "position" (one active GPU per side: metric ids name position 0)
  // or "id" (several: metric ids name device ids). Both sides' ids, for the report.
  std::string device_matching = "position";
  std::vector<int32_t> baseline_devices;
  std::vector<int32_t> current_devices;
  int exit_code = 0;  // 0 pass, 1 regression (or inconclusive under --fail-on inconclusive)
  // "pass": at least one gated metric checked with enough samples, none regressed, nothing to
  // warn about. "pass-with-warnings": exit 0 but `verdict_reasons` say what the pass does not
  // rest on. "regression", "inconclusive" (--fail-on inconclusive): exit 1. "exploratory":
  // --across-hardware, no gate (exit 1 only when --fail-on was given and matched).
  std::string verdict;
  std::vector<std::string> verdict_reasons;  // why not a plain PASS (or why it failed)
  // History mode: the lines read, those compared, and why the others were left out (one text
  // per cause, starting with its count: "3 recorded with --iteration-range fwd").
  size_t history_entries = 0;
  size_t history_used = 0;
  std::vector<std::string> history_left_out;
};

// Compares the profiles. Throws InputError when they are not comparable: different GPU model or
// device count, iterations on one side only, no metric present on both sides, or (unless
// --across-hardware) kernels on both sides without a kernel key in common.
CompareResult CompareProfiles(std::span<const ProfileSummary> baseline,
                              std::span<const ProfileSummary> current,
                              const GateSettings& settings);

// Throws InputError naming the odd profile when a profile of either side differs from the
// first baseline profile (the first current one when `baseline` is empty) in GPU model (unless
// `across_hardware`) or in the number of active devices.
void CheckProfilesComparable(std::span<const ProfileSummary> baseline,
                             std::span<const ProfileSummary> current, bool across_hardware);

// Throws InputError (source `source`) when both sides have kernel rows but no kernel key in
// common (every kernel NEW or REMOVED) and nothing else is gated (no iterations): the kernels are
// named or launched differently on the two sides, and a gate over no shared kernel would pass on
// nothing. With a gated iteration or busy time the gate rests on those, and the unmatched kernels
// are said in the verdict.
void CheckKernelKeysShared(std::span<const MetricComparison> metrics, const std::string& source);

// The steps every mode shares once `result.metrics` hold their verdicts: summary counts,
// geomeans, MDE warnings, display order, verdict and exit code. `profiles` are scanned for
// NONSTATIONARY warnings.
void FinishComparison(CompareResult& result, std::span<const ProfileSummary> baseline,
                      std::span<const ProfileSummary> current);

}  // namespace gpuroof
