// The gate's decision rule, floors and defaults (docs/metrics.md,
// "compare"). Pure: numbers in, verdict out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuroof {

enum class Verdict {
  kLowN,          // too few samples for an interval: threshold-only fallback
  kRegressed,     // slower beyond the floor and the minimum effect
  kImproved,      // faster beyond the floor and the minimum effect
  kInconclusive,  // a regression of the target size cannot be ruled out
  kWithinNoise,   // statistically different, but not beyond floor / minimum effect
  kNoChange,      // "~"
  kNew,           // only in the current profiles
  kRemoved,       // only in the baseline profiles
  kChanged,       // an exact count (launches, bytes per iteration) differs
};

// "REGRESSED", "~", "WITHIN NOISE", ... as the text table prints them.
std::string_view VerdictLabel(Verdict verdict);
// "regressed", "no-change", "within-noise", ... as the JSON writes them.
std::string_view VerdictId(Verdict verdict);

// Settings of the gate; defaults of §3.5.
struct GateSettings {
  double alpha = 0.01;
  double min_effect = 0.02;
  double target = 0.05;
  double floor_time = 0.03;    // iteration time, GPU busy, ranges (single-run)
  double floor_kernel = 0.05;  // kernels (single-run)
  double floor_copy = 0.35;    // copy engines (single-run; report-only unless gated)
  size_t n_min = 6;
  double kernel_min_share = 0.01;        // of baseline GPU time
  double kernel_min_impact = 0.005;      // of the iteration
  double range_min_share = 0.05;         // of the iteration: annotation ranges gated above it
  std::vector<std::string> gate_ranges;  // annotation ranges gated whatever their share
  bool fail_on_inconclusive = false;
  bool gate_copies = false;
  bool gate_counts = false;
  bool low_n_gate = false;
  // --across-hardware: different GPU models (or driver/CUDA versions) compared as an exploratory
  // diff; nothing fails unless --fail-on was given (`fail_on_given`).
  bool across_hardware = false;
  bool fail_on_given = false;
  // The bootstrap interval of the median ratio (MetricComparison::median_ratio, iteration-level
  // metrics, single-run): only the JSON shows it, and B = 2000 resamples of every iteration cost
  // more than the rest of the estimates, so a run that writes no JSON skips it.
  bool bootstrap_median_ratio = true;
};

// The verdict for an estimated log ratio `theta` with two-sided interval [low, high], floor f
// (a fraction, 0 in multi-run and history modes), under `settings` (first match wins):
//   REGRESSED    low > ln(1+f) and theta > ln(1+min_effect)
//   IMPROVED     high < -ln(1+f) and theta < -ln(1+min_effect)
//   INCONCLUSIVE high >= ln(1+target)
//   WITHIN NOISE low > 0 or high < 0
//   ~            otherwise
Verdict Decide(double theta, double low, double high, double floor, const GateSettings& settings);

// The LOW-N fallback: whether the point ratio exceeds 1 + floor + min_effect (then the metric is
// flagged and gates only under --low-n gate).
bool LowNExceedsThreshold(double ratio, double floor, const GateSettings& settings);

// History mode (§4.4): REGRESSED when the current log summary is above the one-sided upper
// prediction limit mean + q and more than ln(1 + min_effect) above the history mean; IMPROVED
// mirrored below mean - q; INCONCLUSIVE when the run is above the mean and delta + q reaches
// ln(1 + target) (a target-size regression is not ruled out: the band is too wide); WITHIN NOISE
// beyond a limit without the minimum effect; else ~.
// `half_width` is q = t_{1-alpha,h-1} sd sqrt(1 + 1/h).
Verdict DecideHistory(double current, double history_mean, double half_width,
                      const GateSettings& settings);

// Whether an annotation range is gated (§3.3): its share of the iteration reaches
// range_min_share, or it is named by --gate-range.
bool RangeGated(double share_of_iteration, const std::string& name, const GateSettings& settings);

// NCCL and other collective kernels (IsCollectiveKernelName, docs/metrics.md) wait for the other
// ranks: their time says more about the slowest GPU than about this change, so they are
// report-only (§3.3).
bool CollectiveKernel(std::string_view key);

// Whether a kernel is gated (§3.3): share >= kernel_min_share, |impact| >= kernel_min_impact, not
// a collective. `below_impact`: eligible by share but not gated only because its measured impact
// is under the threshold — it was checked, and the verdict rests on it (a PASS needs it to have
// an interval, and an INCONCLUSIVE one is a warning).
struct KernelGating {
  bool gated = false;
  bool below_impact = false;
};
// `current_share`: the kernel's share of the current kernel time; a kernel is eligible when
// either side's share reaches kernel_min_share (a kernel that was cheap and became expensive is
// gated too; a departure from §3.3, docs/metrics.md).
KernelGating GateKernel(double share, double impact, std::string_view key,
                        const GateSettings& settings, double current_share = 0);

// Kernel impact as a fraction of the iteration (§4.7): share * (ratio - 1).
inline double KernelImpact(double share, double ratio) {
  return share * (ratio - 1.0);
}

}  // namespace gpuroof
