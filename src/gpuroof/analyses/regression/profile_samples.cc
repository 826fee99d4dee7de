#include "gpuroof/analyses/regression/profile_samples.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/analyses/message_list.h"
#include "gpuroof/analyses/mser.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/regression/bootstrap.h"
#include "gpuroof/analyses/regression/distributions.h"
#include "gpuroof/analyses/regression/hodges_lehmann.h"
#include "gpuroof/analyses/regression/mann_whitney.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/kernel_names.h"

namespace gpuroof {

namespace {

// Kernel keys by signature index, computed once per signature. The key is built from the
// demangled name wherever the trace has one (§3.2 step 5): an nsys export carries a short and a
// demangled name, a Kineto trace only the demangled signature (its `name`), so keying nsys by its
// short name would match no kernel of a Kineto trace of the same code. `name` is the short name
// derived from the demangled one (ShortKernelName), the same rule for both formats.
class KernelKeys {
 public:
  KernelKeys(const Trace& trace, KernelKey key) : trace_(trace), key_(key) {}
  const std::string& Of(uint32_t signature) {
    auto it = cache_.find(signature);
    if (it != cache_.end()) return it->second;
    const OpSignature& s = trace_.signatures[signature];
    std::string_view name = trace_.strings.Get(s.name);
    if (s.detail_name != 0 && !trace_.strings.Get(s.detail_name).empty()) {
      name = trace_.strings.Get(s.detail_name);
    }
    std::string key;
    switch (key_) {
      case KernelKey::kLaunch:
        key = LaunchKey(name, s.grid, s.block);
        break;
      case KernelKey::kName:
        key = KernelShortName(trace_, s);  // the rule of every command
        break;
      case KernelKey::kDemangled:
        key = std::string(name);
        break;
    }
    if (key.empty()) key = std::string(name);
    return cache_.emplace(signature, std::move(key)).first->second;
  }

