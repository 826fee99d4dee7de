#include "gpuroof/analyses/rank_summary.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/device_steps.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/segments.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// What an op counts as in a step's figures.
enum class OpClass { kCompute, kComm, kCopy };

OpClass ClassOf(Engine engine) {
  if (IsComputeEngine(engine)) return OpClass::kCompute;
  if (engine == Engine::kComm) return OpClass::kComm;
  return OpClass::kCopy;
}

// One op of the analysed device, in start order.
struct DeviceOp {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t signature = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  Engine engine = Engine::kKernel;
};

// The ops of one device in start order, as places in the trace's blocks rather than copies of
// their fields: 8 bytes an op instead of 32, while the whole trace is held (`ranks` holds
// `--jobs` traces at once; docs/performance.md, §13).
class DeviceOpList {
 public:
  // `capacity`: the device's op count when known (SummarizeRank has it), reserved up front so
  // that the list is not grown by doubling.
  DeviceOpList(const Trace& trace, int32_t device_id, size_t capacity) : trace_(&trace) {
    places_.reserve(capacity);
    ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
      if (trace.streams[block.stream[i]].device_id != device_id) return;
      if (block.end_ns[i] <= block.start_ns[i]) return;  // occupies no engine
      places_.push_back(
          {static_cast<uint32_t>(&block - trace.blocks.data()), static_cast<uint32_t>(i)});
    });
  }

  size_t size() const { return places_.size(); }
  bool empty() const { return places_.empty(); }
  DeviceOp operator[](size_t i) const {
    const ActivityBlock& block = trace_->blocks[places_[i].block];
    const size_t row = places_[i].row;
    return {block.start_ns[row],
            block.end_ns[row],
            block.signature[row],
            block.stream[row],
            block.correlation.empty() ? 0u : block.correlation[row],
            block.engine[row]};
  }
  DeviceOp front() const { return (*this)[0]; }

 private:
  struct Place {
    uint32_t block;
    uint32_t row;  // a block holds at most 2^32 ops
  };
  const Trace* trace_;
  std::vector<Place> places_;
};

// The end of the call that launched `op` among `calls` (ApiCall or LaunchEnd, sorted by
// (process, correlation)), or nullopt.
template <typename Call>
std::optional<int64_t> LaunchEndIn(const std::vector<Call>& calls, uint64_t process,
                                   uint32_t correlation) {
  auto it = std::lower_bound(calls.begin(), calls.end(), std::pair(process, correlation),
                             [](const Call& call, const std::pair<uint64_t, uint32_t>& key) {
                               return std::pair(call.process_id, call.correlation) < key;
                             });
  if (it == calls.end() || it->process_id != process || it->correlation != correlation) {
    return std::nullopt;
  }
  return it->end_ns;
}

// When the host was done launching `op`: the end of its launch call, from Trace::launch_ends
// when the trace was read with those only, else from Trace::api_calls.
std::optional<int64_t> LaunchEndOf(const Trace& trace, const DeviceOp& op) {
  if (op.correlation == 0) return std::nullopt;
  uint64_t process = trace.streams[op.stream].process_id;
  if (!trace.launch_ends.empty()) return LaunchEndIn(trace.launch_ends, process, op.correlation);
  if (trace.api_calls.empty()) return std::nullopt;
  return LaunchEndIn(trace.api_calls, process, op.correlation);
}

// When the host was done launching the op that ends an idle interval: ops[i] and any op starting
// at the same time (ties are in file order, which must not decide), the earliest known launch.
std::optional<int64_t> ClosingLaunchEnd(const Trace& trace, const DeviceOpList& ops, size_t i) {
  std::optional<int64_t> earliest;
  for (size_t j = i; j < ops.size() && ops[j].start_ns == ops[i].start_ns; ++j) {
    const std::optional<int64_t> end = LaunchEndOf(trace, ops[j]);
    if (end && (!earliest || *end < *earliest)) earliest = end;
  }
  return earliest;
}

// Splits the idle interval [start, end) by `launch_end`: when the host was done launching the
// op that ended it (nullopt: unknown, or no op ended it).
void ClassifyIdle(int64_t start, int64_t end, std::optional<int64_t> launch_end,
                  IdleBreakdown& idle) {
  if (end <= start) return;
  if (!launch_end) {
    idle.other_ns += end - start;
    return;
  }
  int64_t host_bound = std::clamp(*launch_end, start, end) - start;
  idle.host_bound_ns += host_bound;
  idle.waiting_ns += end - start - host_bound;
}

