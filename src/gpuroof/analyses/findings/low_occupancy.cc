// low-occupancy: kernel time at a low estimated achieved occupancy, where the trace records it
// (docs/findings.md).
#include <array>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/window.h"

namespace gpuroof {

namespace {

struct OccupancyTotals {
  int64_t kernel_ns = 0;       // kernels with an estimate
  double weighted_pct_ns = 0;  // sum of occupancy x duration
  int64_t low_ns = 0;          // kernels below the threshold
  int64_t low_kernels = 0;
  int64_t without_estimate = 0;
  int64_t zero_estimate = 0;  // of those, launches the profiler estimated at 0 %
  int64_t zero_estimate_ns = 0;
  // Per signature below the threshold: its kernel time and its first launch (start, end).
  std::map<uint32_t, std::array<int64_t, 3>> low_by_signature;
  StepCosts step_costs;
};

}  // namespace

std::vector<Finding> FindLowOccupancy(const FindingContext& context) {
  const Trace& trace = context.trace;
  const double threshold = context.thresholds.low_occupancy_pct;
  std::map<int32_t, OccupancyTotals> totals;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.engine[i] != Engine::kKernel) continue;
      const int32_t device_id = trace.streams[block.stream[i]].device_id;
      const DeviceActivity* device = nullptr;
      for (const DeviceActivity& d : context.devices) {
        if (d.device_id == device_id) device = &d;
      }
      if (device == nullptr || !OpCountsInWindow(trace, block, i, device->window)) continue;
      const OpSignature& signature = trace.signatures[block.signature[i]];
      OccupancyTotals& t = totals[device_id];
      // A kernel that ran had at least one block resident: a 0 % for a kernel above 48 KB of
      // shared memory is Kineto's calculator failing (the reader marks it), not a measurement.
      if (signature.est_occupancy_pct < 0) {
        ++t.without_estimate;
        if (signature.est_occupancy_pct == kOccupancyEstimateFailed) {
          ++t.zero_estimate;
          t.zero_estimate_ns += block.end_ns[i] - block.start_ns[i];
        }
        continue;
      }
      const int64_t duration = block.end_ns[i] - block.start_ns[i];
      t.kernel_ns += duration;
      t.weighted_pct_ns +=
          static_cast<double>(signature.est_occupancy_pct) * static_cast<double>(duration);
      if (signature.est_occupancy_pct < threshold) {
        t.low_ns += duration;
        context.ChargeLaunched(context.StepsOf(device_id), t.step_costs, block, i, duration);
        ++t.low_kernels;
        auto [it, inserted] = t.low_by_signature.try_emplace(
            block.signature[i], std::array<int64_t, 3>{0, block.start_ns[i], block.end_ns[i]});
        it->second[0] += duration;
      }
    }
  }
  std::vector<Finding> out;
  for (auto& [device_id, t] : totals) {
    // Said whether the rule fires or not: without them it may not.
    if (t.zero_estimate > 0 && context.notes != nullptr) {
      context.notes->push_back(fmt::format(
          "low-occupancy, device {}: {} kernel launch(es) ({}) with a 0 % occupancy estimate "
          "above 48 KB of shared memory left out (Kineto's calculator assumes at most 48 KB per "
          "block: it found no resident block for kernels that ran)",
          device_id, t.zero_estimate, FormatDurationNs(t.zero_estimate_ns)));
    }
    if (t.kernel_ns <= 0) continue;
    const double weighted = t.weighted_pct_ns / static_cast<double>(t.kernel_ns);
    if (weighted >= threshold || t.low_ns <= 0) continue;
    Finding finding = NewFinding("low-occupancy", device_id, t.low_kernels, t.low_ns);
    finding.step_costs = std::move(t.step_costs);
    for (const auto& [signature, low] : t.low_by_signature) {
      const OpSignature& s = trace.signatures[signature];
      const int64_t ns = low[0];
      AddExample(finding.examples,
                 {low[1], low[2], ns,
                  fmt::format("{} at {} % est. occupancy: {} in all (its first launch)",
                              KernelShortName(trace, s), static_cast<int>(s.est_occupancy_pct),
                              FormatDurationNs(ns))});
    }
    KeepCostliestExamples(finding.examples);
    finding.evidence = fmt::format(
        "kernel-time-weighted est. achieved occupancy {:.1f} % (threshold {:.0f} %); {} kernel "
        "launches below the threshold ran {} of {} kernel time",
        weighted, threshold, t.low_kernels, FormatDurationNs(t.low_ns),
        FormatDurationNs(t.kernel_ns));
    if (t.without_estimate > 0) {
      finding.evidence +=
          fmt::format("; {} kernels without an estimate not counted", t.without_estimate);
      if (t.zero_estimate > 0) {
        finding.evidence += fmt::format(
            " ({} of them estimated at 0 % above 48 KB of shared memory: a failed estimate)",
            t.zero_estimate);
      }
    }
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace gpuroof
