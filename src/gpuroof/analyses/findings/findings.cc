#include "gpuroof/analyses/findings/findings.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/device_steps.h"
#include "gpuroof/analyses/findings/device_activity.h"
#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/analyses/window.h"

namespace gpuroof {

int64_t FindingContext::LaunchedAt(const ActivityBlock& block, size_t row) const {
  const ApiCall* call = launch_calls.Of(block, row);
  return call != nullptr ? call->start_ns : block.start_ns[row];
}

void FindingContext::ChargeLaunched(const FindingSteps& of, StepCosts& costs,
                                    const ActivityBlock& block, size_t row, int64_t cost_ns) const {
  if (of.intervals.empty()) return;
  const ApiCall* call = launch_calls.Of(block, row);
  if (call == nullptr) {
    ++costs.no_call_ops;
    costs.no_call_ns += cost_ns;
  }
  ChargeStep(of, costs, call != nullptr ? call->start_ns : block.start_ns[row], cost_ns);
}

const FindingSteps& FindingContext::StepsOf(int32_t device_id) const {
  static const FindingSteps none;
  for (size_t d = 0; d < devices.size() && d < steps.size(); ++d) {
    if (devices[d].device_id == device_id) return steps[d];
  }
  return none;
}

const std::vector<std::string>& FindingRuleIds() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> out;
    for (const FindingRule& rule : FindingRules())
      out.emplace_back(rule.id);
    return out;
  }();
  return ids;
}

namespace {

// The step ranges: the instances of --iteration-range, else ProfilerStep#N; CPU-side instances
// when a range has both a CPU and a GPU-projected form (as `gpuroof ranks`). `label` gets their
// description, empty when there are none.
std::vector<const NvtxRange*> ResolveStepRanges(const Trace& trace,
                                                const std::string& iteration_range,
                                                std::string* label) {
  std::vector<const NvtxRange*> ranges;
  if (!iteration_range.empty()) {
    RangeSelection selection = SelectRanges(trace, iteration_range, "--iteration-range");
    *label = selection.Describe();  // before the ranges are moved out of it
    ranges = std::move(selection.ranges);
  } else {
    ranges = FindNvtxRanges(trace, "ProfilerStep#*");
    const size_t n = ranges.size();
    *label = fmt::format("'ProfilerStep#*' ({} instance{})", n, n == 1 ? "" : "s");
  }
  const bool any_cpu =
      std::any_of(ranges.begin(), ranges.end(), [](const NvtxRange* r) { return !r->on_gpu; });
  if (any_cpu) std::erase_if(ranges, [](const NvtxRange* r) { return r->on_gpu; });
  if (ranges.empty()) label->clear();
  return ranges;
}

// The steps of one device: those of the process driving it (DeviceProcessSteps, as `ranks`), in
// start order, with their own numbers where they are a numbered family. `note` says what was
// left out.
// The process whose calls are the device's (sync-call, gap causes): the process of the device's
// steps when they are CPU ranges of a process that launched onto it (DeviceProcessSteps' choice,
// so calls and steps are one process's), else the process that launched most of its ops, the
// lowest process key on a tie (docs/findings.md, "Calls").
uint64_t DeviceCallsProcess(const DeviceActivity& device,
                            const std::vector<const NvtxRange*>& own_steps) {
  for (const NvtxRange* range : own_steps) {
    if (!range->on_gpu && device.ops_of_process.count(range->process_id) > 0)
      return range->process_id;
  }
  uint64_t chosen = 0;
  int64_t most = -1;
  for (const auto& [process, ops] : device.ops_of_process) {
    if (ops > most) {
      most = ops;
      chosen = process;
    }
  }
  return chosen;
}

FindingSteps StepsOfDevice(const Trace& trace, DeviceActivity& device,
                           const std::vector<const NvtxRange*>& ranges, const std::string& label,
                           std::string* note) {
  FindingSteps steps;
  device.process_id = DeviceCallsProcess(device, {});
  if (ranges.empty()) return steps;
  std::vector<const NvtxRange*> own = DeviceProcessSteps(trace, device.device_id, ranges, note);
  device.process_id = DeviceCallsProcess(device, own);
  std::erase_if(own, [](const NvtxRange* r) { return r->end_ns <= r->start_ns; });
  std::stable_sort(own.begin(), own.end(), [](const NvtxRange* a, const NvtxRange* b) {
    return std::tie(a->start_ns, a->end_ns) < std::tie(b->start_ns, b->end_ns);
  });
  steps.label = note->empty() ? label : label + "; " + *note;
  for (const NvtxRange* range : own) {
    steps.intervals.emplace_back(range->start_ns, range->end_ns);
    const std::string_view name = trace.strings.Get(range->name);
    const std::optional<int64_t> number = RangeNumber(name);
    const std::string_view family = NumberedFamily(name);
    if (steps.numbers.size() + 1 == steps.intervals.size() && number &&
        (steps.numbers.empty() || family == steps.family)) {
      if (steps.numbers.empty()) steps.family = std::string(family);
      steps.numbers.push_back(*number);
    }
  }
  // Names are the steps' only when every step has one of its own.
  std::vector<int64_t> sorted = steps.numbers;
  std::sort(sorted.begin(), sorted.end());
  if (steps.numbers.size() != steps.intervals.size() ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    steps.numbers.clear();
    steps.family.clear();
  }
  if (steps.intervals.empty()) steps.label.clear();
  return steps;
}

// Notes the synchronising calls that no device's calls include: those of a process that
// launched onto a device but is no device's process (DeviceCallsProcess), with the counts.
void NoteCallsLeftOut(const Trace& trace, const std::vector<DeviceActivity>& devices,
                      std::vector<std::string>& notes) {
  std::set<uint64_t> used;
  for (const DeviceActivity& device : devices)
    used.insert(device.process_id);
  std::map<uint64_t, int64_t> sync_calls;
  for (const ApiCall& call : trace.api_calls) {
    if (used.count(call.process_id) == 0 && IsSynchronizingCall(trace.strings.Get(call.name)))
      ++sync_calls[call.process_id];
  }
  for (const DeviceActivity& device : devices) {
    int64_t total = 0;
    for (const auto& [process, ops] : device.ops_of_process)
      total += ops;
    for (const auto& [process, ops] : device.ops_of_process) {
      auto it = sync_calls.find(process);
      if (process == device.process_id || it == sync_calls.end()) continue;
      notes.push_back(fmt::format(
          "device {}: {} synchronising call{} of process {} (which launched {} of its {} ops) "
          "left out: the device's calls are process {}'s (its steps' process, else the one that "
          "launched most of its ops)",
          device.device_id, it->second, it->second == 1 ? "" : "s", process, ops, total,
          device.process_id));
    }
  }
}

// Per device, the earliest launch (FindingContext::LaunchedAt) of an op in its window.
std::map<int32_t, int64_t> FirstLaunches(const FindingContext& context) {
  std::map<int32_t, int64_t> first;
  for (const ActivityBlock& block : context.trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const int32_t id = context.trace.streams[block.stream[i]].device_id;
      for (const DeviceActivity& device : context.devices) {
        if (device.device_id != id) continue;
        if (!OpCountsInWindow(context.trace, block, i, device.window)) break;
        const int64_t at = context.LaunchedAt(block, i);
        auto [it, inserted] = first.try_emplace(id, at);
        if (!inserted) it->second = std::min(it->second, at);
        break;
      }
    }
  }
  return first;
}

}  // namespace