 private:
  const Trace& trace_;
  KernelKey key_;
  std::unordered_map<uint32_t, std::string> cache_;
};

// MSER-5 batches a cut must leave (docs/metrics.md, "Warm-up"): with one batch left MSER(d) is 0
// and always wins, so a 10-14 iteration capture would always lose half its iterations.
constexpr size_t kMserMinKeptBatches = 3;

// How many leading samples to drop: fixed, or MSER-5 (at least one when there are two or more).
// At MSER's cap the cut is kept only when it is material: the dropped samples (the first one
// left aside: it carries one-off costs) differ in mean from the kept ones by more than the
// minimum effect. Otherwise the series is stationary noise that happened to put its minimum at
// the cap: only the first sample is dropped, and no NO STEADY STATE is said.
size_t WarmupToDrop(const std::vector<double>& series, const ProfileOptions& options,
                    bool* no_steady_state) {
  if (no_steady_state) *no_steady_state = false;
  if (options.warmup) return std::min(*options.warmup, series.size());
  if (series.size() < 2) return 0;
  const MserResult mser = MserTruncation(series, 5, kMserMinKeptBatches);
  size_t drop = std::max<size_t>(1, mser.dropped);
  if (mser.hit_cap && series.size() >= 10 && drop > 1 && drop < series.size()) {
    double dropped_sum = 0;
    for (size_t i = 1; i < drop; ++i)
      dropped_sum += series[i];
    double kept_sum = 0;
    for (size_t i = drop; i < series.size(); ++i)
      kept_sum += series[i];
    const double dropped_mean = dropped_sum / static_cast<double>(drop - 1);
    const double kept_mean = kept_sum / static_cast<double>(series.size() - drop);
    const bool material = kept_mean > 0
                              ? std::fabs(dropped_mean / kept_mean - 1.0) > options.min_effect
                              : dropped_mean != kept_mean;
    if (material) {
      if (no_steady_state) *no_steady_state = true;
    } else {
      drop = 1;
    }
  }
  return drop;
}

// Captures MSER-5 cannot search (docs/metrics.md, "Warm-up"): a cut needs 3 batches of 5 left
// and a batch before them, 20 iterations; a shorter capture drops only its first iteration, and
// a warm-up of several iterations would be kept without a word. From kShortWarmupMin iterations
// (below, the steady iterations are LOW-N anyway) the iterations are searched one by one instead.
constexpr size_t kMserSearchMin = 5 * (kMserMinKeptBatches + 1);
constexpr size_t kShortWarmupMin = 7;
// The dropped mean must differ from the kept one by this many standard errors of the kept
// iterations' spread (or Student's t at this level for their degrees of freedom, when larger: few
// kept iterations estimate their spread poorly), besides --min-effect: MSER on single iterations
// would otherwise cut any early outlier of stationary noise (10-19 steps of 2 % noise: cut in 22 %
// of the captures without, 0.4 % with; 7-9 steps: 0.2 %).
constexpr double kShortWarmupStandardErrors = 4.0;
constexpr double kShortWarmupQuantile = 0.9995;

struct ShortWarmup {
  size_t cut = 0;           // iterations to drop, the first included
  double dropped_mean = 0;  // ns, mean of iterations 2..cut (1-based)
  double kept_mean = 0;     // ns, mean of the rest
};

// How a proposed short-capture cut fares: no warm-up (the dropped iterations are the kept ones'
// level), one outlier rather than a warm-up, or a warm-up.
enum class CutTest { kNoWarmup, kOutlier, kWarmup };

// Tests dropping iterations 2..cut (1-based): a warm-up when they differ from the kept ones in
// mean by more than `min_effect` and by more than max(4, t(0.9995, kept - 1)) standard errors,
// and still do, on the same side, without the dropped iteration farthest from the kept mean (a
// warm-up is a run of slow or fast iterations, not one outlier MSER cut after).
CutTest TestShortCut(const std::vector<double>& walls, size_t cut, double min_effect,
                     ShortWarmup& w) {
  const size_t n = walls.size();
  w = ShortWarmup{};
  w.cut = cut;
  const auto k = static_cast<double>(cut - 1);
  const auto m = static_cast<double>(n - cut);
  for (size_t i = 1; i < cut; ++i)
    w.dropped_mean += walls[i] / k;
  for (size_t i = cut; i < n; ++i)
    w.kept_mean += walls[i] / m;
  double squares = 0;
  for (size_t i = cut; i < n; ++i)
    squares += (walls[i] - w.kept_mean) * (walls[i] - w.kept_mean);
  const double sd = std::sqrt(squares / (m - 1));  // m >= n / 2 >= 4
  if (w.kept_mean <= 0) return CutTest::kNoWarmup;
  const double difference = std::fabs(w.dropped_mean - w.kept_mean);
  const bool material = difference > min_effect * w.kept_mean;
  const double standard_errors =
      std::max(kShortWarmupStandardErrors, StudentTQuantile(kShortWarmupQuantile, m - 1));
  const bool beyond_noise = difference > standard_errors * sd * std::sqrt(1.0 / k + 1.0 / m);
  if (!material || !beyond_noise) return CutTest::kNoWarmup;
  if (cut > 2) {
    size_t farthest = 1;
    for (size_t i = 2; i < cut; ++i) {
      if (std::fabs(walls[i] - w.kept_mean) > std::fabs(walls[farthest] - w.kept_mean))
        farthest = i;
    }
    const double rest_mean = (w.dropped_mean * k - walls[farthest]) / (k - 1);
    const bool same_side = (rest_mean > w.kept_mean) == (w.dropped_mean > w.kept_mean);
    if (!same_side || std::fabs(rest_mean - w.kept_mean) <= min_effect * w.kept_mean)
      return CutTest::kOutlier;
  }
  return CutTest::kWarmup;
}

// In an automatic warm-up of a capture too short for MSER-5: MSER on single iterations (cut at
// most half of them) proposes a cut, kept when TestShortCut finds a warm-up. When the cut holds
// one outlier (a slow step after a warm-up of one, or a near-normal step after it), shorter cuts
// are tried, down to dropping the second iteration alone; none when the dropped ones are the
// kept ones' level. nullopt when no cut is a warm-up.
std::optional<ShortWarmup> ShortCaptureWarmup(const std::vector<double>& walls, double min_effect) {
  const size_t n = walls.size();
  if (n < kShortWarmupMin || n >= kMserSearchMin) return std::nullopt;
  for (size_t cut = MserTruncation(walls, 1).truncated_batches; cut >= 2; --cut) {
    ShortWarmup w;
    switch (TestShortCut(walls, cut, min_effect, w)) {
      case CutTest::kWarmup:
        return w;
      case CutTest::kNoWarmup:
        return std::nullopt;
      case CutTest::kOutlier:
        break;  // a shorter cut may be the warm-up
    }
  }
  return std::nullopt;
}

// Stationarity of the kept window (§3.2 step 3): first half against second half.
void CheckStationarity(const std::vector<double>& steady, const ProfileOptions& options,
                       std::vector<std::string>& warnings) {
  const size_t half = steady.size() / 2;
  if (half < 6) return;
  std::vector<double> first(steady.begin(), steady.begin() + static_cast<ptrdiff_t>(half));
  std::vector<double> second(steady.end() - static_cast<ptrdiff_t>(half), steady.end());
  const MannWhitneyResult test = MannWhitneyU(first, second);
  if (test.p_value >= 0.01) return;
  for (double& v : first)
    v = std::log(std::max(v, 1.0));
  for (double& v : second)
    v = std::log(std::max(v, 1.0));
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  const double ratio = std::exp(HodgesLehmannShift(first, second, 0.01).estimate);
  if (std::fabs(ratio - 1.0) > options.min_effect) {
    warnings.push_back(fmt::format(
        "NONSTATIONARY: iteration time drifts {:+.1f}% from the first to the second half of the "
        "steady iterations (p = {:.2g}); thermal drift, throttling or contention?",
        100.0 * (ratio - 1.0), test.p_value));
  }
}

std::string DeviceSuffix(int32_t device, size_t device_count) {
  return device_count > 1 ? fmt::format(" [dev {}]", device) : std::string();
}

// The device part of a metric id: its position (0) when the profile has one active device, so
// rank 1 on device 1 compares with rank 0 on device 0; its id when there are several.
int32_t DeviceKey(int32_t device, size_t device_count) {
  return device_count > 1 ? device : 0;
}

// Annotation ranges (§3.3, "Annotation range R"): every instance of another CPU range name that
// lies within a steady iteration on the iteration's own thread is a sample of its duration.
// Ranges of the iteration's own name (nested repeats) and GPU-timeline annotations are left out:
// the first is the iteration level, the second lags its launches and has no thread to match.
void SummarizeRanges(const Trace& trace, const std::vector<const NvtxRange*>& iterations,
                     size_t drop, ProfileSummary& summary) {
  // Steady iterations by thread, in start order (FindNvtxRanges returns them so).
  std::unordered_map<uint64_t, std::vector<const NvtxRange*>> steady_by_thread;
  std::set<uint32_t> iteration_names;
  for (size_t i = 0; i < iterations.size(); ++i) {
    iteration_names.insert(iterations[i]->name);
    if (i >= drop) steady_by_thread[iterations[i]->thread_id].push_back(iterations[i]);
  }
  // Steady iterations by process, for the ranges of the process's other threads (counted).
  std::unordered_map<uint64_t, std::vector<const NvtxRange*>> steady_by_process;
  for (size_t i = drop; i < iterations.size(); ++i)
    steady_by_process[iterations[i]->process_id].push_back(iterations[i]);
  auto within = [](const std::vector<const NvtxRange*>& steady, const NvtxRange& range) {
    auto after = std::upper_bound(
        steady.begin(), steady.end(), range.start_ns,
        [](int64_t start, const NvtxRange* iteration) { return start < iteration->start_ns; });
    return after != steady.begin() && range.end_ns <= (*std::prev(after))->end_ns;
  };
  for (const NvtxRange& range : trace.nvtx_ranges) {
    if (range.on_gpu || iteration_names.count(range.name) != 0) continue;
    auto thread = steady_by_thread.find(range.thread_id);
    if (thread == steady_by_thread.end()) {
      auto process = steady_by_process.find(range.process_id);
      if (process != steady_by_process.end() && within(process->second, range))
        ++summary.other_thread_ranges[std::string(trace.strings.Get(range.name))];
      continue;
    }
    const std::vector<const NvtxRange*>& steady = thread->second;
    // The last steady iteration starting at or before the range must also contain its end.
    auto after = std::upper_bound(
        steady.begin(), steady.end(), range.start_ns,
        [](int64_t start, const NvtxRange* iteration) { return start < iteration->start_ns; });
    if (after == steady.begin() || range.end_ns > (*std::prev(after))->end_ns) continue;
    const std::string name(trace.strings.Get(range.name));
    SampleSet& set = summary.metrics["range:" + name];
    set.level = MetricLevel::kRange;
    set.name = name;
    const auto duration = static_cast<double>(range.end_ns - range.start_ns);
    set.values.push_back(duration);
    set.total += duration;
  }
}

// A capture holding several processes' iteration ranges (one nsys capture of two ranks): their
// iterations would be one series, and each device's samples half zeros. Refused, naming them.
void RefuseSeveralProcesses(const Trace& trace, const std::vector<const NvtxRange*>& ranges,
                            const std::string& name) {
  std::map<uint64_t, size_t> per_process;
  for (const NvtxRange* range : ranges)
    if (!range->on_gpu) ++per_process[range->process_id];
  if (per_process.size() < 2) return;
  std::string listed;
  for (const auto& [process, count] : per_process)
    // nsys keys a process as globalPid (pid in bits 24..47); Kineto by its pid.
    listed +=
        fmt::format("{}pid {} ({} instance(s))", listed.empty() ? "" : ", ",
                    process >= (uint64_t{1} << 24) ? (process >> 24) & 0xFFFFFF : process, count);
  throw InputError(
      trace.source,
      fmt::format("the iteration range '{}' is open in {} processes of this capture: {}; compare "
                  "takes one process's iterations: export or capture each rank on its own and "
                  "compare them one by one (or a directory of per-rank traces)",
                  name, per_process.size(), listed));
}

// GPU idle per steady iteration and device (docs/metrics.md, "GPU idle"): over disjoint windows,
// from the iteration's first op on the device to the next steady iteration's first op there. A
// window is never counted twice, and only its first part counts: the iteration's length, the
// longer of its wall time and the span of its own ops on the device (no longer than the window),
// less the compute busy time in it of every op of the device, whichever iteration launched it (a
// GPU lagging its CPU shifts a window, it does not lengthen the iteration; host time between the
// iterations' CPU ranges is not the iteration's idle; work launched asynchronously lasts past its
// short CPU range, so the range alone would cut the length to the launch time). `capped` gets, per
// device, the number of iterations where the rest of the window held idle time and every
// iteration's figure over its whole window (window less the compute busy time in it), for a note.
// The last one (no later steady iteration on the device) has no next first op: its window is as
// long as its period would be, its wall time plus `gap_ns` (the median gap between the steady
// iterations' CPU ranges), so it is measured like the others. Not to its own last op: a lagging GPU
// runs that op a window later, and the idle of the window it spans would be counted up to the whole
// wall.
std::map<int32_t, std::vector<double>> IdleByDevice(
    const Trace& trace, const std::vector<std::map<int32_t, std::pair<int64_t, int64_t>>>& spans,
    const std::vector<double>& walls, int64_t gap_ns,
    const std::set<std::pair<int32_t, Engine>>& seen,
    std::map<int32_t, std::pair<size_t, std::vector<double>>>& capped) {
  std::map<int32_t, std::vector<double>> idle_by_device;
  std::set<int32_t> devices;
  for (const auto& [device, engine] : seen)
    if (engine == Engine::kKernel) devices.insert(device);
  if (devices.empty()) return idle_by_device;
  // Each device's compute busy, merged, with the covered length before each interval.
  struct Merged {
    std::vector<std::pair<int64_t, int64_t>> intervals;
    std::vector<int64_t> before;
  };
  std::map<int32_t, Merged> merged;
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    if (!IsComputeEngine(block.engine[i])) return;
    const int32_t device = trace.streams[block.stream[i]].device_id;
    if (devices.count(device) == 0 || block.end_ns[i] <= block.start_ns[i]) return;
    auto& list = merged[device].intervals;
    if (!list.empty() && block.start_ns[i] <= list.back().second) {
      list.back().second = std::max(list.back().second, block.end_ns[i]);
    } else {
      list.emplace_back(block.start_ns[i], block.end_ns[i]);
    }
  });
  for (auto& [device, m] : merged) {
    int64_t total = 0;
    for (const auto& [start, end] : m.intervals) {
      m.before.push_back(total);
      total += end - start;
    }
  }
  auto covered = [&](int32_t device, int64_t from, int64_t to) -> int64_t {
    auto it = merged.find(device);
    if (it == merged.end() || to <= from) return 0;
    const auto& list = it->second.intervals;
    auto first =
        std::lower_bound(list.begin(), list.end(), from,
                         [](const auto& interval, int64_t t) { return interval.second <= t; });
    int64_t length = 0;
    for (auto i = first; i != list.end() && i->first < to; ++i)
      length += std::min(i->second, to) - std::max(i->first, from);
    return length;
  };
  for (int32_t device : devices) {
    std::vector<double>& idle = idle_by_device[device];
    for (size_t it = 0; it < spans.size(); ++it) {
      auto span = spans[it].find(device);
      if (span == spans[it].end()) {
        idle.push_back(0.0);
        continue;
      }
      const int64_t from = span->second.first;
      // Without a later steady iteration on the device: its period (wall time and gap).
      int64_t to =
          it < walls.size() ? from + static_cast<int64_t>(walls[it]) + gap_ns : span->second.second;
      for (size_t next = it + 1; next < spans.size(); ++next) {
        auto later = spans[next].find(device);
        if (later == spans[next].end()) continue;
        if (later->second.first > from) to = later->second.first;
        break;
      }
      const double value =
          std::max(0.0, static_cast<double>(to - from - covered(device, from, to)));
      // The iteration's length, within its window: the idle time inside it is the figure.
      const int64_t own = span->second.second - span->second.first;
      const int64_t length =
          std::min(to - from,
                   std::max(it < walls.size() ? static_cast<int64_t>(walls[it]) : to - from, own));
      const double inside =
          std::max(0.0, static_cast<double>(length - covered(device, from, from + length)));
      auto& [count, uncapped] = capped[device];
      uncapped.push_back(value);
      if (value > inside) ++count;
      idle.push_back(inside);
    }
  }
  return idle_by_device;
}

