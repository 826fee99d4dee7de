// Per NVTX range name: CPU duration statistics and the GPU work its instances launched, per
// engine (docs/metrics.md, "NVTX ranges").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// GPU work of one engine attributed to a range instance (or summed over instances).
struct RangeEngineWork {
  int64_t ops = 0;
  int64_t sum_ns = 0;   // summed durations of the counted intervals
  int64_t busy_ns = 0;  // union of the counted intervals (per instance; summed over instances)
  uint64_t bytes = 0;
};

// One instance of a range, on one device (an instance that launched work on two devices has two
// rows; one with no GPU work has a single row with device_id -1).
struct RangeInstanceLoad {
  size_t range_index = 0;  // into trace.nvtx_ranges
  int64_t ordinal = 0;     // 1-based instance number within its name, in start order
  int32_t device_id = -1;
  int64_t gpu_ops = 0;
  int64_t gpu_start_ns = 0;  // first counted op start; 0 when no GPU work
  int64_t gpu_end_ns = 0;    // last counted op end
  int64_t any_busy_ns = 0;   // union over every engine
  std::array<RangeEngineWork, kEngineCount> engines{};  // indexed by EngineIndex()
  std::optional<Engine> bottleneck;                     // the engine with the largest busy time
  int64_t roofline_ns = 0;                              // that busy time: the instance's bound

  int64_t gpu_span_ns() const { return gpu_end_ns - gpu_start_ns; }
};

// All instances of one range name on one side (CPU thread or GPU timeline).
struct RangeGroup {
  std::string name;
  bool on_gpu = false;
  AttributionMethod method = AttributionMethod::kLaunchCorrelation;
  RangeScope scope = RangeScope::kThread;  // whose launches counted (launch correlation)
  int64_t other_thread_ops = 0;            // scope kThread: other threads' launches left out
  DurationStats cpu;  // durations of the instances themselves (for GPU ranges: on the GPU)
  int64_t gpu_ops = 0;
  int64_t instances_with_work = 0;
  // Summed over instance rows; divided by the instance count for the per-instance figures.
  std::array<RangeEngineWork, kEngineCount> engines{};
  // The engine whose busy time per instance is largest, taking each instance's busiest device for
  // that engine (the sum itself when every instance ran on one device): devices that run side by
  // side bound an instance each on its own, not together.
  std::optional<Engine> bottleneck;
  double roofline_ns_per_instance = 0;
  // Instances inside or overlapping another instance of the group on its timeline (the name
  // nested in itself, or the step range on two threads; KeepOutermost): their ops are counted
  // again in each, in gpu_ops, the Σ busy and the per-instance figures.
  int64_t overlapping_instances = 0;
  // Launch calls of the instances whose GPU op is not in the trace (RangeInstanceWork), Σ, and
  // the note naming the instances that made them (empty when none did).
  int64_t launches_without_op = 0;
  std::string launches_without_op_note;
  int devices = 0;                               // distinct devices the instances' work ran on
  std::vector<RangeInstanceLoad> instance_rows;  // only for RangeSummaryOptions::name
};

struct RangeSummaryOptions {
  // Only ranges with this name (resolved as SelectRanges does: a name, NAME@N, NAME@*), with
  // per-instance rows. Empty: every range name, no instance rows.
  std::string name;
  // Whose launches count. Unset: the named range and numbered families (ProfilerStep#*) are
  // iteration ranges (process); other ranges keep their thread (docs/metrics.md).
  std::optional<RangeScope> scope;
};

struct RangeSummary {
  AttributionMethod method = AttributionMethod::kLaunchCorrelation;
  std::string method_note;         // set when CPU ranges fell back to time overlap
  int64_t unmatched_ops = 0;       // ops whose correlation id no API call names
  std::string resolved;            // with a name: which range and instances it selected
  std::vector<RangeGroup> groups;  // by total CPU duration, largest first; then name
};

// Throws InputError naming the trace when it has no NVTX ranges at all, or none named
// `options.name` (the message lists a few names it does have).
RangeSummary SummarizeRanges(const Trace& trace, const RangeSummaryOptions& options);

// Per-instance rows of the given ranges (all of one name), for `analyze --per-range`.
std::vector<RangeInstanceLoad> ComputeInstanceLoads(const Trace& trace,
                                                    const RangeAttribution& attribution);

}  // namespace gpuroof
