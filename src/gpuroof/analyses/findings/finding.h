// What the findings rules report (docs/findings.md): one finding per rule and device, with its
// cost in GPU time and the evidence that shows it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuroof {

// One instance of a pattern: a call, a copy, a gap, a kernel group.
struct FindingExample {
  int64_t start_ns = 0;  // on the trace clock
  int64_t end_ns = 0;
  int64_t cost_ns = 0;  // this instance's share of the finding's cost
  std::string label;    // "cudaStreamSynchronize, then 1.2 ms idle"
};

// The steps of a trace (Kineto's ProfilerStep#N, or the range --iteration-range names), in start
// order: what a finding's cost is divided by and its instances are placed in (docs/findings.md,
// "Per step").
struct FindingSteps {
  std::string label;                                   // "'ProfilerStep#*' (6 instances)"
  std::vector<std::pair<int64_t, int64_t>> intervals;  // [start, end) on the trace clock
  // Each step's own number when the steps are a numbered family (ProfilerStep#553: 553), parallel
  // to `intervals`; empty when some step's name has no number or two steps share one (steps are
  // then named by their 1-based position).
  std::vector<int64_t> numbers;
  std::string family;  // the numbered family's name ("ProfilerStep"), with `numbers`
  // The 0-based step whose interval holds `t_ns` (the latest starting at or before it), or -1.
  int64_t StepAt(int64_t t_ns) const;
};

// A finding's cost per step, accumulated instance by instance: each instance's cost goes to the
// step its start falls in.
struct StepCosts {
  std::vector<int64_t> cost_ns;  // per step, parallel to FindingSteps::intervals (or empty)
  int64_t outside_ns = 0;        // charges that fall in no step
  // GPU work charged by its own start because no launching call was joined to it (a trace
  // without API calls, an op without a correlation id): how many ops, and their charges.
  int64_t no_call_ops = 0;
  int64_t no_call_ns = 0;
};

// Adds `cost_ns` of an instance starting at `t_ns` to `costs` (nothing when there are no steps).
void ChargeStep(const FindingSteps& steps, StepCosts& costs, int64_t t_ns, int64_t cost_ns);
// Adds every part of `segments` (sorted, disjoint) to the steps it overlaps, by length; the
// parts in no step to `outside_ns`.
void ChargeSegments(const FindingSteps& steps, StepCosts& costs,
                    const std::vector<std::pair<int64_t, int64_t>>& segments);

// Scales every step's cost (and outside_ns) by numerator / denominator, for a cost that is a
// share of what was charged (serialised-copies). Nothing when denominator <= 0.
void ScaleStepCosts(StepCosts& costs, int64_t numerator, int64_t denominator);

// What a finding costs per step (only when the trace has steps in the device's window).
struct FindingPerStep {
  std::string steps_label;      // FindingSteps::label
  int64_t steps = 0;            // steps overlapping the span given (ComputeFindings: the window
                                // from its first op's launch, docs/findings.md "Per step")
  double cost_per_step_ns = 0;  // cost_ns / steps
  int64_t steps_with_cost = 0;  // steps an instance with a cost was charged to
  int64_t first_step = 0;       // 1-based position of the first such step (0: none)
  int64_t last_step = 0;        // ... and of the last
  int64_t worst_step = 0;       // the step with the largest cost (earliest on ties; 0: none)
  int64_t worst_step_cost_ns = 0;
  // Cost of instances in no step: GPU work launched in no step, calls and gaps started in none.
  int64_t outside_steps_ns = 0;
  // The steps' own numbers (FindingSteps::numbers) of first_step, last_step and worst_step; -1
  // when the steps have no numbers (or no step has a cost).
  int64_t first_number = -1;
  int64_t last_number = -1;
  int64_t worst_number = -1;
  std::string family;  // FindingSteps::family, with the numbers
};

// The per-step view of `costs` for a finding of cost `cost_ns` on a device whose window is
// [window_start_ns, window_end_ns); unset when no step overlaps the window.
std::optional<FindingPerStep> SummarizeStepCosts(const FindingSteps& steps, const StepCosts& costs,
                                                 int64_t cost_ns, int64_t window_start_ns,
                                                 int64_t window_end_ns);

struct Finding {
  std::string id;     // the rule's stable id, e.g. "sync-call"
  std::string title;  // one line: what is wrong
  int32_t device_id = -1;
  int64_t cost_ns = 0;   // GPU time idle or serialised because of it (docs/findings.md, per rule)
  int64_t count = 0;     // instances (calls, copies, gaps, kernels)
  std::string evidence;  // which ops, where, how much
  std::string advice;    // what to do
  std::vector<FindingExample> examples;    // the costliest instances, at most kMaxExamples
  StepCosts step_costs;                    // per step, while the rules run
  std::optional<FindingPerStep> per_step;  // set by ComputeFindings where there are steps
};

// A rule as the user sees it (docs/findings.md): its stable id, a one-line title and what to do.
// Kept in one table so that the ids --fail-on accepts, the titles and the advice agree.
struct FindingRule {
  const char* id;
  const char* title;
  const char* advice;
};

// Every rule, in the order docs/findings.md lists them.
const std::vector<FindingRule>& FindingRules();

// Makes `finding` one of rule `id`: its id, title and advice. Throws std::logic_error for an id
// that is not in FindingRules() (a rule's bug, not the user's).
void ApplyRule(Finding& finding, std::string_view id);

// A finding of rule `id` (ApplyRule) on a device, with its count and cost; the evidence is the
// rule's to write.
Finding NewFinding(std::string_view id, int32_t device_id, int64_t count, int64_t cost_ns);

inline constexpr size_t kMaxFindingExamples = 5;

// Keeps the `kMaxFindingExamples` costliest of `examples` (ties: earlier first), in that order.
void KeepCostliestExamples(std::vector<FindingExample>& examples);
// Adds `example`, trimming to the costliest now and then so that memory stays bounded whatever
// the number of instances. Call KeepCostliestExamples() once at the end.
void AddExample(std::vector<FindingExample>& examples, FindingExample example);

// Thresholds, each an option of `gpuroof findings` (defaults in docs/findings.md).
struct FindingThresholds {
  // A finding is kept when its cost is at least this share of its device's window (%).
  double min_cost_pct = 1.0;
  // gpu-gap and host-bound: idle intervals strictly longer than this count.
  int64_t gap_min_ns = 100'000;
  // launch-bound: fires when at least this share (%) of the kernel launches ran for less time
  // than their launching call took...
  double launch_bound_share_pct = 50.0;
  // ...and there are at least this many of them.
  int64_t launch_bound_min_kernels = 10;
  // low-occupancy: fires when the kernel-time-weighted estimated achieved occupancy is below (%).
  double low_occupancy_pct = 50.0;
};

}  // namespace gpuroof
