// What the findings rules report (docs/findings.md): one finding per rule and device, with its
// cost in GPU time and the evidence that shows it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpuroof {

// One instance of a pattern: a call, a copy, a gap, a kernel group.
struct FindingExample {
  int64_t start_ns = 0;  // on the trace clock
  int64_t end_ns = 0;
  int64_t cost_ns = 0;  // this instance's share of the finding's cost
  std::string label;    // "cudaStreamSynchronize, then 1.2 ms idle"
};

struct Finding {
  std::string id;     // the rule's stable id, e.g. "sync-call"
  std::string title;  // one line: what is wrong
  int32_t device_id = -1;
  int64_t cost_ns = 0;   // GPU time idle or serialised because of it (docs/findings.md, per rule)
  int64_t count = 0;     // instances (calls, copies, gaps, kernels)
  std::string evidence;  // which ops, where, how much
  std::string advice;    // what to do
  std::vector<FindingExample> examples;  // the costliest instances, at most kMaxExamples
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
