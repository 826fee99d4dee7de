// One rank of a distributed job reduced to the few figures `gpuroof ranks` compares across ranks
// (docs/metrics.md, "Ranks"): step times, compute / communication / copy busy, how much
// communication hides behind compute, and why the GPU sat idle. The trace can be dropped once
// its summary is made.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// Why the device was idle inside the steps (docs/metrics.md, "Idle breakdown"). The three parts
// add up to the idle time.
struct IdleBreakdown {
  int64_t host_bound_ns = 0;  // the op that ended the idle interval was still being launched
  int64_t waiting_ns = 0;     // it was launched already, yet waited (a sync, another stream)
  int64_t other_ns = 0;       // no launch known for it, or no op after the idle interval
  int64_t total_ns() const { return host_bound_ns + waiting_ns + other_ns; }
  bool operator==(const IdleBreakdown&) const = default;
};

// One collective-communication kernel of a step: the instance ranks are matched by. A rank keeps
// one per collective launch (thousands), so it is small: the name is an index into its rank's
// RankSummary::collective_names.
struct CollectiveArrival {
  uint32_t step = 0;       // 0-based position of the step among the rank's steps
  uint32_t order = 0;      // 0-based position among the step's collectives, in start order
  uint32_t name_id = 0;    // RankSummary::collective_names[name_id] is the kernel name
  int64_t arrival_ns = 0;  // kernel start minus the start of its step (rank clocks may differ)
  bool operator==(const CollectiveArrival&) const = default;
};

// The figures of one step (or of the whole trace when there are no steps).
struct StepFigures {
  int64_t start_ns = 0;  // the step's interval on the trace clock
  int64_t end_ns = 0;
  int64_t compute_busy_ns = 0;  // union of kernel (and graph) ops clipped to the step
  int64_t comm_busy_ns = 0;     // union of collective kernels
  int64_t overlap_ns = 0;       // time both compute and communication were busy
  int64_t copy_busy_ns = 0;     // union of copies and memsets
  int64_t busy_ns = 0;          // union of every op
  IdleBreakdown idle;           // step length minus busy, by cause
  int64_t length_ns() const { return end_ns - start_ns; }
  int64_t exposed_comm_ns() const { return comm_busy_ns - overlap_ns; }
  bool operator==(const StepFigures&) const = default;
};

struct RankSummary {
  std::string source;  // the trace's path
  std::string format;  // the trace's format ("kineto-json", "nsys-sqlite")
  // From the trace (RankIdentityOf); unset when it does not say.
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::string rank_origin;  // where `rank` came from ("distributedInfo", "OMPI_COMM_WORLD_RANK")
  // Why a rank the trace named was not taken (empty when none was dropped): a captured launcher
  // environment is the profiled command's, and names no one worker when several processes ran
  // GPU work in the trace.
  std::string rank_left_out;

  int32_t device_id = 0;     // the device analysed: the one with the most ops
  std::string device_name;   // its GPU model as the trace names it ("" when it does not)
  size_t other_devices = 0;  // active devices left out
  // Devices left out with as many ops as the analysed one (the lowest id is taken on a tie): a
  // guess, said by `ranks`.
  size_t tied_devices = 0;
  int64_t other_device_ops = 0;

  std::string steps_label;  // "'ProfilerStep#*' (6 instances)", or "whole trace (no step ranges)"
  // No step range was found: the whole trace is the one step (a guess, said by `ranks`; such a
  // rank is not compared with ranks that have real steps).
  bool whole_trace = false;
  std::vector<StepFigures> steps;
  // The instance number of each step, in step order: the N of its range name NAME#N
  // ("ProfilerStep#550" -> 550). Empty unless every step's name has one. Steps are matched across
  // ranks by position; these say whether the positions hold the same steps (warned when not).
  std::vector<int64_t> step_numbers;
  // GPU work of the analysed device in no step: not counted in any figure, said. Ops of positive
  // length with no overlap with any step, and the busy time (union of the device's ops) outside
  // the union of the steps (steps may overlap). 0 with the whole trace as the step.
  int64_t ops_outside_steps = 0;
  int64_t busy_outside_steps_ns = 0;
  // Records the reader skipped with data loss (Severity kDataLoss or kError: GPU work the figures
  // lack); set by whoever read the trace (SummarizeRank sees no diagnostics), said by `ranks`.
  int64_t records_lost = 0;
  // Where the trace's records end: the end of the analysed device's last op or of the last launch
  // call (the step ranges themselves excluded). A step that ends well past it holds time nobody
  // traced (said by `ranks`). 0 when unknown.
  int64_t last_record_ns = 0;
  double step_median_ns = 0;  // of the step lengths
  double step_p95_ns = 0;     // linear interpolation (statistics.h Quantile)
  std::vector<CollectiveArrival> collectives;
  std::vector<std::string> collective_names;  // each distinct collective kernel name once

  std::string_view CollectiveName(const CollectiveArrival& arrival) const {
    return collective_names[arrival.name_id];
  }
  // Appends an arrival, its name stored once per summary.
  void AddCollective(size_t step, size_t order, std::string_view name, int64_t arrival_ns);

  // Means over the steps, per step: the figures ranks are compared by.
  double MeanPerStep(int64_t StepFigures::*field) const;
  double MeanExposedCommNs() const;
  double MeanIdle(int64_t IdleBreakdown::*field) const;
  bool operator==(const RankSummary&) const = default;
};

// The index of `name` in `names`, appended when it is not there yet (collective kernel names,
// stored once per summary or tally).
uint32_t CollectiveNameId(std::vector<std::string>& names, std::string_view name);

struct RankSummaryOptions {
  // The range that marks one iteration (ranges.h naming); empty: "ProfilerStep#*" when the trace
  // has it, else the whole trace is one step.
  std::string iteration_range;
};

// The rank and world size the trace names: the neutral metadata keys "distributed_rank",
// "distributed_world_size" and "distributed_rank_origin" that readers fill.
struct RankIdentity {
  std::optional<int64_t> rank;
  std::optional<int64_t> world_size;
  std::string origin;
};
RankIdentity RankIdentityOf(const Trace& trace);

// Summarises `trace` as one rank. GPU ops are clipped to each step's interval (time overlap on
// the trace clock). Throws InputError naming the trace when it has no GPU op, and when the
// iteration range does not resolve (range_selection.h).
RankSummary SummarizeRank(const Trace& trace, const RankSummaryOptions& options);

// The figures of the window [start_ns, end_ns) of `device_id`, with the idle breakdown. The
// building block of SummarizeRank, for tests.
StepFigures ComputeStepFigures(const Trace& trace, int32_t device_id, int64_t start_ns,
                               int64_t end_ns);

}  // namespace gpuroof
