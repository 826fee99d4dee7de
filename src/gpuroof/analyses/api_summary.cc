#include "gpuroof/analyses/api_summary.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/scalar_read.h"

namespace gpuroof {

TraceWindow ResolveTraceWindow(const Trace& trace, const WindowSpec& spec) {
  EngineLoadOptions load_options;
  load_options.window = spec;
  TraceWindow out;
  out.start_ns = std::numeric_limits<int64_t>::max();
  out.end_ns = std::numeric_limits<int64_t>::min();
  for (const DeviceLoad& device : ComputeEngineLoad(trace, load_options)) {
    out.start_ns = std::min(out.start_ns, device.window.start_ns);
    out.end_ns = std::max(out.end_ns, device.window.end_ns);
    out.policy = device.window.policy;
  }
  return out;
}

ApiSummary ComputeApiSummary(const Trace& trace, const ApiSummaryOptions& options) {
  if (trace.api_calls.empty()) {
    throw InputError(trace.source,
                     "has no CUDA API calls (nsys: CUPTI_ACTIVITY_KIND_RUNTIME; Kineto: "
                     "cuda_runtime/cuda_driver events)");
  }
  ApiSummary summary;
  summary.whole_trace = options.window.kind == WindowSpec::Kind::kAll;
  Window window;
  if (summary.whole_trace) {
    summary.window_policy = "all";
  } else {
    TraceWindow resolved = ResolveTraceWindow(trace, options.window);
    summary.window_policy = resolved.policy;
    summary.window_start_ns = window.start_ns = resolved.start_ns;
    summary.window_end_ns = window.end_ns = resolved.end_ns;
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
    if (!summary.whole_trace && !OpCountsInWindow(call.start_ns, call.end_ns, window)) {
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
