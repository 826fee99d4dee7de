// Findings: what to fix, with what each costs (docs/findings.md).
#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/findings/finding.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct FindingsOptions {
  WindowSpec window;  // kProcessing by default; kAll covers the whole trace
  FindingThresholds thresholds;
};

struct FindingsResult {
  std::vector<Finding> findings;  // cost desc, then id, then device
  // Findings whose cost was below --min-cost-pct of their device's window, left out.
  int64_t below_min_cost = 0;
  // Rules that could not run on this trace and why ("sync-call: the trace has no API calls").
  std::vector<std::string> notes;
};

// Every rule's id, in documentation order.
const std::vector<std::string>& FindingRuleIds();

// Runs every rule on `trace` (read with correlation ids and every API call). A trace without GPU
// activity has no finding (and a note saying so). Throws InputError naming the trace when the
// window cannot be resolved.
FindingsResult ComputeFindings(const Trace& trace, const FindingsOptions& options);

}  // namespace gpuroof