// The median gap between consecutive steady iterations' CPU ranges (end to the next start), 0 for
// overlapping or back-to-back ranges and with a single steady iteration.
int64_t MedianGapNs(const std::vector<const NvtxRange*>& ranges, size_t drop) {
  std::vector<int64_t> gaps;
  for (size_t i = drop; i + 1 < ranges.size(); ++i)
    gaps.push_back(std::max<int64_t>(0, ranges[i + 1]->start_ns - ranges[i]->end_ns));
  if (gaps.empty()) return 0;
  std::sort(gaps.begin(), gaps.end());
  const size_t half = gaps.size() / 2;
  return gaps.size() % 2 == 1 ? gaps[half] : (gaps[half - 1] + gaps[half]) / 2;
}

// GPU work no iteration was given (launched before, between or after the iterations, or by a
// process or thread the attribution leaves out): counted per profile and said, since it is in no
// metric (docs/metrics.md, "Outside the iterations").
void CountOutsideWork(const Trace& trace, const std::vector<const NvtxRange*>& ranges,
                      const std::vector<std::vector<bool>>& attributed, size_t drop,
                      ProfileSummary& summary) {
  int64_t first_steady = std::numeric_limits<int64_t>::max();
  int64_t last_steady = std::numeric_limits<int64_t>::min();
  for (size_t i = drop; i < ranges.size(); ++i) {
    first_steady = std::min(first_steady, ranges[i]->start_ns);
    last_steady = std::max(last_steady, ranges[i]->end_ns);
  }
  for (uint32_t b = 0; b < trace.blocks.size(); ++b) {
    const ActivityBlock& block = trace.blocks[b];
    for (uint32_t i = 0; i < block.start_ns.size(); ++i) {
      if (attributed[b][i]) continue;
      const bool compute = IsKernelEngine(block.engine[i]) && block.engine[i] != Engine::kComm;
      const auto duration = static_cast<double>(block.end_ns[i] - block.start_ns[i]);
      ++summary.outside_ops;
      if (compute) summary.outside_kernel_ns += duration;
      if (block.start_ns[i] >= first_steady && block.start_ns[i] <= last_steady) {
        ++summary.between_ops;
        if (compute) summary.between_kernel_ns += duration;
      }
    }
  }
}

