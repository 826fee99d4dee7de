#include "gpuroof/analyses/findings/findings.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/device_activity.h"
#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/range_selection.h"

namespace gpuroof {

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

// The steps: the instances of --iteration-range, else ProfilerStep#N; CPU-side instances when a
// range has both a CPU and a GPU-projected form (as `gpuroof ranks`).
FindingSteps ResolveSteps(const Trace& trace, const std::string& iteration_range) {
  std::vector<const NvtxRange*> ranges;
  FindingSteps steps;
  if (!iteration_range.empty()) {
    RangeSelection selection = SelectRanges(trace, iteration_range, "--iteration-range");
    steps.label = selection.Describe();  // before the ranges are moved out of it
    ranges = std::move(selection.ranges);
  } else {
    ranges = FindNvtxRanges(trace, "ProfilerStep#*");
  }
  const bool any_cpu =
      std::any_of(ranges.begin(), ranges.end(), [](const NvtxRange* r) { return !r->on_gpu; });
  for (const NvtxRange* range : ranges) {
    if (any_cpu && range->on_gpu) continue;
    if (range->end_ns > range->start_ns)
      steps.intervals.emplace_back(range->start_ns, range->end_ns);
  }
  std::sort(steps.intervals.begin(), steps.intervals.end());
  if (iteration_range.empty()) {
    const size_t n = steps.intervals.size();
    steps.label = fmt::format("'ProfilerStep#*' ({} instance{})", n, n == 1 ? "" : "s");
  }
  if (steps.intervals.empty()) steps.label.clear();
  return steps;
}

}  // namespace

FindingsResult ComputeFindings(const Trace& trace, const FindingsOptions& options) {
  // A trace without GPU activity is refused as every command refuses it (the engine load
  // throws): a gate (--fail-on) must not pass on a trace whose records were all lost.
  const std::vector<DeviceActivity> devices = BuildDeviceActivity(
      trace, options.window, options.engine_load, options.thresholds.gap_min_ns);
  const FindingSteps steps = ResolveSteps(trace, options.iteration_range);
  const LaunchCalls launch_calls(trace);
  FindingsResult result;
  FindingContext context{trace, devices, options.thresholds, steps, launch_calls, &result.notes};
  result.steps_label = steps.label;
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
  for (Finding& finding : all) {
    int64_t window_ns = 0;
    for (const DeviceActivity& device : devices) {
      if (device.device_id != finding.device_id) continue;
      window_ns = device.window.length_ns();
      finding.per_step = SummarizeStepCosts(steps, finding.step_costs, finding.cost_ns,
                                            device.window.start_ns, device.window.end_ns);
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
