#include "gpuroof/analyses/regression/gate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/message_list.h"
#include "gpuroof/analyses/regression/distributions.h"
#include "gpuroof/analyses/regression/history.h"
#include "gpuroof/analyses/regression/hodges_lehmann.h"
#include "gpuroof/analyses/regression/holm.h"
#include "gpuroof/analyses/regression/mann_whitney.h"
#include "gpuroof/analyses/regression/run_level.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/enum_names.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/parallel_for.h"

namespace gpuroof {

namespace {

// Durations are clamped to 1 ns before logs: an engine idle for a whole iteration has busy 0.
std::vector<double> SortedLogs(const std::vector<double>& values) {
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values)
    logs.push_back(std::log(std::max(v, 1.0)));
  std::sort(logs.begin(), logs.end());
  return logs;
}

SideSummary Summarize(std::vector<double> values) {
  SideSummary side;
  side.n = values.size();
  if (values.empty()) return side;
  side.median = MedianInPlace(values);
  if (side.median > 0) {
    // Selection, not a sort: a side can hold a million launches.
    const double p75 = SelectQuantile(values, 0.75);
    side.iqr_rel = (p75 - SelectQuantile(values, 0.25)) / side.median;
  }
  return side;
}

double Median(std::vector<double> values) {
  return MedianInPlace(values);
}

// The samples of one metric on one side: per profile (empty where the profile lacks it).
struct SideSamples {
  std::vector<const SampleSet*> profiles;
  bool any() const {
    return std::any_of(profiles.begin(), profiles.end(), [](const SampleSet* s) { return s; });
  }
  std::vector<double> Pooled() const {
    std::vector<double> all;
    for (const SampleSet* s : profiles)
      if (s) all.insert(all.end(), s->values.begin(), s->values.end());
    return all;
  }
  // The median of each profile that has the metric.
  std::vector<double> RunMedians() const {
    std::vector<double> out;
    for (const SampleSet* s : profiles)
      if (s && !s->values.empty()) out.push_back(Median(s->values));
    return out;
  }
  // ln(median) of each profile that has the metric: the run summaries of §4.4.
  std::vector<double> RunSummaries() const {
    std::vector<double> out;
    for (const SampleSet* s : profiles)
      if (s && !s->values.empty()) out.push_back(std::log(std::max(Median(s->values), 1.0)));
    return out;
  }
  double Total() const {
    double total = 0;
    for (const SampleSet* s : profiles)
      if (s) total += s->total;
    return total;
  }
  size_t Count() const {
    size_t n = 0;
    for (const SampleSet* s : profiles)
      if (s) n += s->values.size();
    return n;
  }
};

SideSamples Collect(std::span<const ProfileSummary> profiles, const std::string& id) {
  SideSamples side;
  for (const ProfileSummary& p : profiles) {
    auto it = p.metrics.find(id);
    side.profiles.push_back(it == p.metrics.end() ? nullptr : &it->second);
  }
  return side;
}

// The sorted log samples of a metric, kept so the gated kernels' intervals can be narrowed to
// the family level without sorting or estimating again.
struct LogSamples {
  std::vector<double> baseline;
  std::vector<double> current;
  double estimate = 0;  // HL shift of the logs
};

// Sets the interval, verdict and MDE of a Hodges-Lehmann estimate at level 1 - alpha.
void ApplyShiftInterval(MetricComparison& m, double estimate, const ShiftInterval& interval,
                        double alpha, const GateSettings& settings) {
  m.ci_level = 1.0 - alpha;
  if (!interval.low || !interval.high) {
    m.ci_low.reset();
    m.ci_high.reset();
    m.mde.reset();
    m.verdict = Verdict::kLowN;
    m.low_n_over_threshold = LowNExceedsThreshold(*m.ratio, m.floor, settings);
    return;
  }
  m.ci_low = std::exp(*interval.low);
  m.ci_high = std::exp(*interval.high);
  m.verdict = Decide(estimate, *interval.low, *interval.high, m.floor, settings);
  m.mde = m.floor + (*m.ci_high - *m.ci_low) / 2.0;
}

// Within-profile estimate (single-run): HL + Moses on logs, MWU, optional bootstrap. `keep`, when
// given, receives the sorted logs of an estimated metric (left empty for LOW-N by count).
void EstimateSingleRun(MetricComparison& m, const std::vector<double>& x,
                       const std::vector<double>& y, double alpha, const GateSettings& settings,
                       bool bootstrap, LogSamples* keep = nullptr) {
  m.baseline = Summarize(x);
  m.current = Summarize(y);
  m.ci_level = 1.0 - alpha;
  if (x.size() < settings.n_min || y.size() < settings.n_min || m.baseline->median <= 0) {
    m.method = "median-ratio";
    if (m.baseline->median > 0) m.ratio = m.current->median / m.baseline->median;
    m.verdict = Verdict::kLowN;
    m.low_n_over_threshold = m.ratio && LowNExceedsThreshold(*m.ratio, m.floor, settings);
    return;
  }
  std::vector<double> a = SortedLogs(x);
  std::vector<double> b = SortedLogs(y);
  const ShiftEstimate shift = HodgesLehmannShift(a, b, alpha);
  m.method = "hodges-lehmann-log/moses";
  m.ratio = std::exp(shift.estimate);
  const MannWhitneyResult test = MannWhitneyU(a, b);
  m.test = test.exact ? "mann-whitney-u-exact" : "mann-whitney-u";
  m.p_value = test.p_value;
  m.identical = test.identical;
  if (bootstrap) m.median_ratio = BootstrapMedianRatio(x, y, alpha);
  ApplyShiftInterval(m, shift.estimate, {shift.ci_low, shift.ci_high, shift.moses_rank}, alpha,
                     settings);
  if (keep) *keep = {std::move(a), std::move(b), shift.estimate};
}

// GPU idle (§3.3, report-only): idle time can be ~0, so no logs. Single-run: Hodges-Lehmann
// shift of the raw ns with its Moses interval; multi-run: pooled t on the run medians. The verdict
// is CHANGED when the interval excludes 0, else ~ (LOW-N without an interval).
void EstimateIdleShift(MetricComparison& m, const SideSamples& b, const SideSamples& c, bool multi,
                       double alpha, double iteration_median) {
  m.gated = false;
  m.floor = 0;
  m.ci_level = 1.0 - alpha;
  std::optional<double> estimate;
  std::optional<double> low;
  std::optional<double> high;
  if (multi) {
    m.baseline = Summarize(b.RunMedians());
    m.current = Summarize(c.RunMedians());
    if (const auto t = PooledT(b.RunMedians(), c.RunMedians(), alpha)) {
      m.method = "pooled-t-raw";
      m.test = "pooled-t";
      m.p_value = t->p_value;
      estimate = t->mean_difference;
      low = t->ci_low;
      high = t->ci_high;
    }
  } else {
    std::vector<double> x = b.Pooled();
    std::vector<double> y = c.Pooled();
    m.baseline = Summarize(x);
    m.current = Summarize(y);
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    if (!x.empty() && !y.empty()) {
      const ShiftEstimate shift = HodgesLehmannShift(x, y, alpha);
      m.method = "hodges-lehmann-raw/moses";
      estimate = shift.estimate;
      low = shift.ci_low;
      high = shift.ci_high;
      const MannWhitneyResult test = MannWhitneyU(x, y);
      m.test = test.exact ? "mann-whitney-u-exact" : "mann-whitney-u";
      m.p_value = test.p_value;
    }
  }
  if (!estimate) {
    m.method = "median-difference";
    m.delta = m.current->median - m.baseline->median;
    m.verdict = Verdict::kLowN;
    return;
  }
  m.delta = *estimate;
  // A share of the baseline's median iteration (its CPU range) only while the baseline's idle fits
  // in it: idle is kept at most the iteration's length, the longer of the range and the span of
  // the GPU work it launched, so work launched asynchronously from a short range gives idle past
  // the range, and a shift over the range's length is no share of anything (saxpy: 20.1 ms of
  // idle per 65.5 us range, a -182 us shift read -278.3 % of iter).
  if (iteration_median > 0 && m.baseline->median <= iteration_median)
    m.delta_of_iteration = *estimate / iteration_median;
  if (!low || !high) {
    m.verdict = Verdict::kLowN;
    return;
  }
  m.delta_ci_low = *low;
  m.delta_ci_high = *high;
  m.verdict = *low > 0 || *high < 0 ? Verdict::kChanged : Verdict::kNoChange;
}

// Run-level estimate (multi-run): pooled t on ln(run medians), floor 0.
void EstimateRunLevel(MetricComparison& m, const SideSamples& base, const SideSamples& cur,
                      double alpha, const GateSettings& settings) {
  const std::vector<double> sb = base.RunSummaries();
  const std::vector<double> sc = cur.RunSummaries();
  std::vector<double> eb;
  std::vector<double> ec;
  for (double s : sb)
    eb.push_back(std::exp(s));
  for (double s : sc)
    ec.push_back(std::exp(s));
  m.baseline = Summarize(eb);
  m.current = Summarize(ec);
  m.ci_level = 1.0 - alpha;
  m.floor = 0;
  const auto t = PooledT(sb, sc, alpha);
  if (!t) {
    m.method = "median-ratio";
    if (m.baseline->median > 0) m.ratio = m.current->median / m.baseline->median;
    m.verdict = Verdict::kLowN;
    m.low_n_over_threshold = m.ratio && LowNExceedsThreshold(*m.ratio, 0, settings);
    return;
  }
  m.method = "pooled-t-log";
  m.test = "pooled-t";
  m.ratio = std::exp(t->mean_difference);
  m.ci_low = std::exp(t->ci_low);
  m.ci_high = std::exp(t->ci_high);
  m.p_value = t->p_value;
  if (sb.size() >= 5 && sc.size() >= 5) m.run_mwu_p = MannWhitneyU(sb, sc).p_value;
  m.verdict = Decide(t->mean_difference, t->ci_low, t->ci_high, 0.0, settings);
  m.mde = RunLevelMde(t->standard_error, t->df, alpha);
}

}  // namespace