void SummarizeIterations(const Trace& trace, const ProfileOptions& options,
                         const std::vector<int32_t>& devices, ProfileSummary& summary) {
  std::vector<const NvtxRange*> ranges =
      SelectRanges(trace, options.iteration_range, "--iteration-range").ranges;
  // The same rules as units of `analyze --units-from nvtx:` (docs/metrics.md, "Units"): a
  // GPU-timeline copy of a CPU step is no step of its own, and an instance inside another of the
  // same name (nested, or the step range on a second thread) is no second iteration: kept, each
  // would be a sample twice and narrow the intervals as if the run were longer.
  std::string gpu_copies_note;
  if (DropGpuCopiesBesideCpu(ranges, options.iteration_range, &gpu_copies_note) > 0) {
    summary.warnings.push_back(gpu_copies_note);
  }
  if (const OutermostInstances outer = KeepOutermost(ranges); outer.overlapping > 0) {
    summary.warnings.push_back(OverlappingInstancesText(outer.overlapping, ranges.size(),
                                                        "'" + options.iteration_range + "'") +
                               ": only the outermost are iterations");
    ranges = outer.kept;
  }
  RefuseSeveralProcesses(trace, ranges, options.iteration_range);
  // An iteration range: its work is what any thread of the process launched while it was open.
  const RangeAttribution attribution =
      AttributeGpuWork(trace, ranges, options.attribute.value_or(RangeScope::kProcess));
  summary.has_iterations = true;
  summary.attribution = attribution.method == AttributionMethod::kLaunchCorrelation
                            ? "launch-correlation"
                            : "time-overlap";
  if (!attribution.method_note.empty()) summary.warnings.push_back(attribution.method_note);
  summary.iterations = ranges.size();
  std::vector<double> walls;
  for (const NvtxRange* range : ranges)
    walls.push_back(static_cast<double>(range->end_ns - range->start_ns));
  bool no_steady_state = false;
  size_t drop = WarmupToDrop(walls, options, &no_steady_state);
  if (!options.warmup) {
    if (const std::optional<ShortWarmup> w = ShortCaptureWarmup(walls, options.min_effect)) {
      drop = w->cut;
      summary.warnings.push_back(fmt::format(
          "WARM-UP: MSER-5 cannot look for a warm-up in {} iterations (it needs {}); iteration{} "
          "{} took {:+.1f}% against the {} after them (mean {} vs {}): dropped as warm-up with "
          "the first ({} of {} iterations); --warmup N sets the cut",
          walls.size(), kMserSearchMin, w->cut > 2 ? "s" : "",
          w->cut > 2 ? fmt::format("2-{}", w->cut) : std::string("2"),
          100.0 * (w->dropped_mean / w->kept_mean - 1.0), walls.size() - w->cut,
          FormatDurationNs(std::llround(w->dropped_mean)),
          FormatDurationNs(std::llround(w->kept_mean)), w->cut, walls.size()));
    }
  }
  summary.warmup_dropped = drop;
  summary.steady_iterations = walls.size() - drop;
  if (summary.steady_iterations == 0) {
    throw InputError(trace.source,
                     fmt::format("no steady iterations: {} instance(s) of '{}', {} dropped as "
                                 "warm-up",
                                 walls.size(), options.iteration_range, drop));
  }
  if (no_steady_state) {
    summary.warnings.push_back(fmt::format(
        "NO STEADY STATE: MSER-5 dropped the largest warm-up it may ({} of {} iterations), and "
        "the dropped iterations differ from the kept ones by more than {:g}%",
        drop, walls.size(), 100.0 * options.min_effect));
  }
  const std::vector<double> steady(walls.begin() + static_cast<ptrdiff_t>(drop), walls.end());
  CheckStationarity(steady, options, summary.warnings);

  SampleSet& wall = summary.metrics["iteration"];
  wall.level = MetricLevel::kIteration;
  wall.name = options.iteration_range;
  wall.values = steady;
  SampleSet& launches = summary.metrics["launches"];
  launches.level = MetricLevel::kLaunches;
  launches.name = "kernel launches";
  SampleSet& bytes = summary.metrics["bytes"];
  bytes.level = MetricLevel::kBytes;
  bytes.name = "bytes moved";

  KernelKeys keys(trace, options.kernel_key);
  std::unordered_map<uint32_t, SampleSet*> by_signature;  // std::map nodes do not move
  // Engines seen per device, so a metric exists only where the profile has that engine.
  std::set<std::pair<int32_t, Engine>> seen;
  std::map<std::pair<int32_t, Engine>, std::vector<double>> busy_by_engine;
  // The first start and last end of each steady iteration's ops, by device (for GPU idle).
  std::vector<std::map<int32_t, std::pair<int64_t, int64_t>>> iteration_spans;
  // Every op some iteration (warm-up included) was given: the rest lies outside the iterations.
  std::vector<std::vector<bool>> attributed;
  for (const ActivityBlock& block : trace.blocks)
    attributed.emplace_back(block.size(), false);
  for (size_t it = 0; it < drop && it < attribution.instances.size(); ++it)
    for (const OpRef& op : attribution.instances[it].ops)
      attributed[op.block][op.index] = true;
  for (size_t it = drop; it < attribution.instances.size(); ++it) {
    const RangeInstanceWork& work = attribution.instances[it];
    std::map<std::pair<int32_t, Engine>, IntervalUnion> unions;
    std::map<int32_t, std::pair<int64_t, int64_t>> spans;  // device -> first start, last end
    double kernel_launches = 0;
    double moved = 0;
    for (const OpRef& op : work.ops) {
      attributed[op.block][op.index] = true;
      const ActivityBlock& block = trace.blocks[op.block];
      const OpInterval interval = CountedInterval(trace, work, op);
      const Engine engine = block.engine[op.index];
      const int32_t device = trace.streams[block.stream[op.index]].device_id;
      // Compute busy is one union of kernels and whole-graph launches (docs/metrics.md).
      const Engine busy_engine = IsComputeEngine(engine) ? Engine::kKernel : engine;
      unions[{device, busy_engine}].Add(interval.start_ns, interval.end_ns);
      seen.insert({device, busy_engine});
      auto [span, fresh] = spans.try_emplace(device, interval.start_ns, interval.end_ns);
      if (!fresh) {
        span->second.first = std::min(span->second.first, interval.start_ns);
        span->second.second = std::max(span->second.second, interval.end_ns);
      }
      if (IsKernelEngine(engine)) {  // collectives too: report-only kernel metrics
        kernel_launches += 1;
        const double duration = static_cast<double>(interval.end_ns - interval.start_ns);
        // One map lookup per signature, not per launch (a million launches is the target).
        SampleSet*& cached = by_signature[block.signature[op.index]];
        if (!cached) {
          const std::string& key = keys.Of(block.signature[op.index]);
          cached = &summary.metrics["kernel:" + key];
          cached->level = MetricLevel::kKernel;
          cached->name = key;
        }
        SampleSet& kernel = *cached;
        kernel.values.push_back(duration);
        kernel.total += duration;
        // Shares are of compute kernel time: collectives wait for the other ranks (§3.3).
        if (engine != Engine::kComm) summary.kernel_time_ns += duration;
      } else {
        moved += static_cast<double>(block.bytes[op.index]);
      }
    }
    launches.values.push_back(kernel_launches);
    bytes.values.push_back(moved);
    iteration_spans.push_back(std::move(spans));
    // Every engine of the profile gets a value for every iteration (0 when idle in it).
    for (const auto& key : seen) {
      auto u = unions.find(key);
      busy_by_engine[key].resize(it - drop, 0.0);
      busy_by_engine[key].push_back(u == unions.end() ? 0.0
                                                      : static_cast<double>(u->second.length_ns()));
    }
  }
  SummarizeRanges(trace, ranges, drop, summary);
  CountOutsideWork(trace, ranges, attributed, drop, summary);
  std::map<int32_t, std::pair<size_t, std::vector<double>>> idle_capped;
  std::map<int32_t, std::vector<double>> idle_by_device =
      IdleByDevice(trace, iteration_spans, steady, MedianGapNs(ranges, drop), seen, idle_capped);
  for (auto& [device, entry] : idle_capped) {
    auto& [count, uncapped] = entry;
    if (count == 0) continue;
    // A note, not a warning: idle is report-only, so this changes no gated figure (the text
    // reports print "note: PATH: ..." for an entry starting with "note: ").
    summary.warnings.push_back(fmt::format(
        "note: GPU idle / iter{}: counted within the iteration's length (the longer of its CPU "
        "range and the span of the GPU work it launched) on {} of {} steady iteration(s), which "
        "left idle time after it uncounted; median over the whole window to the next "
        "iteration's first op {} (host time between the iterations' ranges)",
        DeviceSuffix(device, devices.size()), count, uncapped.size(),
        FormatDurationNs(std::llround(MedianInPlace(uncapped)))));
  }
  if (summary.outside_ops > 0) {
    summary.warnings.push_back(fmt::format(
        "outside the iterations: {} GPU op(s) ({} of compute kernel time) belong to no "
        "instance of '{}' and are in no metric; {} of them ({}) start between the first "
        "and the last steady iteration ({:.1f}% of the steady kernel time)",
        summary.outside_ops, FormatDurationNs(std::llround(summary.outside_kernel_ns)),
        options.iteration_range, summary.between_ops,
        FormatDurationNs(std::llround(summary.between_kernel_ns)),
        summary.kernel_time_ns > 0 ? 100.0 * summary.between_kernel_ns / summary.kernel_time_ns
                                   : 0.0));
  }
  if (!summary.other_thread_ranges.empty()) {
    size_t instances = 0;
    std::vector<std::string> names;
    for (const auto& [name, count] : summary.other_thread_ranges) {
      instances += count;
      names.push_back(fmt::format("{} ({})", name, count));
    }
    summary.warnings.push_back(fmt::format(
        "{} annotation range name(s) ({} instance(s)) on other threads of the iteration's process "
        "are not compared (ranges are taken on the iteration's thread): {}",
        summary.other_thread_ranges.size(), instances, ListFirst(names, 3)));
  }
  for (auto& [device, values] : idle_by_device) {
    values.resize(summary.steady_iterations, 0.0);
    SampleSet& set = summary.metrics[fmt::format("idle:{}", DeviceKey(device, devices.size()))];
    set.level = MetricLevel::kIdle;
    set.name = "GPU idle" + DeviceSuffix(device, devices.size());
    set.values = std::move(values);
  }
  for (auto& [key, values] : busy_by_engine) {
    values.resize(summary.steady_iterations, 0.0);
    const auto [device, engine] = key;
    const bool compute = engine == Engine::kKernel;
    const bool comm = engine == Engine::kComm;
    SampleSet& set =
        summary.metrics[fmt::format("{}:{}:{}", compute || comm ? "busy" : "copy",
                                    EngineName(engine), DeviceKey(device, devices.size()))];
    set.level = compute ? MetricLevel::kGpuBusy
                : comm  ? MetricLevel::kCommBusy
                        : MetricLevel::kCopyBusy;
    set.name = std::string(EngineName(engine)) + DeviceSuffix(device, devices.size());
    set.values = std::move(values);
  }
}

