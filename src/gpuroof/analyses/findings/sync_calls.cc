// sync-call: synchronising CUDA calls and the GPU idle time after each (docs/findings.md).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/scalar_read.h"

namespace gpuroof {

bool IsSynchronizingCall(std::string_view name) {
  // A 5-digit API version stays in nsys's names ("cudaStreamSynchronize_v12000"): not part of
  // the function.
  if (const size_t at = name.rfind("_v");
      at != std::string_view::npos && at + 7 == name.size() &&
      name.find_first_not_of("0123456789", at + 2) == std::string_view::npos) {
    name = name.substr(0, at);
  }
  // The per-thread default stream builds' entry points (nvcc --default-stream per-thread) carry
  // a suffix: cudaStreamSynchronize_ptsz, cudaMemcpy_ptds.
  for (std::string_view suffix : {"_ptsz", "_ptds"}) {
    if (name.ends_with(suffix)) name.remove_suffix(suffix.size());
  }
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
  // PyTorch .item() ops (Kineto), by start: a synchronising call inside one on the same thread
  // is that .item()'s.
  uint32_t scalar_read = 0;
  std::vector<const ApiCall*> scalar_reads;
  if (trace.strings.Find(kScalarReadOpName, &scalar_read)) {
    for (const ApiCall& call : trace.api_calls) {
      if (call.name == scalar_read) scalar_reads.push_back(&call);
    }
    std::sort(scalar_reads.begin(), scalar_reads.end(),
              [](const ApiCall* a, const ApiCall* b) { return a->start_ns < b->start_ns; });
  }
  auto in_scalar_read = [&](const ApiCall& call) {
    auto it = std::upper_bound(scalar_reads.begin(), scalar_reads.end(), call.start_ns,
                               [](int64_t t, const ApiCall* op) { return t < op->start_ns; });
    // Ops on one thread do not overlap: the last one of the call's thread starting at or before
    // it is the only candidate; other threads' ops in between are stepped over (a few).
    for (int steps = 0; it != scalar_reads.begin() && steps < 8; ++steps) {
      const ApiCall* op = *--it;
      if (op->thread_id == call.thread_id) return op->end_ns >= call.end_ns;
    }
    return false;
  };
  std::vector<Finding> out;
  for (const DeviceActivity& device : context.devices) {
    Finding finding;
    ApplyRule(finding, "sync-call");
    finding.device_id = device.device_id;
    std::map<std::string, int64_t> by_name;
    int64_t idle_after = 0;  // calls followed by idle time
    // Calls that return into one idle interval share its time: each idle interval (keyed by its
    // end) is charged from the earliest point any call claimed, once.
    std::map<int64_t, int64_t> charged_from;
    for (const ApiCall& call : trace.api_calls) {
      if (call.process_id != device.process_id || !is_sync(call.name)) continue;
      if (!OpCountsInWindow(call.start_ns, call.end_ns, device.window)) continue;
      ++finding.count;
      std::string name(trace.strings.Get(call.name));
      if (!scalar_reads.empty() && in_scalar_read(call)) name += " in .item()";
      ++by_name[name];
      int64_t idle_start = 0;
      int64_t idle_end = 0;
      if (!device.IdleAt(call.end_ns, &idle_start, &idle_end)) continue;
      // Idle time before the call was made is not the call's doing.
      const int64_t from = std::max(idle_start, call.start_ns);
      const int64_t cost = idle_end - from;
      if (cost <= 0) continue;
      ++idle_after;
      auto [claimed, first] = charged_from.try_emplace(idle_end, from);
      const int64_t unclaimed = first ? cost : std::max<int64_t>(0, claimed->second - from);
      claimed->second = std::min(claimed->second, from);
      if (unclaimed <= 0) continue;  // all of its idle time was another call's already
      finding.cost_ns += unclaimed;
      ChargeStep(context.StepsOf(device.device_id), finding.step_costs, call.start_ns, unclaimed);
      AddExample(
          finding.examples,
          {call.start_ns, call.end_ns, unclaimed,
           unclaimed < cost ? fmt::format("{}, then the GPU idle until the next op ({} of it "
                                          "charged to another call that returned into it)",
                                          name, FormatDurationNs(cost - unclaimed))
                            : fmt::format("{}, then the GPU idle until the next op", name)});
    }
    if (finding.count == 0) continue;
    KeepCostliestExamples(finding.examples);
    finding.evidence = fmt::format(
        "{} synchronising call(s) in the window ({}); {} of them followed by GPU idle "
        "time, {} in all",
        finding.count, CountedNames({by_name.begin(), by_name.end()}), idle_after,
        FormatDurationNs(finding.cost_ns));
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace gpuroof
