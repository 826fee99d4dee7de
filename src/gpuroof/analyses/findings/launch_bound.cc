// launch-bound: kernels that run for less time than their launching call takes
// (docs/findings.md).
#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/window.h"

namespace gpuroof {

namespace {

struct DeviceCounts {
  int64_t launches = 0;  // kernels in the window joined to their launching call
  int64_t short_kernels = 0;
  int64_t cost_ns = 0;
  // Short launches per kernel short name (KernelShortName), keyed by the name id of the first
  // kernel seen with it: on nsys each short name has one name id, so the order is that of the ids.
  std::map<uint32_t, int64_t> short_by_name;
  std::vector<FindingExample> examples;
  StepCosts step_costs;
};

}  // namespace

std::vector<Finding> FindLaunchBound(const FindingContext& context) {
  const Trace& trace = context.trace;
  const FindingThresholds& thresholds = context.thresholds;
  std::map<int32_t, DeviceCounts> counts;
  // Per signature: the name id standing for its short name; per such id, the short name.
  std::vector<int64_t> short_key(trace.signatures.size(), -1);
  std::unordered_map<std::string, uint32_t> key_of_short;
  std::unordered_map<uint32_t, std::string> short_names;
  auto short_name_key = [&](uint32_t s) {
    if (short_key[s] < 0) {
      const OpSignature& signature = trace.signatures[s];
      std::string short_name = KernelShortName(trace, signature);
      auto [it, added] = key_of_short.try_emplace(short_name, signature.name);
      if (added) short_names.emplace(signature.name, std::move(short_name));
      short_key[s] = it->second;
    }
    return static_cast<uint32_t>(short_key[s]);
  };
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (!IsKernelEngine(block.engine[i])) continue;
      const int32_t device_id = trace.streams[block.stream[i]].device_id;
      const DeviceActivity* device = nullptr;
      for (const DeviceActivity& d : context.devices) {
        if (d.device_id == device_id) device = &d;
      }
      if (device == nullptr || !OpCountsInWindow(trace, block, i, device->window)) continue;
      const ApiCall* call = context.launch_calls.Of(block, i);
      // A call that launched several ops is a CUDA graph launch: its overhead is no one node's.
      if (call == nullptr || context.launch_calls.OpsLaunchedBy(*call) > 1) continue;
      DeviceCounts& c = counts[device_id];
      ++c.launches;
      const int64_t duration = block.end_ns[i] - block.start_ns[i];
      const int64_t overhead = call->end_ns - call->start_ns;
      if (duration >= overhead) continue;
      ++c.short_kernels;
      c.cost_ns += overhead - duration;
      ChargeStep(context.StepsOf(device_id), c.step_costs, call->start_ns, overhead - duration);
      const uint32_t name = short_name_key(block.signature[i]);
      ++c.short_by_name[name];
      AddExample(c.examples, {block.start_ns[i], block.end_ns[i], overhead - duration,
                              fmt::format("{} ran {}, its launch took {}", short_names[name],
                                          FormatDurationNs(duration), FormatDurationNs(overhead))});
    }
  }
  std::vector<Finding> out;
  for (auto& [device_id, c] : counts) {
    if (c.short_kernels < thresholds.launch_bound_min_kernels) continue;
    const double share =
        100.0 * static_cast<double>(c.short_kernels) / static_cast<double>(c.launches);
    if (share < thresholds.launch_bound_share_pct) continue;
    Finding finding = NewFinding("launch-bound", device_id, c.short_kernels, c.cost_ns);
    finding.examples = std::move(c.examples);
    finding.step_costs = std::move(c.step_costs);
    KeepCostliestExamples(finding.examples);
    std::vector<std::pair<std::string, int64_t>> names;
    for (const auto& [name, n] : c.short_by_name)
      names.emplace_back(short_names[name], n);
    if (names.size() > 5) {
      std::stable_sort(names.begin(), names.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      names.resize(5);
    }
    finding.evidence = fmt::format(
        "{} of {} kernel launches ({:.1f} %) ran for less time than their launching call took; "
        "launch time beyond kernel time {} in all; most: {}",
        c.short_kernels, c.launches, share, FormatDurationNs(c.cost_ns), CountedNames(names));
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace gpuroof
