#include "gpuroof/analyses/launch_latency.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/launch_calls.h"
#include "gpuroof/model/errors.h"

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

}  // namespace

std::vector<DeviceLaunches> ComputeLaunchLatency(const Trace& trace,
                                                 const LaunchLatencyOptions& options) {
  if (trace.api_calls.empty()) {
    throw InputError(trace.source,
                     "has no CUDA API calls to join kernels to (nsys: CUPTI_ACTIVITY_KIND_RUNTIME; "
                     "Kineto: cuda_runtime/cuda_driver events)");
  }
  EngineLoadOptions load_options;
  load_options.window = options.window;
  std::map<int32_t, DeviceLaunches> devices;
  for (const DeviceLoad& load : ComputeEngineLoad(trace, load_options)) {
    DeviceLaunches& device = devices[load.device_id];
    device.device_id = load.device_id;
    device.device_name = load.device_name;
    device.window = load.window;
  }
  std::map<std::pair<int32_t, std::string>, KeyLaunches> keys;
  std::vector<std::string> key_of_signature(trace.signatures.size());
  const LaunchCalls launch_calls(trace);
  std::map<int32_t, std::set<const ApiCall*>> shared_calls;
  bool any_kernel = false;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (!IsKernelEngine(block.engine[i])) continue;
      any_kernel = true;
      auto device_it = devices.find(trace.streams[block.stream[i]].device_id);
      if (device_it == devices.end()) continue;
      DeviceLaunches& device = device_it->second;
      if (!OpCountsInWindow(trace, block, i, device.window)) continue;
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
      if (options.keep_records) device.records.push_back(launch);
      std::string& key = key_of_signature[launch.signature];
      const OpSignature& signature = trace.signatures[launch.signature];
      if (key.empty()) key = KernelKeyText(trace, signature, options.key);
      KeyLaunches& row = keys[{device.device_id, key}];
      row.engine = signature.engine;
      if (row.name.empty()) row.name = std::string(trace.strings.Get(signature.name));
      row.overhead_ns.push_back(launch.overhead_ns());
      row.queue_ns.push_back(launch.queue_ns());
      row.latency_ns.push_back(launch.latency_ns());
      row.kernel_ns.push_back(launch.kernel_end_ns - launch.kernel_start_ns);
      row.queued += launch.queued() ? 1 : 0;
      row.shorter_than_overhead +=
          launch.kernel_end_ns - launch.kernel_start_ns < launch.overhead_ns() ? 1 : 0;
    }
  }
  if (!any_kernel) throw InputError(trace.source, "has no kernels");
  for (const auto& [id, calls] : shared_calls)
    devices[id].shared_calls = static_cast<int64_t>(calls.size());
  for (auto& [id, launches] : keys) {
    devices[id.first].rows.push_back(Summarize(id.second, launches));
  }
  std::vector<DeviceLaunches> out;
  for (auto& [id, device] : devices) {
    if (device.launches == 0 && device.unmatched == 0 && device.shared_call_kernels == 0) continue;
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
  return out;
}

}  // namespace gpuroof
