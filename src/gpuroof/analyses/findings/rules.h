// The findings rules (docs/findings.md), one function each: pure functions of the trace and its
// device timelines that return one finding per device where the pattern shows, before the
// minimum-cost threshold is applied.
#pragma once

#include <vector>

#include "gpuroof/analyses/findings/device_activity.h"
#include "gpuroof/analyses/findings/finding.h"
#include "gpuroof/analyses/launch_calls.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct FindingContext {
  const Trace& trace;
  const std::vector<DeviceActivity>& devices;
  const FindingThresholds& thresholds;
  // Each device's steps, parallel to `devices` (those of the process driving it; empty when the
  // trace has none).
  const std::vector<FindingSteps>& steps;
  const LaunchCalls& launch_calls;  // each op's launching call, joined once for every rule
  std::vector<std::string>* notes;  // what a rule left out without firing (FindingsResult::notes)

  // The steps of device `device_id` (no steps for a device not in `devices`).
  const FindingSteps& StepsOf(int32_t device_id) const;
  // When the op at `row` of `block` was launched: its launching call's start, else (no call
  // joined) its own start. Per-step costs charge GPU work to the step whose CPU range launched it
  // (as ranges and steps attribute work everywhere), not to the step whose time it ran in: a GPU
  // running behind the CPU runs a step's work in the next step's time (docs/findings.md).
  int64_t LaunchedAt(const ActivityBlock& block, size_t row) const;
  // Charges `cost_ns` of the op at `row` of `block` to the step that launched it (LaunchedAt);
  // an op without a launching call is charged by its own start and counted in
  // `costs.no_call_ops`/`no_call_ns`, which ComputeFindings says in a note.
  void ChargeLaunched(const FindingSteps& of, StepCosts& costs, const ActivityBlock& block,
                      size_t row, int64_t cost_ns) const;
};

// Whether a CUDA runtime/driver function blocks the calling thread until GPU work completes:
// the *Synchronize calls and the copies and memsets without "Async" in their name.
bool IsSynchronizingCall(std::string_view name);

std::vector<Finding> FindSyncCalls(const FindingContext& context);            // sync-call
std::vector<Finding> FindGapCauses(const FindingContext& context);            // gpu-gap, host-bound
std::vector<Finding> FindPageableAsyncCopies(const FindingContext& context);  // pageable-copy
std::vector<Finding> FindSerialisedCopies(const FindingContext& context);     // serialised-copies
std::vector<Finding> FindExposedComm(const FindingContext& context);          // exposed-comm
std::vector<Finding> FindLaunchBound(const FindingContext& context);          // launch-bound
std::vector<Finding> FindLowOccupancy(const FindingContext& context);         // low-occupancy

// "cudaStreamSynchronize ×12, cudaMemcpy ×3": names with their counts, most frequent first.
std::string CountedNames(const std::vector<std::pair<std::string, int64_t>>& counts);

}  // namespace gpuroof
