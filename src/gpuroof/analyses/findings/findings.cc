#include "gpuroof/analyses/findings/findings.h"

#include <algorithm>
#include <tuple>

#include "gpuroof/analyses/findings/device_activity.h"
#include "gpuroof/analyses/findings/rules.h"

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

FindingsResult ComputeFindings(const Trace& trace, const FindingsOptions& options) {
  if (trace.activity_count() == 0) {
    // Nothing ran on a GPU: nothing to fix there, which is an answer, not an error.
    FindingsResult empty;
    empty.notes.push_back("the trace has no GPU activity: no rule can fire");
    return empty;
  }
  const std::vector<DeviceActivity> devices =
      BuildDeviceActivity(trace, options.window, options.thresholds.gap_min_ns);
  FindingContext context{trace, devices, options.thresholds};
  FindingsResult result;
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
      if (device.device_id == finding.device_id) window_ns = device.window.length_ns();
    }
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
