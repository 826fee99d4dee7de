#include "gpuroof/analyses/rank_summary.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/segments.h"
#include "gpuroof/analyses/statistics.h"
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

// The steps of the process that drives `device_id`: one nsys capture of a whole node holds every
// process's steps, and another process's steps are another rank's (on another device, on its
// own clock offset). GPU-drawn ranges count when drawn on the device. When several processes
// launch onto the device and more than one has steps, their step series overlap (every op would
// count in two steps): the steps of the one that launched most of the device's ops are kept (the
// lowest process key on a tie). When no step is the device's process's (a format whose GPU ops
// carry no process), every step is kept. `note` says what was left out, and why.
std::vector<const NvtxRange*> StepsOfDevice(const Trace& trace, int32_t device_id,
                                            const std::vector<const NvtxRange*>& steps,
                                            std::string* note) {
  std::map<uint64_t, int64_t> ops_of_process;  // of the device's processes
  for (const StreamInfo& stream : trace.streams) {
    if (stream.device_id == device_id) ops_of_process.try_emplace(stream.process_id, 0);
  }
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const StreamInfo& stream = trace.streams[block.stream[i]];
      if (stream.device_id == device_id) ++ops_of_process[stream.process_id];
    }
  }
  std::map<uint64_t, size_t> steps_of_process;
  std::vector<const NvtxRange*> own;
  for (const NvtxRange* range : steps) {
    const bool drives =
        range->on_gpu ? range->device_id == device_id : ops_of_process.count(range->process_id) > 0;
    if (!drives) continue;
    own.push_back(range);
    if (!range->on_gpu) ++steps_of_process[range->process_id];
  }
  if (own.empty()) return steps;
  std::string other_devices_part;
  if (own.size() < steps.size()) {
    other_devices_part =
        fmt::format("{} of them left out: another process's, not the one driving device {}",
                    steps.size() - own.size(), device_id);
  }
  std::string shared_device_part;
  if (steps_of_process.size() > 1) {
    uint64_t driver = steps_of_process.begin()->first;
    size_t tied = 0;
    for (const auto& [process, count] : steps_of_process) {
      if (ops_of_process[process] > ops_of_process[driver]) driver = process;
    }
    int64_t device_ops = 0;
    for (const auto& [process, count] : ops_of_process)
      device_ops += count;
    size_t dropped = 0;
    for (const auto& [process, count] : steps_of_process) {
      if (process == driver) continue;
      dropped += count;
      if (ops_of_process[process] == ops_of_process[driver]) ++tied;
    }
    std::erase_if(
        own, [&](const NvtxRange* range) { return !range->on_gpu && range->process_id != driver; });
    shared_device_part = fmt::format(
        "{} of them left out: {} processes launched onto device {} and have steps; those of "
        "process {} are kept, which launched {} of its {} ops{}",
        dropped, steps_of_process.size(), device_id, driver, ops_of_process[driver], device_ops,
        tied > 0 ? " (as many as another: the lowest key taken)" : "");
  }
  if (!other_devices_part.empty() && !shared_device_part.empty()) {
    *note = other_devices_part + "; " + shared_device_part;
  } else {
    *note = other_devices_part + shared_device_part;
  }
  return own;
}

// The device's GPU work in no step window: ops with no overlap with any window, and the busy
// time (union of every op) outside the union of the windows (windows may overlap).
void CountOutsideSteps(const DeviceOpList& ops, std::vector<std::pair<int64_t, int64_t>> windows,
                       RankSummary& summary) {
  std::sort(windows.begin(), windows.end());
  Segments steps;
  for (const auto& [start_ns, end_ns] : windows) {
    if (end_ns > start_ns) AppendMerged(steps, start_ns, end_ns);
  }
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

// The N of a range named NAME#N (N >= 0, fits an int64); unset otherwise.
std::optional<int64_t> StepNumber(std::string_view name) {
  if (NumberedFamily(name).empty()) return std::nullopt;
  const std::string_view digits = name.substr(name.rfind('#') + 1);
  int64_t number = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return number;
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
  steps = StepsOfDevice(trace, summary.device_id, steps, &steps_left_out);
  if (!steps_left_out.empty()) summary.steps_label += "; " + steps_left_out;
  for (const NvtxRange* range : steps) {
    windows.emplace_back(range->start_ns, range->end_ns);
    summary.step_numbers.push_back(StepNumber(trace.strings.Get(range->name)).value_or(-1));
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
    CountOutsideSteps(ops, windows, summary);
  }

  std::vector<int64_t> lengths;
  for (size_t s = 0; s < windows.size(); ++s) {
    auto [start_ns, end_ns] = windows[s];
    size_t first = FirstReaching(running_end, start_ns);
    summary.steps.push_back(FiguresOf(trace, ops, first, start_ns, end_ns));
    lengths.push_back(end_ns - start_ns);
    // In start order; collectives starting at the same time by name, then stream, so that the
    // order (part of an instance's identity across ranks) never depends on the file's order.
    std::vector<std::tuple<int64_t, std::string_view, uint32_t>> collectives;
    for (size_t i = first; i < ops.size(); ++i) {
      const DeviceOp op = ops[i];
      if (op.start_ns >= end_ns) break;
      if (op.engine != Engine::kComm || op.start_ns < start_ns) continue;
      collectives.emplace_back(op.start_ns, trace.strings.Get(trace.signatures[op.signature].name),
                               trace.streams[op.stream].stream_id);
    }
    std::sort(collectives.begin(), collectives.end());
    for (size_t order = 0; order < collectives.size(); ++order) {
      const auto& [op_start_ns, name, stream_id] = collectives[order];
      summary.AddCollective(s, order, name, op_start_ns - start_ns);
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
