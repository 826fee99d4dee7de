// gpu-gap and host-bound: idle gaps of a device with the cause that can be told
// (docs/findings.md).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/window.h"

namespace gpuroof {

namespace {

// The synchronising calls of one process by start, with the index of the latest-ending call
// among the first i + 1: a gap's cause is found with one binary search.
struct SyncCalls {
  std::vector<const ApiCall*> by_start;
  std::vector<size_t> latest_end;
};

SyncCalls SyncCallsOf(const Trace& trace, uint64_t process_id) {
  SyncCalls calls;
  for (const ApiCall& call : trace.api_calls) {
    if (call.process_id == process_id && IsSynchronizingCall(trace.strings.Get(call.name))) {
      calls.by_start.push_back(&call);
    }
  }
  std::sort(calls.by_start.begin(), calls.by_start.end(),
            [](const ApiCall* a, const ApiCall* b) { return a->start_ns < b->start_ns; });
  for (size_t i = 0; i < calls.by_start.size(); ++i) {
    const bool later =
        i == 0 || calls.by_start[i]->end_ns > calls.by_start[calls.latest_end.back()]->end_ns;
    calls.latest_end.push_back(later ? i : calls.latest_end.back());
  }
  return calls;
}

// A synchronising call running during `gap` (started before it ended, ended after it began): of
// the calls started before the gap ended, the one that ran on the longest, when it reaches into
// the gap. The host was blocked in it while the GPU was idle.
const ApiCall* SyncCallIn(const SyncCalls& calls, const IdleGap& gap) {
  auto it = std::lower_bound(calls.by_start.begin(), calls.by_start.end(), gap.end_ns,
                             [](const ApiCall* call, int64_t t) { return call->start_ns < t; });
  if (it == calls.by_start.begin()) return nullptr;
  const size_t started = static_cast<size_t>(it - calls.by_start.begin());
  const ApiCall* longest = calls.by_start[calls.latest_end[started - 1]];
  return longest->end_ns > gap.start_ns ? longest : nullptr;
}

}  // namespace

std::vector<Finding> FindGapCauses(const FindingContext& context) {
  const Trace& trace = context.trace;
  const bool has_calls = !trace.api_calls.empty();
  std::vector<Finding> out;
  for (const DeviceActivity& device : context.devices) {
    if (device.gaps.empty()) continue;
    const SyncCalls sync_calls = SyncCallsOf(trace, device.process_id);
    Finding host;
    ApplyRule(host, "host-bound");
    host.device_id = device.device_id;
    Finding gaps;
    ApplyRule(gaps, "gpu-gap");
    gaps.device_id = device.device_id;
    std::map<std::string, int64_t> causes;  // gpu-gap: count per cause
    for (const IdleGap& gap : device.gaps) {
      const int64_t length = gap.duration_ns();
      if (const ApiCall* sync = SyncCallIn(sync_calls, gap)) {
        const std::string cause =
            fmt::format("synchronising call {}", trace.strings.Get(sync->name));
        ++causes[cause];
        ++gaps.count;
        gaps.cost_ns += length;
        ChargeStep(context.StepsOf(device.device_id), gaps.step_costs, gap.start_ns, length);
        AddExample(gaps.examples, {gap.start_ns, gap.end_ns, length, cause});
        continue;
      }
      // Of the ops starting when the gap ends, the one launched first: the GPU could have
      // started as soon as that launch was made.
      const ApiCall* launch = context.launch_calls.Of(*gap.next_block, gap.next_row);
      for (const auto& [block, row] : gap.also_next) {
        const ApiCall* tied = context.launch_calls.Of(*block, row);
        if (tied != nullptr && (launch == nullptr || tied->start_ns < launch->start_ns))
          launch = tied;
      }
      if (launch != nullptr && launch->start_ns > gap.start_ns) {
        ++host.count;
        host.cost_ns += length;
        ChargeStep(context.StepsOf(device.device_id), host.step_costs, gap.start_ns, length);
        AddExample(host.examples, {gap.start_ns, gap.end_ns, length,
                                   fmt::format("next op launched by {} {} after the GPU went idle",
                                               trace.strings.Get(launch->name),
                                               FormatDurationNs(launch->start_ns - gap.start_ns))});
        continue;
      }
      const std::string cause =
          has_calls ? "unexplained" : "unexplained (the trace has no API calls)";
      ++causes[cause];
      ++gaps.count;
      gaps.cost_ns += length;
      ChargeStep(context.StepsOf(device.device_id), gaps.step_costs, gap.start_ns, length);
      AddExample(gaps.examples, {gap.start_ns, gap.end_ns, length, cause});
    }
    const std::string threshold = FormatDurationNs(context.thresholds.gap_min_ns);
    if (host.count > 0) {
      KeepCostliestExamples(host.examples);
      host.evidence = fmt::format(
          "{} idle gap(s) longer than {} end with an op whose launching call started after the "
          "GPU went idle: {} idle in all",
          host.count, threshold, FormatDurationNs(host.cost_ns));
      out.push_back(std::move(host));
    }
    if (gaps.count > 0) {
      KeepCostliestExamples(gaps.examples);
      gaps.evidence = fmt::format("{} idle gap(s) longer than {}: {} idle in all; causes: {}",
                                  gaps.count, threshold, FormatDurationNs(gaps.cost_ns),
                                  CountedNames({causes.begin(), causes.end()}));
      out.push_back(std::move(gaps));
    }
  }
  return out;
}

}  // namespace gpuroof
