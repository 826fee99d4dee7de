#include "gpuroof/analyses/findings/finding.h"

#include <algorithm>
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

}  // namespace gpuroof
