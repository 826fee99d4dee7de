#include "gpuroof/analyses/findings/finding.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace gpuroof {

const std::vector<FindingRule>& FindingRules() {
  static const std::vector<FindingRule> rules = {
      {"sync-call", "Synchronising CUDA calls leave the GPU idle",
       "Remove synchronisation from the steady-state loop: record events and wait on them only "
       "when the result is needed, use cudaMemcpyAsync on a stream, and keep values on the GPU "
       "(in PyTorch: avoid .item(), .cpu() and printing tensors inside the step)."},
      {"pageable-copy", "Async copies from/to pageable host memory run synchronously",
       "Allocate the host buffers pinned (cudaHostAlloc/cudaMallocHost; PyTorch: "
       "pin_memory=True, non_blocking=True) so the copy is asynchronous and can overlap "
       "compute."},
      {"host-bound", "Host-bound: the GPU waits for the CPU to issue work",
       "The CPU issues work too slowly: capture the step in a CUDA graph, fuse small kernels, "
       "move host-side work (data loading, Python overhead) off the launching thread, or "
       "launch further ahead."},
      {"launch-bound", "Launch-bound: kernels shorter than their launch",
       "Launch fewer, larger kernels: fuse elementwise kernels (torch.compile, custom fused "
       "kernels), batch small operations, or capture the step in a CUDA graph so one launch "
       "issues them all."},
      {"gpu-gap", "GPU idle gaps",
       "Gaps behind a synchronising call: remove the synchronisation (see sync-call). "
       "Unexplained gaps: look for waits on events of other streams or processes, or host "
       "work outside the CUDA API, on the timeline at the listed times."},
      {"exposed-comm", "Communication not overlapped with compute",
       "Overlap communication with compute: bucket gradients and start all-reduce during the "
       "backward pass (DDP buckets, FSDP prefetch), or run collectives on their own stream."},
      {"serialised-copies", "Copies do not overlap compute",
       "Split the work into chunks on two or more streams so that the copy of one chunk runs "
       "while another is computed (pinned host memory and cudaMemcpyAsync are required)."},
      {"low-occupancy", "Low achieved occupancy",
       "Give the kernels more parallel work per launch (larger grids: batch or fuse), or reduce "
       "registers and shared memory per block (launch bounds, smaller tiles) so more warps fit "
       "on each SM."},
  };
  return rules;
}

void ApplyRule(Finding& finding, std::string_view id) {
  for (const FindingRule& rule : FindingRules()) {
    if (id != rule.id) continue;
    finding.id = rule.id;
    finding.title = rule.title;
    finding.advice = rule.advice;
    return;
  }
  throw std::logic_error("no finding rule '" + std::string(id) + "'");
}

Finding NewFinding(std::string_view id, int32_t device_id, int64_t count, int64_t cost_ns) {
  Finding finding;
  ApplyRule(finding, id);
  finding.device_id = device_id;
  finding.count = count;
  finding.cost_ns = cost_ns;
  return finding;
}

void KeepCostliestExamples(std::vector<FindingExample>& examples) {
  std::stable_sort(examples.begin(), examples.end(),
                   [](const FindingExample& a, const FindingExample& b) {
                     if (a.cost_ns != b.cost_ns) return a.cost_ns > b.cost_ns;
                     return a.start_ns < b.start_ns;
                   });
  if (examples.size() > kMaxFindingExamples) examples.resize(kMaxFindingExamples);
}

void AddExample(std::vector<FindingExample>& examples, FindingExample example) {
  examples.push_back(std::move(example));
  if (examples.size() >= 16 * kMaxFindingExamples) KeepCostliestExamples(examples);
}

int64_t FindingSteps::StepAt(int64_t t_ns) const {
  auto after = std::upper_bound(
      intervals.begin(), intervals.end(), t_ns,
      [](int64_t t, const std::pair<int64_t, int64_t>& step) { return t < step.first; });
  if (after == intervals.begin()) return -1;
  const auto step = std::prev(after);
  if (t_ns >= step->second) return -1;
  return static_cast<int64_t>(step - intervals.begin());
}