// Without iterations: every launch of a kernel is a sample; each kernel's warm-up is trimmed
// on its own launch series. With `engine_totals`, each engine's busy time over the whole profile
// too (ops in start order, so one union per engine and device).
void SummarizeLaunches(const Trace& trace, const ProfileOptions& options,
                       const std::vector<int32_t>& devices, ProfileSummary& summary) {
  // The trace may well have steps (Kineto's ProfilerStep#N): the warning says so, with the name
  // that takes them, rather than reading as if the trace had none.
  std::vector<const NvtxRange*> steps = FindNvtxRanges(trace, "ProfilerStep#*");
  const size_t cpu_steps =
      std::count_if(steps.begin(), steps.end(), [](const NvtxRange* r) { return !r->on_gpu; });
  const size_t step_count = cpu_steps > 0 ? cpu_steps : steps.size();
  summary.warnings.push_back(
      step_count > 0
          ? fmt::format("no --iteration-range given: kernel-level metrics only; the trace has {} "
                        "ProfilerStep#* range(s) (give --iteration-range 'ProfilerStep#*')",
                        step_count)
          : "no --iteration-range given: kernel-level metrics only (give --iteration-range NAME)");
  KernelKeys keys(trace, options.kernel_key);
  std::map<std::string, std::vector<double>> series;
  std::set<std::string> collectives;  // keys of collective (comm) kernels: not in the shares
  std::unordered_map<uint32_t, std::vector<double>*> by_signature;  // map nodes do not move
  std::map<std::pair<int32_t, Engine>, IntervalUnion> engine_busy;
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    if (options.engine_totals) {
      engine_busy[{trace.streams[block.stream[i]].device_id, block.engine[i]}].Add(
          block.start_ns[i], block.end_ns[i]);
    }
    if (!IsKernelEngine(block.engine[i])) return;  // collectives too: report-only kernel metrics
    std::vector<double>*& cached = by_signature[block.signature[i]];
    if (!cached) {
      const std::string& key = keys.Of(block.signature[i]);
      cached = &series[key];
      if (block.engine[i] == Engine::kComm) collectives.insert(key);
    }
    cached->push_back(static_cast<double>(block.end_ns[i] - block.start_ns[i]));
  });
  for (auto& [key, values] : series) {
    bool no_steady_state = false;
    size_t drop = WarmupToDrop(values, options, &no_steady_state);
    if (no_steady_state) drop = std::min<size_t>(1, drop);
    if (drop >= values.size()) continue;
    SampleSet& kernel = summary.metrics["kernel:" + key];
    kernel.level = MetricLevel::kKernel;
    kernel.name = key;
    kernel.warmup_dropped = drop;
    kernel.warmup_of = values.size();
    kernel.no_steady_state = no_steady_state;
    kernel.values.assign(values.begin() + static_cast<ptrdiff_t>(drop), values.end());
    for (double v : kernel.values)
      kernel.total += v;
    // Shares are of compute kernel time: collectives wait for the other ranks (§3.3).
    if (collectives.count(key) == 0) summary.kernel_time_ns += kernel.total;
  }
  for (const auto& [key, busy] : engine_busy) {
    const auto [device, engine] = key;
    SampleSet& set = summary.metrics[fmt::format("engine:{}:{}", EngineName(engine),
                                                 DeviceKey(device, devices.size()))];
    set.level = MetricLevel::kEngineTotal;
    set.name = std::string(EngineName(engine)) + DeviceSuffix(device, devices.size());
    set.values = {static_cast<double>(busy.length_ns())};
    set.total = set.values.front();
  }
}

}  // namespace

ProfileSummary SummarizeProfile(const Trace& trace, const ProfileOptions& options) {
  ProfileSummary summary;
  summary.path = trace.source;
  summary.iteration_range = options.iteration_range;
  summary.kernel_key = options.kernel_key;
  const std::vector<int32_t> devices = trace.ActiveDeviceIds();
  if (devices.empty()) {
    throw InputError(trace.source, options.iteration_range.empty()
                                       ? "empty profile: no kernel launch (without "
                                         "--iteration-range only kernels are compared)"
                                       : "empty profile: no GPU activity");
  }
  summary.device_count = devices.size();
  summary.device_ids = devices;
  std::set<std::string> models;
  for (int32_t id : devices) {
    const std::string_view name = trace.DeviceName(id);
    models.insert(name.empty() ? std::string("unknown GPU") : std::string(name));
  }
  for (const std::string& model : models)
    summary.device_model += (summary.device_model.empty() ? "" : " + ") + model;
  if (options.iteration_range.empty()) {
    SummarizeLaunches(trace, options, devices, summary);
  } else {
    SummarizeIterations(trace, options, devices, summary);
  }
  return summary;
}

}  // namespace gpuroof