std::string_view CompareModeName(CompareMode mode) {
  // As the settings line and the JSON's "mode" write them (docs/cli.md, "gpuroof compare").
  constexpr std::array<EnumName<CompareMode>, 3> kNames = {{{CompareMode::kSingleRun, "single-run"},
                                                            {CompareMode::kMultiRun, "multi-run"},
                                                            {CompareMode::kHistory, "history"}}};
  static_assert(kNames.size() == static_cast<size_t>(CompareMode::kHistory) + 1,
                "every mode has its name");
  return NameOf(kNames, mode, "?");
}

void CheckProfilesComparable(std::span<const ProfileSummary> baseline,
                             std::span<const ProfileSummary> current, bool across_hardware) {
  if (baseline.empty() && current.empty()) return;
  const ProfileSummary& reference = baseline.empty() ? current.front() : baseline.front();
  auto check = [&](const ProfileSummary& p) {
    if (p.device_model != reference.device_model && !across_hardware) {
      throw InputError(p.path, fmt::format("not comparable: GPU model '{}' differs from '{}' in {}",
                                           p.device_model, reference.device_model, reference.path));
    }
    if (p.device_count != reference.device_count) {
      throw InputError(p.path, fmt::format("not comparable: {} active device(s), {} has {}",
                                           p.device_count, reference.path, reference.device_count));
    }
  };
  for (const ProfileSummary& p : baseline)
    check(p);
  for (const ProfileSummary& p : current)
    check(p);
}

void CheckKernelKeysShared(std::span<const MetricComparison> metrics, const std::string& source) {
  size_t common = 0;
  size_t removed = 0;
  size_t added = 0;
  const MetricComparison* first_removed = nullptr;
  const MetricComparison* first_added = nullptr;
  size_t gated_elsewhere = 0;  // shared metrics other than kernels that the gate checks
  for (const MetricComparison& m : metrics) {
    if (m.level != MetricLevel::kKernel) {
      if (m.gated && m.verdict != Verdict::kRemoved && m.verdict != Verdict::kNew)
        ++gated_elsewhere;
      continue;
    }
    if (m.verdict == Verdict::kRemoved) {
      ++removed;
      if (!first_removed) first_removed = &m;
    } else if (m.verdict == Verdict::kNew) {
      ++added;
      if (!first_added) first_added = &m;
    } else {
      ++common;
    }
  }
  // With the iteration time or GPU busy time gated, the gate rests on them: kernels relaunched
  // with other shapes (or keys of an older history) are NEW/REMOVED rows, said in the verdict.
  if (common > 0 || removed == 0 || added == 0 || gated_elsewhere > 0) return;
  throw InputError(
      source,
      fmt::format("not comparable: no kernel key in common: {} kernel(s) only in the baseline "
                  "(e.g. '{}'), {} only in the current run (e.g. '{}'); launched with other "
                  "grids or blocks (--kernel-key name compares them), or named differently "
                  "(another profiler, or a history written under earlier rules)?",
                  removed, first_removed->name, added, first_added->name));
}

