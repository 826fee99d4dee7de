#include "gpuroof/analyses/launch_latency.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/launch_calls.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {

namespace {

// The launches of one key while they are collected.
struct KeyLaunches {
  Engine engine = Engine::kKernel;
  std::string name;
  std::vector<int64_t> overhead_ns, queue_ns, latency_ns, kernel_ns;
  int64_t queued = 0;
  int64_t shorter_than_overhead = 0;
};

LaunchKeyRow Summarize(std::string key, KeyLaunches& launches) {
  LaunchKeyRow row;
  row.engine = launches.engine;
  row.key = std::move(key);
  row.name = std::move(launches.name);
  row.overhead = SummarizeDurations(launches.overhead_ns);
  row.queue = SummarizeDurations(launches.queue_ns);
  row.latency = SummarizeDurations(launches.latency_ns);
  row.kernel = SummarizeDurations(launches.kernel_ns);
  row.queued = launches.queued;
  row.shorter_than_overhead = launches.shorter_than_overhead;
  return row;
}

// The devices with ops, each with the `all` window (its first op start to its last op end):
// with --window all every kernel counts, so no length is required (a device whose one op took
// no time is fine).
std::map<int32_t, DeviceLaunches> DevicesOverWholeTrace(const Trace& trace) {
  std::map<int32_t, DeviceLaunches> devices;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const int32_t id = trace.streams[block.stream[i]].device_id;
      auto [it, inserted] = devices.try_emplace(id);
      Window& window = it->second.window;
      if (inserted) {
        it->second.device_id = id;
        it->second.device_name = std::string(trace.DeviceName(id));
        window.policy = window.text = "all";
        window.start_ns = block.start_ns[i];
        window.end_ns = block.end_ns[i];
      }
      window.start_ns = std::min(window.start_ns, block.start_ns[i]);
      window.end_ns = std::max(window.end_ns, block.end_ns[i]);
    }
  }
  return devices;
}

// The devices with their windows under `spec` (ComputeEngineLoad()'s), the window note without
// its count of the ops left out: ComputeLaunchLatency counts the kernels instead.
std::map<int32_t, DeviceLaunches> DevicesInWindow(const Trace& trace, const WindowSpec& spec) {
  if (spec.kind == WindowSpec::Kind::kAll) return DevicesOverWholeTrace(trace);
  EngineLoadOptions load_options;
  load_options.window = spec;
  std::map<int32_t, DeviceLaunches> devices;
  for (const DeviceLoad& load : ComputeEngineLoad(trace, load_options)) {
    DeviceLaunches& device = devices[load.device_id];
    device.device_id = load.device_id;
    device.device_name = load.device_name;
    device.window = load.window;
    std::string& note = device.window.note;
    if (!load.outside_note.empty() && note.size() >= load.outside_note.size()) {
      note.resize(note.size() - load.outside_note.size());
      if (note.size() >= 2 && note.compare(note.size() - 2, 2, "; ") == 0)
        note.resize(note.size() - 2);
    }
  }
  return devices;
}

// The window note's count of the kernels the window left out (docs/metrics.md, "Launches").
void NoteKernelsOutside(DeviceLaunches& device) {
  if (device.outside_kernels == 0) return;
  const Window& window = device.window;
  std::string outside =
      window.work != nullptr
          ? fmt::format(
                "{} kernel(s) are not the work of range {}: left out; --window all "
                "includes them",
                device.outside_kernels, window.resolved)
          : fmt::format("{} kernel(s) lie outside the window; --window all includes them",
                        device.outside_kernels);
  device.window.note = window.note.empty() ? outside : window.note + "; " + outside;
}

}  // namespace