// Figures of the window over `ops` (the device's ops in start order), starting at `first`.
// `running_end[i]` is the largest end of ops[0..i], so ops before `first` cannot reach the window.
StepFigures FiguresOf(const Trace& trace, const DeviceOpList& ops, size_t first, int64_t start_ns,
                      int64_t end_ns) {
  StepFigures figures;
  figures.start_ns = start_ns;
  figures.end_ns = end_ns;
  Segments compute;
  Segments comm;
  Segments copy;
  int64_t busy_end = start_ns;  // end of the union of every op so far (idle before it is done)
  for (size_t i = first; i < ops.size() && ops[i].start_ns < end_ns; ++i) {
    const DeviceOp op = ops[i];
    if (op.end_ns <= start_ns) continue;
    int64_t start = std::max(op.start_ns, start_ns);
    int64_t end = std::min(op.end_ns, end_ns);
    if (start > busy_end) {
      ClassifyIdle(busy_end, start, ClosingLaunchEnd(trace, ops, i), figures.idle);
    }
    busy_end = std::max(busy_end, end);
    switch (ClassOf(op.engine)) {
      case OpClass::kCompute:
        AppendMerged(compute, start, end);
        break;
      case OpClass::kComm:
        AppendMerged(comm, start, end);
        break;
      case OpClass::kCopy:
        AppendMerged(copy, start, end);
        break;
    }
  }
  ClassifyIdle(busy_end, end_ns, std::nullopt, figures.idle);
  figures.compute_busy_ns = SegmentsLengthNs(compute);
  figures.comm_busy_ns = SegmentsLengthNs(comm);
  figures.copy_busy_ns = SegmentsLengthNs(copy);
  figures.overlap_ns = IntersectionLengthNs(compute, comm);
  figures.busy_ns = figures.length_ns() - figures.idle.total_ns();
  return figures;
}

// Index of the first op whose running end passes `start_ns` (earlier ops end before the window).
size_t FirstReaching(const std::vector<int64_t>& running_end, int64_t start_ns) {
  return static_cast<size_t>(std::upper_bound(running_end.begin(), running_end.end(), start_ns) -
                             running_end.begin());
}

std::vector<int64_t> RunningEnds(const DeviceOpList& ops) {
  std::vector<int64_t> running(ops.size());
  int64_t end = std::numeric_limits<int64_t>::min();
  for (size_t i = 0; i < ops.size(); ++i) {
    end = std::max(end, ops[i].end_ns);
    running[i] = end;
  }
  return running;
}

// The device with the most ops (the lowest id on a tie) and how many ops each device has.
std::map<int32_t, int64_t> OpsPerDevice(const Trace& trace) {
  std::map<int32_t, int64_t> counts;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i)
      ++counts[trace.streams[block.stream[i]].device_id];
  }
  return counts;
}

// The step ranges: CPU ranges when there are any (a GPU-timeline copy would count a step twice).
std::vector<const NvtxRange*> CpuRangesFirst(std::vector<const NvtxRange*> ranges) {
  std::vector<const NvtxRange*> cpu;
  std::copy_if(ranges.begin(), ranges.end(), std::back_inserter(cpu),
               [](const NvtxRange* range) { return !range->on_gpu; });
  return cpu.empty() ? ranges : cpu;
}

// The union of the step windows in time order (steps may overlap; empty windows hold nothing).
Segments MergeStepWindows(std::vector<std::pair<int64_t, int64_t>> windows) {
  std::sort(windows.begin(), windows.end());
  Segments merged;
  for (const auto& [start_ns, end_ns] : windows) {
    if (end_ns > start_ns) AppendMerged(merged, start_ns, end_ns);
  }
  return merged;
}