namespace {

// The order of the levels among a comparison's rows, after the gated regressions.
constexpr std::array kLevelOrder = {
    MetricLevel::kIteration, MetricLevel::kGpuBusy,  MetricLevel::kKernelTotal, MetricLevel::kRange,
    MetricLevel::kKernel,    MetricLevel::kCopyBusy, MetricLevel::kCommBusy,    MetricLevel::kIdle,
    MetricLevel::kLaunches,  MetricLevel::kBytes,    MetricLevel::kEngineTotal};
static_assert(kLevelOrder.size() == static_cast<size_t>(MetricLevel::kKernelTotal) + 1,
              "every level has a place in the order");

// A level's position in kLevelOrder.
size_t LevelOrder(MetricLevel level) {
  return static_cast<size_t>(std::find(kLevelOrder.begin(), kLevelOrder.end(), level) -
                             kLevelOrder.begin());
}

// A gated metric that fails the gate as a regression: REGRESSED, or LOW-N over its threshold
// under --low-n gate.
bool GatedRegression(const MetricComparison& m, const GateSettings& settings) {
  if (!m.gated) return false;
  if (m.verdict == Verdict::kRegressed) return true;
  return m.verdict == Verdict::kLowN && m.low_n_over_threshold && settings.low_n_gate;
}

// What a metric is called in a verdict reason: "iteration time", "GPU busy", "kernel NAME".
std::string ReasonLabel(const MetricComparison& m) {
  switch (m.level) {
    case MetricLevel::kIteration:
      return "iteration time";
    case MetricLevel::kGpuBusy:
      return "GPU busy" + (m.name.size() > 6 ? m.name.substr(6) : std::string());
    case MetricLevel::kCopyBusy:
      return fmt::format("copy {} busy", m.name);
    case MetricLevel::kCommBusy:
      return fmt::format("{} busy", m.name);
    case MetricLevel::kRange:
      return fmt::format("range [{}]", m.name);
    case MetricLevel::kKernel:
      return "kernel " + m.name;
    case MetricLevel::kKernelTotal:
      return "compute kernel time";
    default:
      return m.name;
  }
}

// What one sample of a metric is: a step (iteration-level), a launch, a range instance, a
// profile (multi-run: runs are the samples) or a history entry.
std::string_view SampleNoun(const MetricComparison& m, CompareMode mode) {
  if (mode == CompareMode::kMultiRun) return "profiles";
  if (mode == CompareMode::kHistory) return "history entries";
  if (m.level == MetricLevel::kKernel) return "launches";
  if (m.level == MetricLevel::kRange) return "instances";
  return "steps";
}

// The samples a side needs before the mode can give an interval: n_min a side (single-run), two
// runs on some side (multi-run: pooled t), kHistoryMinEntries earlier runs (history).
size_t SamplesNeeded(CompareMode mode, const GateSettings& settings) {
  switch (mode) {
    case CompareMode::kSingleRun:
      return settings.n_min;
    case CompareMode::kMultiRun:
      return 2;
    case CompareMode::kHistory:
      return kHistoryMinEntries;
  }
  return settings.n_min;
}

// "+28.9%"; a change that rounds to zero prints "+0.0%", never "-0.0%".
std::string SignedPercent(double ratio) {
  const double percent = 100.0 * (ratio - 1.0);
  return fmt::format("{:+.1f}%", std::fabs(percent) < 0.05 ? 0.0 : percent);
}

// "iteration time LOW-N (+28.9% over threshold), 4 < 6 steps".
std::string LowNReason(const MetricComparison& m, CompareMode mode, const GateSettings& settings) {
  std::string text = ReasonLabel(m) + " LOW-N";
  if (m.ratio) {
    text += fmt::format(" ({}{})", SignedPercent(*m.ratio),
                        m.low_n_over_threshold ? " over threshold" : ", under threshold");
  }
  // History mode: the baseline side is the history, whose entries are what runs short.
  const size_t n = mode == CompareMode::kHistory
                       ? (m.baseline ? m.baseline->n : 0)
                       : std::min(m.baseline ? m.baseline->n : 0, m.current ? m.current->n : 0);
  const size_t n_min = SamplesNeeded(mode, settings);
  if (m.level == MetricLevel::kKernelTotal && mode != CompareMode::kHistory) {
    text += ", most of the kernel time is in kernels with too few launches for an interval";
  } else if (n < n_min) {
    text += fmt::format(", {} < {} {}", n, n_min, SampleNoun(m, mode));
  } else {
    text += ", no interval";
  }
  return text;
}

// "kernel k INCONCLUSIVE (+1.2% [-3.0%, +6.1%]): a 5% regression is not ruled out".
std::string InconclusiveReason(const MetricComparison& m, const GateSettings& settings) {
  std::string text = ReasonLabel(m) + " INCONCLUSIVE";
  if (m.ratio && m.ci_low && m.ci_high) {
    text += fmt::format(" ({} [{}, {}])", SignedPercent(*m.ratio), SignedPercent(*m.ci_low),
                        SignedPercent(*m.ci_high));
  }
  return text + fmt::format(": a {:g}% regression is not ruled out", 100.0 * settings.target);
}

// Appends at most `limit` of `items` to `reasons`, then "and N more <what>".
void AddListed(std::vector<std::string>& reasons, const std::vector<std::string>& items,
               std::string_view what) {
  constexpr size_t kLimit = 3;
  for (size_t i = 0; i < items.size() && i < kLimit; ++i)
    reasons.push_back(items[i]);
  if (items.size() > kLimit) {
    reasons.push_back(fmt::format("and {} more {}", items.size() - kLimit, what));
  }
}

// ": it has N instance(s) on other threads of the iteration's process" when a profile counted
// the range there (ranges are taken on the iteration's thread only), else "".
std::string OtherThreadNote(const std::string& name, std::span<const ProfileSummary> baseline,
                            std::span<const ProfileSummary> current) {
  size_t instances = 0;
  for (const auto* side : {&baseline, &current})
    for (const ProfileSummary& p : *side)
      if (auto it = p.other_thread_ranges.find(name); it != p.other_thread_ranges.end())
        instances += it->second;
  if (instances == 0) return "";
  return fmt::format(
      " (it has {} instance(s) on other threads of the iteration's process, which are not "
      "compared)",
      instances);
}

// Why the comparison is not a plain PASS (docs/metrics.md, "compare", "Verdict"): what was not
// gated, gated with too few samples, inconclusive, or measured without a steady state.
std::vector<std::string> VerdictReasons(const CompareResult& result,
                                        std::span<const ProfileSummary> baseline,
                                        std::span<const ProfileSummary> current) {
  const GateSettings& settings = result.settings;
  const CompareSummary& summary = result.summary;
  std::vector<std::string> reasons;
  if (settings.across_hardware) {
    reasons.push_back("exploratory diff across hardware: nothing is gated");
  }
  // The same bytes on both sides (a CI job that compares the baseline with itself): whatever the
  // verdict, those profiles say nothing about a change.
  std::vector<std::string> same;
  for (const ProfileSummary& c : current) {
    for (const ProfileSummary& b : baseline) {
      if (c.same_bytes_group == 0 || c.same_bytes_group != b.same_bytes_group) continue;
      same.push_back(c.path == b.path ? c.path
                                      : fmt::format("{} (same bytes as {})", c.path, b.path));
      break;
    }
  }
  if (!same.empty()) {
    reasons.push_back(fmt::format(
        "the same profile on both sides: {} of {} current profile(s) are baseline ones: {}; a run "
        "compared with itself shows no change, whatever the code did",
        same.size(), current.size(), ListFirst(same, 3)));
  }
  std::vector<std::string> low_n;
  std::vector<std::string> inconclusive;
  size_t kernels_reported = 0;
  size_t kernels_checked = 0;
  size_t kernels_no_steady_state = 0;
  bool top_level_low_n = false;
  for (const MetricComparison& m : result.metrics) {
    const bool kernel = m.level == MetricLevel::kKernel;
    if (!m.gated && !m.below_impact) {
      kernels_reported += kernel ? 1 : 0;
      continue;
    }
    if (m.verdict == Verdict::kLowN) {
      low_n.push_back(LowNReason(m, result.mode, settings));
      top_level_low_n = top_level_low_n || !kernel;
    } else {
      kernels_checked += kernel ? 1 : 0;
    }
    if (m.verdict == Verdict::kInconclusive)
      inconclusive.push_back(InconclusiveReason(m, settings));
    const bool unsteady = (m.baseline_trim && m.baseline_trim->no_steady_state > 0) ||
                          (m.current_trim && m.current_trim->no_steady_state > 0);
    kernels_no_steady_state += unsteady ? 1 : 0;
  }
  if (!settings.across_hardware) {
    const size_t basis = summary.gated + summary.below_impact;
    if (basis == 0) {
      reasons.push_back(
          kernels_reported > 0
              ? fmt::format("nothing gated: none of the {} kernel(s) has {:g}% of the kernel time",
                            kernels_reported, 100.0 * settings.kernel_min_share)
              : std::string("nothing gated: no metric reached the gating thresholds"));
    } else if (summary.checked == 0) {
      reasons.push_back(fmt::format("nothing checked: all {} gated metric(s) are LOW-N", basis));
    }
  }
  // Kernels on one side only are not gated: when they hold a gating share of a side's kernel
  // time, the pass does not rest on them, and says so with the counts.
  size_t removed = 0;
  size_t added = 0;
  size_t removed_unknown = 0;  // history mode: the history has no kernel times
  double removed_share = 0;
  double added_share = 0;
  for (const MetricComparison& m : result.metrics) {
    if (m.level != MetricLevel::kKernel || CollectiveKernel(m.name)) continue;
    if (m.verdict == Verdict::kRemoved) {
      ++removed;
      removed_share += m.share.value_or(0);
      removed_unknown += m.share ? 0 : 1;
    } else if (m.verdict == Verdict::kNew) {
      ++added;
      added_share += m.share.value_or(0);
    }
  }
  if (removed_share >= settings.kernel_min_share || added_share >= settings.kernel_min_share ||
      removed_unknown > 0) {
    std::string removed_text = fmt::format("{} REMOVED", removed);
    if (removed > removed_unknown) {
      removed_text += fmt::format(" ({:.1f}% of the baseline kernel time)", 100.0 * removed_share);
    }
    reasons.push_back(
        fmt::format("unmatched kernels, not gated: {}, {} NEW ({:.1f}% of the current kernel time)",
                    removed_text, added, 100.0 * added_share));
  }
  AddListed(reasons, low_n, "LOW-N");
  if (top_level_low_n && kernels_checked > 0) {
    reasons.push_back(fmt::format(
        "small capture: gating rests on {} kernel(s) with per-launch samples within the steps",
        kernels_checked));
  }
  AddListed(reasons, inconclusive, "INCONCLUSIVE");
  if (kernels_no_steady_state > 0) {
    reasons.push_back(fmt::format(
        "NO STEADY STATE in the launches of {} checked kernel(s) (warm-up kept, see warnings)",
        kernels_no_steady_state));
  }
  // GPU work launched between the steps that no iteration was given is in no metric: a pass
  // does not rest on it when it is a gating share of a side's kernel time.
  for (const auto* side : {&baseline, &current}) {
    for (const ProfileSummary& p : *side) {
      if (p.kernel_time_ns > 0 &&
          p.between_kernel_ns >= settings.kernel_min_share * p.kernel_time_ns) {
        reasons.push_back(fmt::format(
            "outside the iterations: {}: {} GPU op(s), {} of compute kernel time ({:.1f}% "
            "of the steady kernel time), launched between the steps and in no metric",
            p.path, p.between_ops, FormatDurationNs(std::llround(p.between_kernel_ns)),
            100.0 * p.between_kernel_ns / p.kernel_time_ns));
      }
    }
  }
  for (const auto* side : {&baseline, &current}) {
    for (const ProfileSummary& p : *side) {
      for (const std::string& w : p.warnings) {
        for (std::string_view tag : {"NONSTATIONARY", "NO STEADY STATE", "WARM-UP", "DATA LOSS"}) {
          if (w.rfind(tag, 0) == 0) reasons.push_back(fmt::format("{}: {}", tag, p.path));
        }
      }
    }
  }
  return reasons;
}

// Warnings on the per-kernel warm-up (kernel level without iterations): the total dropped, the
// kernels where more than kTrimDisclosureShare of the launches went, and those without a steady
// state.
constexpr double kTrimDisclosureShare = 0.10;

void WarnAboutTrims(CompareResult& result) {
  WarmupTrim base_total;
  WarmupTrim cur_total;
  size_t kernels = 0;
  std::vector<std::string> large;
  std::vector<std::string> unsteady;
  for (const MetricComparison& m : result.metrics) {
    if (!m.baseline_trim && !m.current_trim) continue;
    ++kernels;
    std::string parts;
    for (const auto& [side, trim, total] : {std::tuple{"baseline", &m.baseline_trim, &base_total},
                                            std::tuple{"current", &m.current_trim, &cur_total}}) {
      if (!*trim) continue;
      const WarmupTrim& t = **trim;
      total->dropped += t.dropped;
      total->of += t.of;
      if (t.no_steady_state > 0) {
        unsteady.push_back(
            t.no_steady_state == 1
                ? fmt::format("NO STEADY STATE: {} ({}): MSER-5 reached its cap (half of {} "
                              "launches); only the first launch dropped",
                              ReasonLabel(m), side, t.of)
                : fmt::format("NO STEADY STATE: {} ({}): MSER-5 reached its cap in {} profiles "
                              "({} launches); only the first launch of each dropped",
                              ReasonLabel(m), side, t.no_steady_state, t.of));
      } else if (t.of > 0 && static_cast<double>(t.dropped) >
                                 kTrimDisclosureShare * static_cast<double>(t.of)) {
        parts += fmt::format("{}{} {} of {}", parts.empty() ? "" : ", ", side, t.dropped, t.of);
      }
    }
    if (!parts.empty()) {
      large.push_back(fmt::format("{}: warm-up dropped {} launches (over {:g}%)", ReasonLabel(m),
                                  parts, 100.0 * kTrimDisclosureShare));
    }
  }
  if (kernels == 0) return;
  result.warnings.push_back(fmt::format(
      "per-kernel warm-up (MSER-5 on each kernel's launches): dropped {} of {} baseline and {} of "
      "{} current launches over {} kernel(s)",
      base_total.dropped, base_total.of, cur_total.dropped, cur_total.of, kernels));
  AddListed(result.warnings, large, "kernels with a large warm-up");
  AddListed(result.warnings, unsteady, "series without a steady state");
}

void ExactCount(MetricComparison& m, const SideSamples& b, const SideSamples& c,
                const GateSettings& settings) {
  m.method = "exact";
  m.baseline = Summarize(b.Pooled());
  m.current = Summarize(c.Pooled());
  m.delta = m.current->median - m.baseline->median;
  if (m.baseline->median > 0) m.ratio = m.current->median / m.baseline->median;
  m.verdict = *m.delta == 0 ? Verdict::kNoChange : Verdict::kChanged;
  m.gated = settings.gate_counts;
  // --gate-counts fails on an increase of more than 5 % (§3.3); from a baseline of 0 any
  // increase is more than 5 % (no ratio to show, but the regression is real).
  const bool grew = m.ratio ? *m.ratio > 1.05 : m.current->median > 0;
  if (m.gated && grew) m.verdict = Verdict::kRegressed;
}

// The per-kernel warm-up of one side, summed over the profiles that trimmed the metric.
std::optional<WarmupTrim> TrimOf(const SideSamples& side) {
  std::optional<WarmupTrim> trim;
  for (const SampleSet* s : side.profiles) {
    if (!s || s->warmup_of == 0) continue;
    if (!trim) trim.emplace();
    trim->dropped += s->warmup_dropped;
    trim->of += s->warmup_of;
    trim->no_steady_state += s->no_steady_state ? 1 : 0;
  }
  return trim;
}

// The distinct active device ids of a side's profiles, ascending.
std::vector<int32_t> SideDevices(std::span<const ProfileSummary> profiles) {
  std::set<int32_t> ids;
  for (const ProfileSummary& p : profiles)
    ids.insert(p.device_ids.begin(), p.device_ids.end());
  return {ids.begin(), ids.end()};
}

// Says how devices were paired (docs/metrics.md, "compare", "Devices"): by position with one
// active GPU per profile, else by id — and warns when ids then fail to pair.
void MatchDevices(CompareResult& result, std::span<const ProfileSummary> baseline,
                  std::span<const ProfileSummary> current) {
  result.baseline_devices = SideDevices(baseline);
  result.current_devices = SideDevices(current);
  const size_t count = current.empty() ? 0 : current.front().device_count;
  result.device_matching = count > 1 ? "id" : "position";
  if (count > 1 && !baseline.empty() && result.baseline_devices != result.current_devices) {
    result.warnings.push_back(fmt::format(
        "devices matched by id ({} active GPUs per profile): baseline devices {} and current "
        "devices {} differ, so their per-device metrics appear as NEW/REMOVED",
        count, fmt::join(result.baseline_devices, ","), fmt::join(result.current_devices, ",")));
  }
}

double SumSteadyIterations(std::span<const ProfileSummary> profiles) {
  double n = 0;
  for (const ProfileSummary& p : profiles)
    n += static_cast<double>(p.steady_iterations);
  return n;
}

// What every row's estimate needs from the comparison as a whole.
struct RowContext {
  const GateSettings& settings;
  bool multi = false;
  bool has_iterations = false;
  double base_steady = 0;  // steady iterations, summed over the baseline profiles
  double cur_steady = 0;
  double base_kernel_time = 0;  // ns, summed steady kernel time of the baseline profiles
  double base_iteration_median = 0;
  double cur_kernel_time = 0;  // ns, summed steady kernel time of the current profiles
};

// The estimate, verdict and gating of one row present on both sides. `logs` receives a
// single-run kernel's sorted log samples (for the family-level interval).
void EstimateRow(MetricComparison& m, const SideSamples& b, const SideSamples& c,
                 const RowContext& context, LogSamples& logs) {
  const GateSettings& settings = context.settings;
  const double alpha = settings.alpha;
  switch (m.level) {
    case MetricLevel::kLaunches:
    case MetricLevel::kBytes:
      ExactCount(m, b, c, settings);
      return;
    case MetricLevel::kIdle:
      EstimateIdleShift(m, b, c, context.multi, alpha, context.base_iteration_median);
      return;
    case MetricLevel::kEngineTotal:
      // One value per profile: the run level's statistics (LOW-N with one profile a side).
      EstimateRunLevel(m, b, c, alpha, settings);
      m.gated = false;
      return;
    case MetricLevel::kKernelTotal:
      return;  // computed from the kernel rows (KernelTotalRow)
    case MetricLevel::kIteration:
    case MetricLevel::kGpuBusy:
    case MetricLevel::kCopyBusy:
    case MetricLevel::kCommBusy:
    case MetricLevel::kRange:
    case MetricLevel::kKernel:
      break;
  }
  // Collectives wait for the other ranks (§3.3): their busy time is reported, never gated, and
  // as noisy as a copy engine's.
  const bool comm = m.level == MetricLevel::kCommBusy;
  const bool copy = m.level == MetricLevel::kCopyBusy || comm;
  const bool kernel = m.level == MetricLevel::kKernel;
  m.gated = comm ? false : copy ? settings.gate_copies : !kernel;
  if (m.level == MetricLevel::kRange) {
    // Share of the iteration: the range's summed time per steady iteration (§3.3).
    m.share = context.base_iteration_median > 0 && context.base_steady > 0
                  ? (b.Total() / context.base_steady) / context.base_iteration_median
                  : 0.0;
    m.gated = RangeGated(*m.share, m.name, settings);
  }
  m.floor = copy ? settings.floor_copy : kernel ? settings.floor_kernel : settings.floor_time;
  if (context.multi) {
    EstimateRunLevel(m, b, c, alpha, settings);
  } else {
    // Bootstrapping every launch of every kernel would dominate the run time; the median
    // ratio is shown for the iteration-level metrics, whose samples are few.
    EstimateSingleRun(m, b.Pooled(), c.Pooled(), alpha, settings,
                      !kernel && settings.bootstrap_median_ratio, kernel ? &logs : nullptr);
  }
  if (!kernel) return;
  m.share = context.base_kernel_time > 0 ? b.Total() / context.base_kernel_time : 0.0;
  const bool per_iteration =
      context.has_iterations && context.base_steady > 0 && context.cur_steady > 0;
  const double launch_ratio = per_iteration && b.Count() > 0
                                  ? (static_cast<double>(c.Count()) / context.cur_steady) /
                                        (static_cast<double>(b.Count()) / context.base_steady)
                                  : 1.0;
  m.time_ratio = m.ratio.value_or(1.0) * launch_ratio;
  const double share_of_iteration =
      context.has_iterations && context.base_iteration_median > 0 && context.base_steady > 0
          ? (b.Total() / context.base_steady) / context.base_iteration_median
          : *m.share;
  m.impact = KernelImpact(share_of_iteration, *m.time_ratio);
  const double current_share =
      context.cur_kernel_time > 0 ? c.Total() / context.cur_kernel_time : 0.0;
  const KernelGating gating = GateKernel(*m.share, *m.impact, m.name, settings, current_share);
  m.gated = gating.gated;
  m.below_impact = gating.below_impact;
}

// Busy rows of engines used in at most half the iterations of a side (comm under gradient
// accumulation, a checkpoint copy every N steps): their median per iteration is 0 or hides the
// work, so each is said with the iterations it ran in and its mean per iteration
// (docs/metrics.md, "Periodic work").
void WarnAboutPeriodicWork(CompareResult& result, std::span<const ProfileSummary> baseline,
                           std::span<const ProfileSummary> current) {
  for (const MetricComparison& m : result.metrics) {
    if (m.level != MetricLevel::kCommBusy && m.level != MetricLevel::kCopyBusy) continue;
    struct Side {
      size_t busy = 0;
      size_t of = 0;
      double mean = 0;
    };
    auto side_of = [&](std::span<const ProfileSummary> profiles) {
      Side side;
      const std::vector<double> values = Collect(profiles, m.id).Pooled();
      double sum = 0;
      for (double v : values) {
        side.busy += v > 0 ? 1 : 0;
        sum += v;
      }
      side.of = values.size();
      if (!values.empty()) side.mean = sum / static_cast<double>(values.size());
      return side;
    };
    const Side b = side_of(baseline);
    const Side c = side_of(current);
    auto periodic = [](const Side& s) { return s.busy > 0 && 2 * s.busy <= s.of; };
    if (!periodic(b) && !periodic(c)) continue;
    std::string change;
    if (b.mean > 0 && c.of > 0) change = fmt::format(" ({})", SignedPercent(c.mean / b.mean));
    result.warnings.push_back(fmt::format(
        "periodic work: {} ran in {} of {} baseline and {} of {} current steady iterations, so "
        "its median per iteration hides it; mean per iteration {} -> {}{}",
        ReasonLabel(m), b.busy, b.of, c.busy, c.of, FormatDurationNs(std::llround(b.mean)),
        FormatDurationNs(std::llround(c.mean)), change));
  }
}

// Kernel-only mode (docs/metrics.md, "Compute kernel time"): the compute kernels shared by both
// sides, at the baseline's mix: T = sum_k w_k rho_k / sum_k w_k, w_k the kernel's baseline time
// at its launches before its own warm-up trim (its share of the baseline kernel time x launches
// before / after the trim: the history row counts the same launches, so one change reads alike
// against a history of the baseline; after the trim it read +10.6 % here, +11.1 % there), rho_k
// its per-launch ratio. Its interval is the delta method on the
// kernels' own intervals at 1 - alpha (normal approximation, kernels independent): sigma_k =
// (ln high_k - ln low_k) / (2 z); a kernel without an interval (LOW-N) counts at its point ratio
// with sigma_k = ln(1 + floor_kernel), and when such kernels hold more than half the weight the
// row is LOW-N (point ratio, threshold only). Floor: the time floor (as GPU busy) in single-run, 0
// in multi-run. Unset when no shared compute kernel has a ratio.
std::optional<MetricComparison> KernelTotalRow(const std::vector<MetricComparison>& metrics,
                                               const GateSettings& settings, bool multi,
                                               double base_kernel_time_per_profile,
                                               std::vector<std::string>& warnings) {
  const double z = NormalQuantile(1.0 - settings.alpha / 2.0);
  double weights = 0;
  double sum = 0;
  // The spread of `sum`. Single-run: each kernel's interval is its launch-to-launch noise within
  // one capture, independent from kernel to kernel: added as variances (the delta method; the
  // floor covers the session). Multi-run: the intervals are run-level, and one session's clocks
  // or node move every kernel at once, so added as variances they would be too narrow by up to
  // the root of the kernel count and fail unchanged code: the spreads are added as if the
  // kernels moved together, which is never too narrow.
  double variance = 0;
  double spread = 0;
  size_t kernels = 0;
  size_t without_interval = 0;
  double without_weight = 0;
  double without_share = 0;  // of the baseline kernel time, for the warning
  double shares = 0;         // the shared kernels' share of the baseline kernel time
  for (const MetricComparison& m : metrics) {
    if (m.level != MetricLevel::kKernel || CollectiveKernel(m.name) || !m.ratio || !m.share ||
        !m.baseline || !m.current || *m.share <= 0)
      continue;
    // The launches before the kernel's own warm-up trim, as the history row counts them.
    const WarmupTrim* trim = m.baseline_trim ? &*m.baseline_trim : nullptr;
    const double launches =
        trim != nullptr && trim->of > trim->dropped
            ? static_cast<double>(trim->of) / static_cast<double>(trim->of - trim->dropped)
            : 1.0;
    const double w = *m.share * launches;
    const double rho = *m.ratio;
    shares += *m.share;
    double sigma = std::log1p(settings.floor_kernel);
    if (m.ci_low && m.ci_high && *m.ci_low > 0 && *m.ci_high > 0) {
      sigma = (std::log(*m.ci_high) - std::log(*m.ci_low)) / (2.0 * z);
    } else {
      ++without_interval;
      without_weight += w;
      without_share += *m.share;
    }
    weights += w;
    sum += w * rho;
    variance += (w * rho * sigma) * (w * rho * sigma);
    spread += w * rho * sigma;
    ++kernels;
  }
  if (kernels == 0 || weights <= 0 || sum <= 0) return std::nullopt;
  MetricComparison m;
  m.id = "kernel-total";
  m.level = MetricLevel::kKernelTotal;
  m.name = "compute kernels";
  m.gated = true;
  m.floor = multi ? 0.0 : settings.floor_time;
  m.ci_level = 1.0 - settings.alpha;
  m.method = "kernel-mix-delta";
  if (without_interval > 0 && 2.0 * without_weight <= weights) {
    warnings.push_back(fmt::format(
        "compute kernel time: {} of {} shared kernel(s) ({:.1f}% of the baseline kernel time) have "
        "too few launches for an interval: counted at their point ratio with a +-{:g}% spread",
        without_interval, kernels, 100.0 * without_share, 100.0 * settings.floor_kernel));
  }
  const double ratio = sum / weights;
  const double theta = std::log(ratio);
  const double half = z * (multi ? spread : std::sqrt(variance)) / sum;
  m.ratio = ratio;
  if (2.0 * without_weight > weights) {
    // Most of the kernel time has no interval (too few launches): LOW-N, threshold only.
    m.method = "median-ratio";
    m.verdict = Verdict::kLowN;
    m.low_n_over_threshold = LowNExceedsThreshold(ratio, m.floor, settings);
  } else {
    m.ci_low = std::exp(theta - half);
    m.ci_high = std::exp(theta + half);
    m.verdict = Decide(theta, theta - half, theta + half, m.floor, settings);
    m.mde = m.floor + (*m.ci_high - *m.ci_low) / 2.0;
  }
  SideSummary base;
  base.n = kernels;
  // The shared kernels' baseline time per profile, and that time at the current per-launch
  // durations (the baseline's launch counts: launch counts follow the capture's length).
  base.median = base_kernel_time_per_profile * shares;
  SideSummary cur = base;
  cur.median = base.median * ratio;
  m.baseline = base;
  m.current = cur;
  return m;
}

}  // namespace