FindingsResult ComputeFindings(const Trace& trace, const FindingsOptions& options) {
  // A trace without GPU activity is refused as every command refuses it (the engine load
  // throws): a gate (--fail-on) must not pass on a trace whose records were all lost.
  FindingsResult result;
  std::vector<DeviceActivity> devices = BuildDeviceActivity(
      trace, options.window, options.engine_load, options.thresholds.gap_min_ns, &result.windows);
  const std::vector<const NvtxRange*> step_ranges =
      ResolveStepRanges(trace, options.iteration_range, &result.steps_label);
  // In a capture of several processes each device's steps are its own process's (as `ranks`).
  std::vector<FindingSteps> steps;
  for (DeviceActivity& device : devices) {
    std::string left_out;
    steps.push_back(StepsOfDevice(trace, device, step_ranges, result.steps_label, &left_out));
    if (!left_out.empty()) {
      result.notes.push_back(
          fmt::format("device {}: steps {}: {}", device.device_id, result.steps_label, left_out));
    }
  }
  NoteCallsLeftOut(trace, devices, result.notes);
  const LaunchCalls launch_calls(trace);
  FindingContext context{trace, devices, options.thresholds, steps, launch_calls, &result.notes};
  if (!devices.empty() && !devices.front().devices_left_out_note.empty()) {
    result.notes.push_back(devices.front().devices_left_out_note);
  }
  if (trace.api_calls.empty()) {
    result.notes.push_back(
        "the trace has no CUDA API calls: sync-call, pageable-copy, host-bound and launch-bound "
        "cannot fire, and gap causes cannot be told");
  }
  std::vector<Finding> all;
  for (auto rule : {FindSyncCalls, FindPageableAsyncCopies, FindGapCauses, FindLaunchBound,
                    FindExposedComm, FindSerialisedCopies, FindLowOccupancy}) {
    for (Finding& finding : rule(context))
      all.push_back(std::move(finding));
  }
  // The steps a cost is divided by are those a charge can go to: from the first launch of the
  // window's work (GPU work is charged by launch) to the window's end (calls and gaps by time).
  const std::map<int32_t, int64_t> first_launch = FirstLaunches(context);
  for (Finding& finding : all) {
    int64_t window_ns = 0;
    for (const DeviceActivity& device : devices) {
      if (device.device_id != finding.device_id) continue;
      window_ns = device.window.length_ns();
      int64_t from = device.window.start_ns;
      if (auto it = first_launch.find(device.device_id); it != first_launch.end())
        from = std::min(from, it->second);
      finding.per_step = SummarizeStepCosts(context.StepsOf(device.device_id), finding.step_costs,
                                            finding.cost_ns, from, device.window.end_ns);
    }
    if (finding.per_step && finding.step_costs.no_call_ops > 0) {
      const int64_t n = finding.step_costs.no_call_ops;
      result.notes.push_back(fmt::format(
          "{} on device {}: {} op{} ({} of its cost) had no launching call: charged to the step "
          "{} GPU start fell in, not to the step that launched {}",
          finding.id, finding.device_id, n, n == 1 ? "" : "s",
          FormatDurationNs(finding.step_costs.no_call_ns), n == 1 ? "its" : "their",
          n == 1 ? "it" : "them"));
    }
    finding.step_costs = {};  // summarised
    const double min_cost =
        options.thresholds.min_cost_pct / 100.0 * static_cast<double>(window_ns);
    if (finding.cost_ns <= 0 || static_cast<double>(finding.cost_ns) < min_cost) {
      ++result.below_min_cost;
      continue;
    }
    result.findings.push_back(std::move(finding));
  }
  std::sort(result.findings.begin(), result.findings.end(), [](const Finding& a, const Finding& b) {
    return std::tie(b.cost_ns, a.id, a.device_id) < std::tie(a.cost_ns, b.id, b.device_id);
  });
  return result;
}

}  // namespace gpuroof