// The device's GPU work in no step window: ops with no overlap with any window, and the busy
// time (union of every op) outside `steps`, the merged windows.
void CountOutsideSteps(const DeviceOpList& ops, const Segments& steps, RankSummary& summary) {
  Segments busy;
  for (size_t i = 0; i < ops.size(); ++i) {
    const DeviceOp op = ops[i];
    AppendMerged(busy, op.start_ns, op.end_ns);
    // The first merged step ending after the op starts: the op overlaps a step when that step
    // starts before the op ends (the same overlap FiguresOf clips by).
    auto step = std::upper_bound(
        steps.begin(), steps.end(), op.start_ns,
        [](int64_t start_ns, const std::pair<int64_t, int64_t>& s) { return start_ns < s.second; });
    if (step == steps.end() || step->first >= op.end_ns) ++summary.ops_outside_steps;
  }
  summary.busy_outside_steps_ns = UncoveredLengthNs(busy, steps);
}

std::optional<int64_t> MetadataInteger(const Trace& trace, const std::string& key) {
  auto it = trace.metadata.find(key);
  if (it == trace.metadata.end()) return std::nullopt;
  int64_t value = 0;
  const std::string& text = it->second;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// GPU-timeline step ranges (a capture of CUDA activity only) span each step's GPU work, not the
// iteration: the time between them lies in no step. Its length (within the first step's start
// and the last step's end, over `merged`, the step windows merged where they overlap), or nullopt
// when the steps are not all GPU-timeline ranges. Not stretched into the steps: Kineto draws one
// such range per device and stream, and a capture may skip step numbers, so "until the next step"
// is not the iteration.
std::optional<int64_t> TimeBetweenGpuSteps(const std::vector<const NvtxRange*>& steps,
                                           const Segments& merged) {
  if (steps.empty() ||
      !std::all_of(steps.begin(), steps.end(), [](const NvtxRange* r) { return r->on_gpu; })) {
    return std::nullopt;
  }
  int64_t between_ns = 0;
  for (size_t k = 1; k < merged.size(); ++k)
    between_ns += merged[k].first - merged[k - 1].second;
  return between_ns;
}

// The step (index into `windows`) whose interval [start, end) holds `time_ns`: the latest-starting
// one when steps overlap; nullopt when none does. `by_start` lists the windows' indices by start,
// `ends_by` the largest end among the first k + 1 of them, so that the walk back stops as soon as
// no earlier step reaches `time_ns` (one step in the usual case, never all of them).
std::optional<size_t> StepHolding(const std::vector<std::pair<int64_t, int64_t>>& windows,
                                  const std::vector<size_t>& by_start,
                                  const std::vector<int64_t>& ends_by, int64_t time_ns) {
  auto after = std::upper_bound(by_start.begin(), by_start.end(), time_ns,
                                [&](int64_t t, size_t s) { return t < windows[s].first; });
  for (auto k = static_cast<size_t>(after - by_start.begin()); k > 0;) {
    --k;
    if (ends_by[k] <= time_ns) break;
    if (time_ns < windows[by_start[k]].second) return by_start[k];
  }
  return std::nullopt;
}

// Each step's collective kernels (start, name, stream). With CPU step ranges a collective belongs
// to the step whose CPU time holds the end of its launching call: a GPU that runs behind its host
// starts a step's last collectives after the CPU step ended, and placed by their GPU start they
// would be matched against other collectives on ranks that keep up (docs/metrics.md, "Collective
// skew"). A collective whose launch is not in the trace or lies in no step, or every collective
// when the steps are GPU-timeline ranges or the whole trace, goes by its GPU start.
std::vector<std::vector<std::tuple<int64_t, std::string_view, uint32_t>>> CollectivesByStep(
    const Trace& trace, const DeviceOpList& ops,
    const std::vector<std::pair<int64_t, int64_t>>& windows, bool cpu_steps) {
  std::vector<size_t> by_start(windows.size());
  for (size_t s = 0; s < windows.size(); ++s)
    by_start[s] = s;
  std::stable_sort(by_start.begin(), by_start.end(),
                   [&](size_t a, size_t b) { return windows[a].first < windows[b].first; });
  std::vector<int64_t> ends_by(by_start.size());
  for (size_t k = 0; k < by_start.size(); ++k) {
    const int64_t end_ns = windows[by_start[k]].second;
    ends_by[k] = k == 0 ? end_ns : std::max(ends_by[k - 1], end_ns);
  }
  std::vector<std::vector<std::tuple<int64_t, std::string_view, uint32_t>>> by_step(windows.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const DeviceOp op = ops[i];
    if (op.engine != Engine::kComm) continue;
    const std::optional<int64_t> launch_end =
        cpu_steps ? LaunchEndOf(trace, op) : std::optional<int64_t>();
    std::optional<size_t> step;
    if (launch_end) step = StepHolding(windows, by_start, ends_by, *launch_end);
    if (!step) step = StepHolding(windows, by_start, ends_by, op.start_ns);
    if (!step) continue;
    by_step[*step].emplace_back(op.start_ns, trace.strings.Get(trace.signatures[op.signature].name),
                                trace.streams[op.stream].stream_id);
  }
  return by_step;
}

}  // namespace