CompareResult CompareProfiles(std::span<const ProfileSummary> baseline,
                              std::span<const ProfileSummary> current,
                              const GateSettings& settings) {
  if (baseline.empty() || current.empty()) {
    throw InputError("compare", "need at least one baseline and one current profile");
  }
  CheckProfilesComparable(baseline, current, settings.across_hardware);
  CompareResult result;
  result.settings = settings;
  MatchDevices(result, baseline, current);
  if (settings.across_hardware) {
    result.warnings.push_back(fmt::format(
        "exploratory diff across hardware: baseline '{}', current '{}'; every ratio includes the "
        "hardware change, so nothing is gated",
        baseline.front().device_model, current.front().device_model));
  }
  // F15: with no GPU named by any profile the model check compares nothing; said.
  const auto unnamed = [](const ProfileSummary& p) {
    return p.device_model.find("unknown GPU") != std::string::npos;
  };
  if (std::all_of(baseline.begin(), baseline.end(), unnamed) &&
      std::all_of(current.begin(), current.end(), unnamed)) {
    result.warnings.push_back(
        "GPU model unknown on both sides (no trace names its GPU): the GPU model was not checked");
  }
  const bool multi = baseline.size() > 1 || current.size() > 1;
  result.mode = multi ? CompareMode::kMultiRun : CompareMode::kSingleRun;
  const double alpha = settings.alpha;

  std::set<std::string> ids;
  for (const auto* side : {&baseline, &current})
    for (const ProfileSummary& p : *side)
      for (const auto& [id, set] : p.metrics)
        ids.insert(id);

  const bool has_iterations = baseline.front().has_iterations;
  const double base_steady = SumSteadyIterations(baseline);
  const double cur_steady = SumSteadyIterations(current);
  double base_kernel_time = 0;
  for (const ProfileSummary& p : baseline)
    base_kernel_time += p.kernel_time_ns;
  double cur_kernel_time = 0;
  for (const ProfileSummary& p : current)
    cur_kernel_time += p.kernel_time_ns;
  const SideSamples base_iteration = Collect(baseline, "iteration");
  const double base_iteration_median = base_iteration.any() ? Median(base_iteration.Pooled()) : 0.0;

  // First the rows and the samples each compares (cheap, in id order), then their estimates in
  // parallel: a row's statistics depend on its own samples only, so the figures are the same
  // whatever thread computes them. The largest rows start first.
  struct PendingRow {
    size_t index = 0;  // into metrics
    SideSamples baseline;
    SideSamples current;
    size_t samples = 0;
  };
  std::vector<MetricComparison> metrics;
  std::vector<PendingRow> pending;
  std::vector<size_t> kernels;  // indices into metrics
  for (const std::string& id : ids) {
    SideSamples b = Collect(baseline, id);
    SideSamples c = Collect(current, id);
    const SampleSet* any = nullptr;
    for (const SideSamples* side : {&b, &c})
      for (const SampleSet* s : side->profiles)
        if (!any && s) any = s;
    MetricComparison m;
    m.id = id;
    m.level = any->level;
    m.name = any->name;
    m.baseline_trim = TrimOf(b);
    m.current_trim = TrimOf(c);
    if (!b.any() || !c.any()) {
      m.verdict = b.any() ? Verdict::kRemoved : Verdict::kNew;
      (b.any() ? m.baseline : m.current) = Summarize((b.any() ? b : c).Pooled());
      // A kernel on one side only: its share of that side's kernel time, so the verdict can say
      // how much of the work has no counterpart.
      const double side_time = b.any() ? base_kernel_time : cur_kernel_time;
      if (m.level == MetricLevel::kKernel && side_time > 0)
        m.share = (b.any() ? b : c).Total() / side_time;
      metrics.push_back(std::move(m));
      continue;
    }
    if (m.level == MetricLevel::kKernel) kernels.push_back(metrics.size());
    const size_t samples = b.Count() + c.Count();
    pending.push_back({metrics.size(), std::move(b), std::move(c), samples});
    metrics.push_back(std::move(m));
  }
  const size_t common = pending.size();
  std::stable_sort(pending.begin(), pending.end(),
                   [](const PendingRow& l, const PendingRow& r) { return l.samples > r.samples; });
  const RowContext context = {settings,
                              multi,
                              has_iterations,
                              base_steady,
                              cur_steady,
                              base_kernel_time,
                              base_iteration_median,
                              cur_kernel_time};
  std::vector<LogSamples> kernel_logs(metrics.size());  // single-run kernels, by metrics index
  ParallelFor(pending.size(), [&](size_t k) {
    const PendingRow& row = pending[k];
    EstimateRow(metrics[row.index], row.baseline, row.current, context, kernel_logs[row.index]);
  });
  // Kernel-only mode: the compute kernels' time as a whole is gated, so a regression spread over
  // many small kernels (none gated alone) fails (docs/metrics.md, "Compute kernel time").
  if (!has_iterations) {
    if (auto total = KernelTotalRow(metrics, settings, multi,
                                    base_kernel_time / static_cast<double>(baseline.size()),
                                    result.warnings)) {
      metrics.push_back(std::move(*total));
    }
  }
  for (const std::string& name : settings.gate_ranges) {
    if (ids.count("range:" + name) == 0) {
      throw InputError("--gate-range",
                       fmt::format("range '{}' has no instance on the iteration's thread within "
                                   "the steady iterations of either side{}",
                                   name, OtherThreadNote(name, baseline, current)));
    }
  }
  // An exploratory diff across hardware is no gate: kernels that all differ are its finding.
  if (!settings.across_hardware) CheckKernelKeysShared(metrics, current.front().path);
  if (common == 0) {
    throw InputError(current.front().path,
                     "not comparable: no metric is present in both the baseline and the current "
                     "profiles");
  }

  // The gated kernel family: intervals at 1 - alpha/m_K (Bonferroni), Holm on the p-values.
  std::vector<size_t> gated_kernels;
  for (size_t k : kernels)
    if (metrics[k].gated) gated_kernels.push_back(k);
  if (!gated_kernels.empty()) {
    const double family_alpha = alpha / static_cast<double>(gated_kernels.size());
    // Each kernel's interval at the family level, in parallel (selections over its launches).
    std::vector<double> p_values(gated_kernels.size(), 1.0);
    ParallelFor(gated_kernels.size(), [&](size_t i) {
      MetricComparison& m = metrics[gated_kernels[i]];
      if (multi) {
        EstimateRunLevel(m, Collect(baseline, m.id), Collect(current, m.id), family_alpha,
                         settings);
      } else if (gated_kernels.size() == 1) {
        // A family of one: its level is alpha, the interval the row already has.
      } else if (const LogSamples& logs = kernel_logs[gated_kernels[i]]; !logs.baseline.empty()) {
        // Only the interval depends on the level: the estimate and the test are kept.
        ApplyShiftInterval(m, logs.estimate,
                           MosesShiftInterval(logs.baseline, logs.current, family_alpha),
                           family_alpha, settings);
      } else {
        m.ci_level = 1.0 - family_alpha;  // LOW-N by count: no interval at any level
      }
      p_values[i] = m.p_value.value_or(1.0);
    });
    const std::vector<double> adjusted = HolmAdjust(p_values);
    const double target = std::log1p(settings.target);
    for (size_t i = 0; i < gated_kernels.size(); ++i) {
      MetricComparison& m = metrics[gated_kernels[i]];
      m.p_adjusted = adjusted[i];
      // Holm does not reject: not a significant difference, whatever the interval says.
      if ((m.verdict == Verdict::kRegressed || m.verdict == Verdict::kImproved ||
           m.verdict == Verdict::kWithinNoise) &&
          adjusted[i] > alpha) {
        m.verdict = m.ci_high && std::log(*m.ci_high) >= target ? Verdict::kInconclusive
                                                                : Verdict::kNoChange;
      }
    }
  }

  if (multi) {
    // sigma_s: pooled SD of the run summaries of iteration time (§4.4).
    const SideSamples c = Collect(current, "iteration");
    if (base_iteration.any() && c.any()) {
      const std::vector<double> sb = base_iteration.RunSummaries();
      const std::vector<double> sc = c.RunSummaries();
      const double dof = static_cast<double>(sb.size() + sc.size()) - 2.0;
      if (dof > 0) {
        result.noise_sd = std::sqrt((static_cast<double>(sb.size() - 1) * SampleVariance(sb) +
                                     static_cast<double>(sc.size() - 1) * SampleVariance(sc)) /
                                    dof);
        if (settings.floor_time < 3.3 * *result.noise_sd) {
          result.warnings.push_back(fmt::format(
              "run-to-run noise {:.2f}%: the {:.0f}% single-run floor is below 3.3 sigma, too low "
              "for 1% false alarms",
              100.0 * *result.noise_sd, 100.0 * settings.floor_time));
        }
      }
    }
    if (baseline.size() < 3 || current.size() < 3) {
      result.warnings.push_back("fewer than 3 profiles on a side: run-level intervals are wide");
    }
  }

  result.metrics = std::move(metrics);
  WarnAboutPeriodicWork(result, baseline, current);
  FinishComparison(result, baseline, current);
  return result;
}