std::vector<DeviceLaunches> ComputeLaunchLatency(const Trace& trace,
                                                 const LaunchLatencyOptions& options) {
  RequireKernels(trace);
  if (trace.api_calls.empty()) {
    throw InputError(trace.source,
                     "has no CUDA API call that launched one of its kernels (nsys: "
                     "CUPTI_ACTIVITY_KIND_RUNTIME; Kineto: cuda_runtime/cuda_driver events with "
                     "the kernels' correlation ids)");
  }
  std::map<int32_t, DeviceLaunches> devices = DevicesInWindow(trace, options.window);
  std::map<std::pair<int32_t, std::string>, KeyLaunches> keys;
  std::vector<std::string> key_of_signature(trace.signatures.size());
  const LaunchCalls launch_calls(trace);
  std::map<int32_t, std::set<const ApiCall*>> shared_calls;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const bool graph = block.engine[i] == Engine::kGraph;
      if (!graph && !IsKernelEngine(block.engine[i])) continue;
      auto device_it = devices.find(trace.streams[block.stream[i]].device_id);
      if (device_it == devices.end()) continue;
      DeviceLaunches& device = device_it->second;
      if (!OpCountsInWindow(trace, block, i, device.window)) {
        device.outside_kernels += graph ? 0 : 1;
        continue;
      }
      if (graph) {
        ++device.graph_launches;
        device.graph_sum_ns =
            SaturatingAdd(device.graph_sum_ns, block.end_ns[i] - block.start_ns[i]);
        continue;
      }
      const ApiCall* call = launch_calls.Of(block, i);
      if (call == nullptr) {
        ++device.unmatched;
        continue;
      }
      if (launch_calls.OpsLaunchedBy(*call) > 1) {
        ++device.shared_call_kernels;
        shared_calls[device.device_id].insert(call);
        continue;
      }
      KernelLaunch launch;
      launch.api_start_ns = call->start_ns;
      launch.api_end_ns = call->end_ns;
      launch.kernel_start_ns = block.start_ns[i];
      launch.kernel_end_ns = block.end_ns[i];
      launch.api_name = call->name;
      launch.signature = block.signature[i];
      launch.thread_id = call->thread_id;
      ++device.launches;
      device.early_starts += launch.latency_ns() < 0 ? 1 : 0;
      if (options.keep_records) device.records.push_back(launch);
      std::string& key = key_of_signature[launch.signature];
      const OpSignature& signature = trace.signatures[launch.signature];
      if (key.empty()) key = KernelKeyText(trace, signature, options.key);
      KeyLaunches& row = keys[{device.device_id, key}];
      row.engine = signature.engine;
      if (row.name.empty()) row.name = KernelShortName(trace, signature);
      row.overhead_ns.push_back(launch.overhead_ns());
      row.queue_ns.push_back(launch.queue_ns());
      row.latency_ns.push_back(launch.latency_ns());
      row.kernel_ns.push_back(launch.kernel_end_ns - launch.kernel_start_ns);
      row.queued += launch.queued() ? 1 : 0;
      row.shorter_than_overhead +=
          launch.kernel_end_ns - launch.kernel_start_ns < launch.overhead_ns() ? 1 : 0;
    }
  }
  for (const auto& [id, calls] : shared_calls) {
    DeviceLaunches& device = devices[id];
    device.shared_calls = static_cast<int64_t>(calls.size());
    std::set<std::string_view> names;
    for (const ApiCall* call : calls) {
      const std::string_view name = trace.strings.Get(call->name);
      if (name.find("Graph") != std::string_view::npos) continue;
      ++device.shared_non_graph_calls;
      names.insert(name.empty() ? "(unnamed)" : name);
    }
    size_t shown = 0;
    for (std::string_view name : names) {
      if (shown++ == 3) {
        device.shared_non_graph_names += ", ...";
        break;
      }
      device.shared_non_graph_names += (shown == 1 ? "" : ", ") + std::string(name);
    }
  }
  for (auto& [id, launches] : keys) {
    devices[id.first].rows.push_back(Summarize(id.second, launches));
  }
  std::vector<DeviceLaunches> out;
  bool any_in_window = false;
  const std::string policy = devices.begin()->second.window.policy;  // before devices move out
  for (auto& [id, device] : devices) {
    NoteKernelsOutside(device);
    const bool in_window = device.launches > 0 || device.unmatched > 0 ||
                           device.shared_call_kernels > 0 || device.graph_launches > 0;
    any_in_window = any_in_window || in_window;
    // A device whose kernels all lie outside the window stays, empty, with its note: dropping it
    // would leave its kernels out without a word.
    if (!in_window && device.outside_kernels == 0) continue;
    std::sort(device.rows.begin(), device.rows.end(),
              [](const LaunchKeyRow& a, const LaunchKeyRow& b) {
                if (a.overhead.total_ns != b.overhead.total_ns) {
                  return a.overhead.total_ns > b.overhead.total_ns;
                }
                if (a.overhead.count != b.overhead.count)
                  return a.overhead.count > b.overhead.count;
                return a.key < b.key;
              });
    std::stable_sort(device.records.begin(), device.records.end(),
                     [](const KernelLaunch& a, const KernelLaunch& b) {
                       return std::tie(a.kernel_start_ns, a.api_start_ns) <
                              std::tie(b.kernel_start_ns, b.api_start_ns);
                     });
    out.push_back(std::move(device));
  }
  if (!any_in_window) ThrowNoKernelInWindow(trace, policy);
  return out;
}

}  // namespace gpuroof