void ChargeStep(const FindingSteps& steps, StepCosts& costs, int64_t t_ns, int64_t cost_ns) {
  if (steps.intervals.empty()) return;
  costs.cost_ns.resize(steps.intervals.size(), 0);
  const int64_t step = steps.StepAt(t_ns);
  if (step < 0) {
    costs.outside_ns += cost_ns;
  } else {
    costs.cost_ns[static_cast<size_t>(step)] += cost_ns;
  }
}

void ChargeSegments(const FindingSteps& steps, StepCosts& costs,
                    const std::vector<std::pair<int64_t, int64_t>>& segments) {
  if (steps.intervals.empty()) return;
  costs.cost_ns.resize(steps.intervals.size(), 0);
  // The latest end among the steps up to each one (steps are in start order, and may nest): the
  // first step that can reach into a segment is found by binary search, so a long trace costs
  // O(log steps) per segment, not a walk from the first step.
  std::vector<int64_t> reach(steps.intervals.size());
  int64_t latest_end = std::numeric_limits<int64_t>::min();
  for (size_t s = 0; s < steps.intervals.size(); ++s) {
    latest_end = std::max(latest_end, steps.intervals[s].second);
    reach[s] = latest_end;
  }
  for (const auto& [start, end] : segments) {
    int64_t inside = 0;
    const auto first = std::upper_bound(reach.begin(), reach.end(), start);
    for (auto s = static_cast<size_t>(first - reach.begin()); s < steps.intervals.size(); ++s) {
      const auto& [step_start, step_end] = steps.intervals[s];
      if (step_start >= end) break;  // steps in start order
      const int64_t overlap = std::min(end, step_end) - std::max(start, step_start);
      if (overlap <= 0) continue;
      costs.cost_ns[s] += overlap;
      inside += overlap;
    }
    // Overlapping steps would count a part twice; what no step holds is outside.
    costs.outside_ns += std::max<int64_t>(0, (end - start) - inside);
  }
}

void ScaleStepCosts(StepCosts& costs, int64_t numerator, int64_t denominator) {
  if (denominator <= 0) return;
  auto scale = [&](int64_t value) {
    return static_cast<int64_t>(static_cast<long double>(value) * numerator / denominator);
  };
  for (int64_t& cost : costs.cost_ns)
    cost = scale(cost);
  costs.outside_ns = scale(costs.outside_ns);
  costs.no_call_ns = scale(costs.no_call_ns);
}

std::optional<FindingPerStep> SummarizeStepCosts(const FindingSteps& steps, const StepCosts& costs,
                                                 int64_t cost_ns, int64_t window_start_ns,
                                                 int64_t window_end_ns) {
  FindingPerStep per_step;
  per_step.steps_label = steps.label;
  for (const auto& [start, end] : steps.intervals) {
    if (start < window_end_ns && end > window_start_ns) ++per_step.steps;
  }
  if (per_step.steps == 0) return std::nullopt;
  per_step.cost_per_step_ns = static_cast<double>(cost_ns) / static_cast<double>(per_step.steps);
  per_step.outside_steps_ns = costs.outside_ns;
  for (size_t s = 0; s < costs.cost_ns.size(); ++s) {
    const int64_t cost = costs.cost_ns[s];
    if (cost <= 0) continue;
    const auto position = static_cast<int64_t>(s) + 1;
    ++per_step.steps_with_cost;
    if (per_step.first_step == 0) per_step.first_step = position;
    per_step.last_step = position;
    if (cost > per_step.worst_step_cost_ns) {
      per_step.worst_step = position;
      per_step.worst_step_cost_ns = cost;
    }
  }
  if (per_step.worst_step > 0 && steps.numbers.size() == steps.intervals.size()) {
    auto number = [&](int64_t position) {
      return steps.numbers[static_cast<size_t>(position - 1)];
    };
    per_step.first_number = number(per_step.first_step);
    per_step.last_number = number(per_step.last_step);
    per_step.worst_number = number(per_step.worst_step);
    per_step.family = steps.family;
  }
  return per_step;
}

}  // namespace gpuroof