void FinishComparison(CompareResult& result, std::span<const ProfileSummary> baseline,
                      std::span<const ProfileSummary> current) {
  const GateSettings& settings = result.settings;
  std::vector<MetricComparison>& metrics = result.metrics;
  // History mode pairs no devices, but the report still names the current ones.
  if (result.current_devices.empty()) result.current_devices = SideDevices(current);
  // Summary figures, counted from the rows.
  result.summary = {};
  double weighted = 0;
  double weights = 0;
  double plain = 0;
  size_t count = 0;
  for (const MetricComparison& m : metrics) {
    ++result.summary.rows[m.verdict];
    if (m.gated || m.below_impact) {
      if (m.verdict == Verdict::kLowN) {
        ++result.summary.low_n;
      } else {
        ++result.summary.checked;
      }
      if (m.verdict == Verdict::kInconclusive) ++result.summary.inconclusive;
    }
    if (m.gated) {
      ++result.summary.gated;
      if (m.verdict == Verdict::kRegressed) ++result.summary.regressed;
      if (m.verdict == Verdict::kImproved) ++result.summary.improved;
    } else {
      ++result.summary.reported;
      if (m.below_impact) ++result.summary.below_impact;
    }
    if (m.level == MetricLevel::kKernel && m.gated && m.time_ratio && *m.time_ratio > 0) {
      weighted += m.share.value_or(0) * std::log(*m.time_ratio);
      weights += m.share.value_or(0);
      plain += std::log(*m.time_ratio);
      ++count;
    }
    if (m.gated && m.mde && *m.mde > settings.target &&
        (m.level == MetricLevel::kIteration || m.level == MetricLevel::kGpuBusy)) {
      result.warnings.push_back(fmt::format(
          "{} {}: minimum detectable effect {:.1f}% exceeds the {:.0f}% target; this setup cannot "
          "reliably detect such a change (more iterations or profiles)",
          m.level == MetricLevel::kIteration ? "iteration time" : "GPU busy", m.name,
          100.0 * *m.mde, 100.0 * settings.target));
    }
  }
  if (count > 0) {
    if (weights > 0) result.geomean_weighted = std::exp(weighted / weights);
    result.geomean_plain = std::exp(plain / static_cast<double>(count));
  }
  std::stable_sort(metrics.begin(), metrics.end(), [](const auto& l, const auto& r) {
    const bool lr = l.gated && l.verdict == Verdict::kRegressed;
    const bool rr = r.gated && r.verdict == Verdict::kRegressed;
    if (lr != rr) return lr;
    if (LevelOrder(l.level) != LevelOrder(r.level))
      return LevelOrder(l.level) < LevelOrder(r.level);
    const double li = std::fabs(l.impact.value_or(0));
    const double ri = std::fabs(r.impact.value_or(0));
    if (li != ri) return li > ri;
    return l.id < r.id;
  });
  WarnAboutTrims(result);
  // §5 E3: all samples of a metric equal on both sides — the verdict `~` rests on no spread.
  std::vector<std::string> identical;
  for (const MetricComparison& m : result.metrics)
    if (m.identical) identical.push_back(ReasonLabel(m));
  if (!identical.empty()) {
    result.warnings.push_back(fmt::format(
        "identical: every sample of {} metric(s) has the same value on both sides ({}): the "
        "test has no spread to go on (p = 1); a timer too coarse, or the same profile twice?",
        identical.size(), ListFirst(identical, 3)));
  }

  // The verdict and exit code (docs/metrics.md, "compare", verdict table).
  for (const MetricComparison& m : result.metrics)
    result.summary.failed += GatedRegression(m, settings) ? 1 : 0;
  const bool regression = result.summary.failed > 0;
  const bool unsure =
      result.summary.inconclusive > 0 || result.summary.low_n > 0 || result.summary.checked == 0;
  result.verdict_reasons = VerdictReasons(result, baseline, current);
  if (settings.across_hardware) {
    result.verdict = "exploratory";
    const bool matched =
        settings.fail_on_given && (regression || (settings.fail_on_inconclusive && unsure));
    result.exit_code = matched ? 1 : 0;
  } else if (regression) {
    result.verdict = "regression";
    result.exit_code = 1;
  } else if (settings.fail_on_inconclusive && unsure) {
    result.verdict = "inconclusive";
    result.exit_code = 1;
  } else {
    result.verdict = result.verdict_reasons.empty() ? "pass" : "pass-with-warnings";
    result.exit_code = 0;
  }
}

}  // namespace gpuroof
