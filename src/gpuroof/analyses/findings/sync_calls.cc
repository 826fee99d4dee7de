// sync-call: synchronising CUDA calls and the GPU idle time after each (docs/findings.md).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/window.h"

namespace gpuroof {

bool IsSynchronizingCall(std::string_view name) {
  for (std::string_view sync :
       {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cudaThreadSynchronize", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"}) {
    if (name == sync) return true;
  }
  if (name.find("Async") != std::string_view::npos) return false;
  for (std::string_view prefix : {"cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset"}) {
    if (name.substr(0, prefix.size()) == prefix) return true;
  }
  return false;
}

std::string CountedNames(const std::vector<std::pair<std::string, int64_t>>& counts) {
  std::vector<std::pair<std::string, int64_t>> sorted = counts;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (const auto& [name, count] : sorted) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} x{}", name, count);
  }
  return text;
}

std::vector<Finding> FindSyncCalls(const FindingContext& context) {
  const Trace& trace = context.trace;
  // Which name ids synchronise, decided once per name.
  std::vector<int8_t> sync_name(trace.strings.size(), -1);
  auto is_sync = [&](uint32_t name) {
    if (sync_name[name] < 0) sync_name[name] = IsSynchronizingCall(trace.strings.Get(name)) ? 1 : 0;
    return sync_name[name] == 1;
  };
  std::vector<Finding> out;
  for (const DeviceActivity& device : context.devices) {
    Finding finding;
    finding.id = "sync-call";
    finding.device_id = device.device_id;
    std::map<std::string, int64_t> by_name;
    int64_t idle_after = 0;  // calls followed by idle time
    for (const ApiCall& call : trace.api_calls) {
      if (call.process_id != device.process_id || !is_sync(call.name)) continue;
      if (!OpCountsInWindow(call.start_ns, call.end_ns, device.window)) continue;
      ++finding.count;
      ++by_name[std::string(trace.strings.Get(call.name))];
      int64_t idle_start = 0;
      int64_t idle_end = 0;
      if (!device.IdleAt(call.end_ns, &idle_start, &idle_end)) continue;
      // Idle time before the call was made is not the call's doing.
      const int64_t cost = idle_end - std::max(idle_start, call.start_ns);
      if (cost <= 0) continue;
      ++idle_after;
      finding.cost_ns += cost;
      AddExample(finding.examples, {call.start_ns, call.end_ns, cost,
                                    fmt::format("{}, then the GPU idle until the next op",
                                                trace.strings.Get(call.name))});
    }
    if (finding.count == 0) continue;
    KeepCostliestExamples(finding.examples);
    finding.title = "Synchronising CUDA calls leave the GPU idle";
    finding.evidence = fmt::format(
        "{} synchronising call(s) in the window ({}); {} of them followed by GPU idle "
        "time, {} ns in all",
        finding.count, CountedNames({by_name.begin(), by_name.end()}), idle_after, finding.cost_ns);
    finding.advice =
        "Remove synchronisation from the steady-state loop: record events and wait on them only "
        "when the result is needed, use cudaMemcpyAsync on a stream, and keep values on the GPU "
        "(in PyTorch: avoid .item(), .cpu() and printing tensors inside the step).";
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace gpuroof
