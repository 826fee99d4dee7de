#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuroof/analyses/statistics.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// One CUDA runtime or driver function: the durations (end - start, ns) of its calls that count
// (docs/metrics.md, "API calls"), as nsys's cuda_api_sum gives them.
struct ApiFunctionRow {
  std::string name;  // "cudaLaunchKernel"; "(unnamed)" when the trace does not name the call
  DurationStats stats;
  double time_share_pct = 0;  // 100 * total / the total of every function; 0 when that is 0
};

// The API calls of one trace (every process and thread together: calls run on the CPU, not on
// a device).
struct ApiSummary {
  std::string window_policy;    // "all", or the policy of the device windows the calls fall in
  bool whole_trace = false;     // --window all: every call, as nsys's reports count them
  int64_t window_start_ns = 0;  // otherwise: the earliest start and latest end of the device
  int64_t window_end_ns = 0;    // windows; a call counts when it overlaps that interval
  // --window nvtx: the range's instances as SelectRanges resolved them ("'ProfilerStep#7' (1
  // instance)"). A call counts when it overlaps the CPU time of one of them (calls run on the
  // CPU: the range's GPU work runs later, behind the launch queue); window_start_ns and
  // window_end_ns are the first instance's start and the last one's end.
  std::string window_range;
  std::string window_note;    // which devices' windows fell back to another policy
  int64_t calls = 0;          // calls counted
  int64_t total_ns = 0;       // their summed durations
  int64_t outside_calls = 0;  // calls the window leaves out
  // PyTorch .item() ops (kScalarReadOpName) among the calls: not CUDA functions, left out.
  int64_t scalar_reads = 0;
  std::vector<ApiFunctionRow> rows;  // total desc, then count desc, then name
};

struct ApiSummaryOptions {
  WindowSpec window;  // kAll: every call of the trace
};

// Per-function statistics of `trace.api_calls` (read with ReadOptions::all_api_calls for every
// call). Throws InputError naming the trace when it holds no API call, for `nvtx:` windows what
// SelectRanges() throws, and for the other windows but `all` what ComputeEngineLoad() throws.
ApiSummary ComputeApiSummary(const Trace& trace, const ApiSummaryOptions& options);

// The interval of the windows of every device of `trace` under `spec` (earliest start, latest
// end) and the policy they share, for analyses of CPU-side calls, which belong to no device.
struct TraceWindow {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  // The policy asked for when a device used it; devices that fell back to another (a device
  // without kernels under `processing` takes `all`) are named in `note`, as their windows widen
  // the interval.
  std::string policy;
  std::string note;
};
TraceWindow ResolveTraceWindow(const Trace& trace, const WindowSpec& spec);

}  // namespace gpuroof