void RankSummary::AddCollective(size_t step, size_t order, std::string_view name,
                                int64_t arrival_ns) {
  collectives.push_back({static_cast<uint32_t>(step), static_cast<uint32_t>(order),
                         CollectiveNameId(collective_names, name), arrival_ns});
}

uint32_t CollectiveNameId(std::vector<std::string>& names, std::string_view name) {
  // A job launches few distinct collective kernels: a linear search finds the name.
  auto known = std::find(names.begin(), names.end(), name);
  if (known == names.end()) known = names.emplace(known, name);
  return static_cast<uint32_t>(known - names.begin());
}

double RankSummary::MeanPerStep(int64_t StepFigures::*field) const {
  if (steps.empty()) return 0;
  double total = 0;
  for (const StepFigures& step : steps)
    total += static_cast<double>(step.*field);
  return total / static_cast<double>(steps.size());
}

double RankSummary::MeanExposedCommNs() const {
  return MeanPerStep(&StepFigures::comm_busy_ns) - MeanPerStep(&StepFigures::overlap_ns);
}

double RankSummary::MeanIdle(int64_t IdleBreakdown::*field) const {
  if (steps.empty()) return 0;
  double total = 0;
  for (const StepFigures& step : steps)
    total += static_cast<double>(step.idle.*field);
  return total / static_cast<double>(steps.size());
}

RankIdentity RankIdentityOf(const Trace& trace) {
  RankIdentity identity;
  identity.rank = MetadataInteger(trace, "distributed_rank");
  identity.world_size = MetadataInteger(trace, "distributed_world_size");
  auto origin = trace.metadata.find("distributed_rank_origin");
  if (identity.rank && origin != trace.metadata.end()) identity.origin = origin->second;
  return identity;
}

StepFigures ComputeStepFigures(const Trace& trace, int32_t device_id, int64_t start_ns,
                               int64_t end_ns) {
  DeviceOpList ops(trace, device_id, 0);
  return FiguresOf(trace, ops, FirstReaching(RunningEnds(ops), start_ns), start_ns, end_ns);
}

