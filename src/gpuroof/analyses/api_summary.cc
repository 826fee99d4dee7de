#include "gpuroof/analyses/api_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/scalar_read.h"

namespace gpuroof {

TraceWindow ResolveTraceWindow(const Trace& trace, const WindowSpec& spec) {
  EngineLoadOptions load_options;
  load_options.window = spec;
  TraceWindow out;
  out.start_ns = std::numeric_limits<int64_t>::max();
  out.end_ns = std::numeric_limits<int64_t>::min();
  std::map<std::string, std::vector<int32_t>> devices_of_policy;
  for (const DeviceLoad& device : ComputeEngineLoad(trace, load_options)) {
    out.start_ns = std::min(out.start_ns, device.window.start_ns);
    out.end_ns = std::max(out.end_ns, device.window.end_ns);
    devices_of_policy[device.window.policy].push_back(device.device_id);
  }
  // Every fallback is to `all`: the other policy, when there is one, is the one asked for.
  out.policy = devices_of_policy.begin()->first;
  for (const auto& [policy, devices] : devices_of_policy) {
    if (policy != "all") out.policy = policy;
  }
  if (devices_of_policy.size() > 1) {
    const std::vector<int32_t>& fell_back = devices_of_policy["all"];
    out.note = fmt::format("device{} {} {} no {} window: {} all window is part of the span",
                           fell_back.size() == 1 ? "" : "s", fmt::join(fell_back, ", "),
                           fell_back.size() == 1 ? "has" : "have", out.policy,
                           fell_back.size() == 1 ? "its" : "their");
  }
  return out;
}

namespace {

// The CPU intervals of the instances of an NVTX range, merged: sorted, disjoint and apart.
std::vector<Window> RangeIntervals(const RangeSelection& selection) {
  std::vector<Window> merged;
  for (const NvtxRange* range : selection.ranges) {  // in start order
    if (!merged.empty() && range->start_ns <= merged.back().end_ns) {
      merged.back().end_ns = std::max(merged.back().end_ns, range->end_ns);
    } else {
      Window window;
      window.start_ns = range->start_ns;
      window.end_ns = range->end_ns;
      merged.push_back(window);
    }
  }
  return merged;
}

// Whether [start_ns, end_ns) counts in one of `intervals` (RangeIntervals), by OpCountsInWindow.
bool CountsInIntervals(int64_t start_ns, int64_t end_ns, const std::vector<Window>& intervals) {
  auto it = std::lower_bound(intervals.begin(), intervals.end(), start_ns,
                             [](const Window& w, int64_t t) { return w.end_ns < t; });
  for (int k = 0; k < 2 && it != intervals.end(); ++k, ++it) {
    if (OpCountsInWindow(start_ns, end_ns, *it)) return true;
  }
  return false;
}

}  // namespace

ApiSummary ComputeApiSummary(const Trace& trace, const ApiSummaryOptions& options) {
  if (trace.api_calls.empty()) {
    throw InputError(trace.source,
                     "has no CUDA API calls (nsys: CUPTI_ACTIVITY_KIND_RUNTIME; Kineto: "
                     "cuda_runtime/cuda_driver events)");
  }
  ApiSummary summary;
  summary.whole_trace = options.window.kind == WindowSpec::Kind::kAll;
  std::vector<Window> windows(1);
  if (summary.whole_trace) {
    summary.window_policy = "all";
  } else if (options.window.kind == WindowSpec::Kind::kNvtx) {
    const RangeSelection selection = SelectRanges(trace, options.window.nvtx_name, "--window");
    summary.window_policy = "nvtx";
    summary.window_range = selection.Describe();
    windows = RangeIntervals(selection);
    if (windows.empty()) throw InputError(trace.source, "--window: the range has no instance");
    summary.window_start_ns = windows.front().start_ns;
    summary.window_end_ns = windows.back().end_ns;
  } else {
    TraceWindow resolved = ResolveTraceWindow(trace, options.window);
    summary.window_policy = resolved.policy;
    summary.window_note = resolved.note;
    summary.window_start_ns = windows[0].start_ns = resolved.start_ns;
    summary.window_end_ns = windows[0].end_ns = resolved.end_ns;
  }
  // Durations per function name id, in call order.
  std::unordered_map<uint32_t, std::vector<int64_t>> durations;
  uint32_t scalar_read = 0;
  const bool has_scalar_reads = trace.strings.Find(kScalarReadOpName, &scalar_read);
  for (const ApiCall& call : trace.api_calls) {
    if (has_scalar_reads && call.name == scalar_read) {
      ++summary.scalar_reads;
      continue;
    }
    if (!summary.whole_trace && !CountsInIntervals(call.start_ns, call.end_ns, windows)) {
      ++summary.outside_calls;
      continue;
    }
    durations[call.name].push_back(call.end_ns - call.start_ns);
    ++summary.calls;
    summary.total_ns += call.end_ns - call.start_ns;
  }
  for (auto& [name, values] : durations) {
    ApiFunctionRow row;
    std::string_view text = trace.strings.Get(name);
    row.name = text.empty() ? "(unnamed)" : std::string(text);
    row.stats = SummarizeDurations(values);
    if (summary.total_ns > 0) {
      row.time_share_pct =
          100.0 * static_cast<double>(row.stats.total_ns) / static_cast<double>(summary.total_ns);
    }
    summary.rows.push_back(std::move(row));
  }
  std::sort(summary.rows.begin(), summary.rows.end(),
            [](const ApiFunctionRow& a, const ApiFunctionRow& b) {
              if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
              if (a.stats.count != b.stats.count) return a.stats.count > b.stats.count;
              return a.name < b.name;
            });
  return summary;
}

}  // namespace gpuroof
