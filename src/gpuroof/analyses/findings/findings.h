// Findings: what to fix, with what each costs (docs/findings.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/findings/finding.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct FindingsOptions {
  WindowSpec window;  // kProcessing by default; kAll covers the whole trace
  FindingThresholds thresholds;
  // The range whose instances are the steps (range_selection.h naming, `--iteration-range`);
  // empty: "ProfilerStep#*" when the trace has it, else no steps (no per-step costs).
  std::string iteration_range;
  // ComputeEngineLoad's result under `window`, when the caller has it (the report): its windows
  // are reused, not computed again. Null: computed here.
  const std::vector<DeviceLoad>* engine_load = nullptr;
};

struct FindingsResult {
  std::vector<Finding> findings;  // cost desc, then id, then device
  // Findings whose cost was below --min-cost-pct of their device's window, left out.
  int64_t below_min_cost = 0;
  // Rules that could not run on this trace and why ("sync-call: the trace has no API calls").
  std::vector<std::string> notes;
  // The steps costs are divided by ("'ProfilerStep#*' (6 instances)"); empty: none.
  std::string steps_label;
  // Each device's window (ascending id), which costs and --min-cost-pct are measured in; its
  // note says how many ops it left out.
  std::vector<std::pair<int32_t, Window>> windows;
};

// Every rule's id, in documentation order.
const std::vector<std::string>& FindingRuleIds();

// Runs every rule on `trace` (read with correlation ids and every API call). Where the trace has
// steps, each finding gets its cost per step and the steps its instances fell in
// (Finding::per_step). Throws InputError naming the trace when it has no GPU activity (as every
// command), or when the window or the iteration range cannot be resolved.
FindingsResult ComputeFindings(const Trace& trace, const FindingsOptions& options);

}  // namespace gpuroof
