#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// One kernel joined to the call that launched it (same process and correlation id): the columns
// of nsys's kernexectrace (docs/metrics.md, "Launches"). Times in ns on the trace clock.
struct KernelLaunch {
  int64_t api_start_ns = 0;
  int64_t api_end_ns = 0;
  int64_t kernel_start_ns = 0;
  int64_t kernel_end_ns = 0;
  uint32_t api_name = 0;   // string id of the launching function
  uint32_t signature = 0;  // the kernel's Trace::signatures index
  uint64_t thread_id = 0;  // the launching thread (the trace's key)
  // Launch overhead: how long the launching call took.
  int64_t overhead_ns() const { return api_end_ns - api_start_ns; }
  // Queue time: from the end of the call to the kernel's start, when the kernel started after
  // the call returned (it waited behind other work); 0 otherwise.
  int64_t queue_ns() const {
    return kernel_start_ns > api_end_ns ? kernel_start_ns - api_end_ns : 0;
  }
  bool queued() const { return kernel_start_ns > api_end_ns; }
  // Launch-to-start latency: from the call's start to the kernel's start.
  int64_t latency_ns() const { return kernel_start_ns - api_start_ns; }
  // Call start to kernel end (kernexectrace's "Total Dur").
  int64_t total_ns() const { return kernel_end_ns - api_start_ns; }
};

// The launches of one kernel key on one device.
struct LaunchKeyRow {
  Engine engine = Engine::kKernel;
  std::string key;
  std::string name;
  DurationStats overhead;             // launch overhead of each launch
  DurationStats queue;                // queue time of each launch (0 when it did not queue)
  DurationStats latency;              // launch-to-start latency of each launch
  DurationStats kernel;               // the kernels' own durations
  int64_t queued = 0;                 // launches whose kernel started after the call returned
  int64_t shorter_than_overhead = 0;  // kernels that ran for less than their launch call took
};

struct DeviceLaunches {
  int32_t device_id = 0;
  std::string device_name;
  Window window;
  int64_t launches = 0;   // kernels in the window joined to their launching call
  int64_t unmatched = 0;  // kernels in the window whose launching call the trace lacks
  // Kernels in the window whose call launched several ops (a CUDA graph launch: every node
  // carries its correlation id), left out: the call's overhead is not any one kernel's.
  int64_t shared_call_kernels = 0;
  int64_t shared_calls = 0;  // the distinct calls that launched them
  // Of shared_calls, those that are not graph launches (no "Graph" in the name: a kernel launch
  // whose op was recorded twice, a merged export), and up to three of their function names.
  int64_t shared_non_graph_calls = 0;
  std::string shared_non_graph_names;
  // Whole-graph launches (engine graph: CUDA graphs traced as one op per launch, their kernels not
  // one by one) in the window, left out: no kernel to join. Their count and busy time.
  int64_t graph_launches = 0;
  int64_t graph_sum_ns = 0;
  int64_t outside_kernels = 0;        // kernels of the device the window leaves out
  int64_t early_starts = 0;           // joined launches whose kernel starts before its call (clock
                                      // skew or a wrong join): kept, with a negative latency
  std::vector<LaunchKeyRow> rows;     // total overhead desc, then launches desc, then key
  std::vector<KernelLaunch> records;  // every launch, by kernel start (with keep_records)
};

struct LaunchLatencyOptions {
  WindowSpec window;  // kAll covers every kernel, as nsys's reports do
  KernelKey key = KernelKey::kName;
  bool keep_records = false;  // fill DeviceLaunches::records (the per-launch table)
};

// Joins every kernel (compute and collective) that counts in the window of its device to its
// launching call in trace.api_calls, per device in ascending id order. Kernels are not clipped:
// a launch is a whole event. With WindowSpec::Kind::kAll every kernel counts and no window is
// resolved (a device whose ops take no time is fine); otherwise the windows are
// ComputeEngineLoad()'s, their note counting the kernels left out; a device whose kernels all lie
// outside the window is kept, without rows, for that note. Throws InputError naming the
// trace when it has no kernels (saying when it has whole-graph launches only), no API calls, no
// kernel in the window of any device, or when the window cannot be resolved.
std::vector<DeviceLaunches> ComputeLaunchLatency(const Trace& trace,
                                                 const LaunchLatencyOptions& options);

}  // namespace gpuroof