RankSummary SummarizeRank(const Trace& trace, const RankSummaryOptions& options) {
  std::map<int32_t, int64_t> per_device = OpsPerDevice(trace);
  if (per_device.empty()) throw InputError(trace.source, "no GPU op: nothing to summarise");
  RankSummary summary;
  summary.source = trace.source;
  summary.format = trace.format;
  RankIdentity identity = RankIdentityOf(trace);
  std::set<uint64_t> gpu_processes;
  for (const StreamInfo& stream : trace.streams)
    gpu_processes.insert(stream.process_id);
  // nsys captures the environment of the command it started (PROCESS_0): with several processes
  // driving GPUs (a node's workers under one capture), its rank variable is no one worker's.
  if (identity.rank && !identity.origin.starts_with("distributedInfo") &&
      gpu_processes.size() > 1) {
    summary.rank_left_out = fmt::format(
        "the captured environment names rank {} ({}), but {} processes ran GPU work in this "
        "trace: it is the profiled command's environment, not one worker's",
        *identity.rank, identity.origin, gpu_processes.size());
    identity = RankIdentity{};
  }
  summary.rank = identity.rank;
  summary.world_size = identity.world_size;
  summary.rank_origin = identity.origin;
  auto busiest = std::max_element(per_device.begin(), per_device.end(),
                                  [](const auto& a, const auto& b) { return a.second < b.second; });
  summary.device_id = busiest->first;
  summary.device_name = std::string(trace.DeviceName(summary.device_id));
  summary.other_devices = per_device.size() - 1;
  for (const auto& [device, count] : per_device) {
    if (device == summary.device_id) continue;
    summary.other_device_ops += count;
    if (count == busiest->second) ++summary.tied_devices;
  }

  DeviceOpList ops(trace, summary.device_id, static_cast<size_t>(busiest->second));
  if (ops.empty()) throw InputError(trace.source, "no GPU op that takes time");
  std::vector<int64_t> running_end = RunningEnds(ops);

  std::vector<std::pair<int64_t, int64_t>> windows;
  std::vector<const NvtxRange*> steps;
  if (!options.iteration_range.empty()) {
    RangeSelection selection = SelectRanges(trace, options.iteration_range, "--iteration-range");
    steps = CpuRangesFirst(selection.ranges);
    summary.steps_label = selection.Describe();
  } else {
    steps = CpuRangesFirst(FindNvtxRanges(trace, "ProfilerStep#*"));
    if (!steps.empty()) {
      summary.steps_label = fmt::format("'ProfilerStep#*' ({} instance{})", steps.size(),
                                        steps.size() == 1 ? "" : "s");
    }
  }
  std::string steps_left_out;
  steps = DeviceProcessSteps(trace, summary.device_id, steps, &steps_left_out);
  if (!steps_left_out.empty()) summary.steps_label += "; " + steps_left_out;
  for (const NvtxRange* range : steps) {
    windows.emplace_back(range->start_ns, range->end_ns);
    summary.step_numbers.push_back(RangeNumber(trace.strings.Get(range->name)).value_or(-1));
  }
  const Segments merged_steps = MergeStepWindows(windows);
  if (const std::optional<int64_t> between = TimeBetweenGpuSteps(steps, merged_steps)) {
    summary.steps_label += fmt::format(
        "; GPU-timeline ranges (no CPU step ranges): a step is the span of its GPU work, not the "
        "iteration, and the {} between the steps is in no figure",
        FormatDurationNs(*between));
  }
  if (std::find(summary.step_numbers.begin(), summary.step_numbers.end(), -1) !=
      summary.step_numbers.end()) {
    summary.step_numbers.clear();  // some step has no number: none is compared
  }
  summary.step_numbers.shrink_to_fit();
  if (windows.empty()) {
    summary.steps_label = "whole trace (no step ranges)";
    summary.whole_trace = true;
    windows.emplace_back(ops.front().start_ns, running_end.back());
  } else {
    CountOutsideSteps(ops, merged_steps, summary);
  }

  summary.last_record_ns = running_end.back();
  for (const ApiCall& call : trace.api_calls)
    summary.last_record_ns = std::max(summary.last_record_ns, call.end_ns);
  for (const ApiCall& call : trace.calls_without_op)
    summary.last_record_ns = std::max(summary.last_record_ns, call.end_ns);
  for (const LaunchEnd& launch : trace.launch_ends)
    summary.last_record_ns = std::max(summary.last_record_ns, launch.end_ns);

  std::vector<int64_t> lengths;
  for (size_t s = 0; s < windows.size(); ++s) {
    auto [start_ns, end_ns] = windows[s];
    size_t first = FirstReaching(running_end, start_ns);
    summary.steps.push_back(FiguresOf(trace, ops, first, start_ns, end_ns));
    lengths.push_back(end_ns - start_ns);
  }
  const bool cpu_steps =
      !summary.whole_trace && std::none_of(steps.begin(), steps.end(),
                                           [](const NvtxRange* range) { return range->on_gpu; });
  std::vector<std::vector<std::tuple<int64_t, std::string_view, uint32_t>>> step_collectives =
      CollectivesByStep(trace, ops, windows, cpu_steps);
  for (size_t s = 0; s < step_collectives.size(); ++s) {
    // In start order; collectives starting at the same time by name, then stream, so that the
    // order (part of an instance's identity across ranks) never depends on the file's order.
    auto& collectives = step_collectives[s];
    std::sort(collectives.begin(), collectives.end());
    for (size_t order = 0; order < collectives.size(); ++order) {
      const auto& [op_start_ns, name, stream_id] = collectives[order];
      summary.AddCollective(s, order, name, op_start_ns - windows[s].first);
    }
  }
  std::sort(lengths.begin(), lengths.end());
  summary.step_median_ns = Median(lengths).value_or(0);
  summary.step_p95_ns = Quantile(lengths, 0.95).value_or(0);
  // Kept for the whole rank set (the steps) or until folded (the arrivals): no spare capacity.
  summary.collectives.shrink_to_fit();
  summary.steps.shrink_to_fit();
  return summary;
}

}  // namespace gpuroof
