#include "gpuroof/analyses/regression/profile_samples.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/analyses/mser.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/range_selection.h"
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
        key = ShortKernelName(name);
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

// How many leading samples to drop: fixed, or MSER-5 (at least one when there are two or more).
size_t WarmupToDrop(const std::vector<double>& series, const ProfileOptions& options,
                    bool* no_steady_state) {
  if (options.warmup) return std::min(*options.warmup, series.size());
  const MserResult mser = MserTruncation(series);
  if (no_steady_state) *no_steady_state = mser.hit_cap && series.size() >= 10;
  return series.size() >= 2 ? std::max<size_t>(1, mser.dropped) : 0;
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
  for (const NvtxRange& range : trace.nvtx_ranges) {
    if (range.on_gpu || iteration_names.count(range.name) != 0) continue;
    auto thread = steady_by_thread.find(range.thread_id);
    if (thread == steady_by_thread.end()) continue;
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

void SummarizeIterations(const Trace& trace, const ProfileOptions& options,
                         const std::vector<int32_t>& devices, ProfileSummary& summary) {
  const std::vector<const NvtxRange*> ranges =
      SelectRanges(trace, options.iteration_range, "--iteration-range").ranges;
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
  const size_t drop = WarmupToDrop(walls, options, &no_steady_state);
  summary.warmup_dropped = drop;
  summary.steady_iterations = walls.size() - drop;
  if (summary.steady_iterations == 0) {
    throw InputError(trace.source,
                     fmt::format("no steady iterations: {} instance(s) of '{}', {} dropped as "
                                 "warm-up",
                                 walls.size(), options.iteration_range, drop));
  }
  if (no_steady_state) {
    summary.warnings.push_back(
        "NO STEADY STATE: MSER-5 dropped the largest warm-up it may (half of the iterations)");
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
  // GPU idle per iteration and device: span of the iteration's ops minus their compute busy.
  std::map<int32_t, std::vector<double>> idle_by_device;
  for (size_t it = drop; it < attribution.instances.size(); ++it) {
    const RangeInstanceWork& work = attribution.instances[it];
    std::map<std::pair<int32_t, Engine>, IntervalUnion> unions;
    std::map<int32_t, std::pair<int64_t, int64_t>> spans;  // device -> first start, last end
    double kernel_launches = 0;
    double moved = 0;
    for (const OpRef& op : work.ops) {
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
    // Every device with ops gets an idle value for every iteration (0 without ops in it).
    for (const auto& [device, engine] : seen) {
      if (engine != Engine::kKernel) continue;
      std::vector<double>& idle = idle_by_device[device];
      idle.resize(it - drop, 0.0);
      auto span = spans.find(device);
      auto busy = unions.find({device, Engine::kKernel});
      const double length =
          span == spans.end() ? 0.0 : static_cast<double>(span->second.second - span->second.first);
      idle.push_back(std::max(
          0.0,
          length - (busy == unions.end() ? 0.0 : static_cast<double>(busy->second.length_ns()))));
    }
    // Every engine of the profile gets a value for every iteration (0 when idle in it).
    for (const auto& key : seen) {
      auto u = unions.find(key);
      busy_by_engine[key].resize(it - drop, 0.0);
      busy_by_engine[key].push_back(u == unions.end() ? 0.0
                                                      : static_cast<double>(u->second.length_ns()));
    }
  }
  SummarizeRanges(trace, ranges, drop, summary);
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
  summary.warnings.push_back(
      "no iteration annotation: kernel-level metrics only (give --iteration-range NAME)");
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
