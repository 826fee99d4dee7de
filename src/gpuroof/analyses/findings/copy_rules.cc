// pageable-copy, serialised-copies and exposed-comm: copies and collectives that do not run
// alongside compute (docs/findings.md).
#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {

namespace {

bool IsHostDeviceCopy(Engine engine) {
  return engine == Engine::kH2D || engine == Engine::kD2H;
}

const DeviceActivity* TimelineOf(const std::vector<DeviceActivity>& devices, int32_t id) {
  for (const DeviceActivity& device : devices) {
    if (device.device_id == id) return &device;
  }
  return nullptr;
}

// Charges the time of `ops` (start order) that `covered` (sorted, disjoint) does not cover to
// the steps that launched it (FindingContext::LaunchedAt): each instant of their union goes to
// the earliest-starting op running then, so the charges add up to the uncovered length of the
// union, as the cost does (nothing to charge, and nothing built, without steps).
void ChargeExposedByLaunch(const FindingContext& context, const FindingSteps& steps,
                           StepCosts& costs, const std::vector<OpSpan>& ops,
                           const Segments& covered) {
  if (steps.intervals.empty()) return;
  int64_t reached = std::numeric_limits<int64_t>::min();
  size_t first = 0;  // the first part of `covered` that ends after the pieces so far
  for (const OpSpan& op : ops) {
    // The op's piece of the union not charged yet: pieces are disjoint and in time order.
    const int64_t start = std::max(op.start_ns, reached);
    const int64_t end = op.end_ns;
    if (end <= start) continue;
    reached = end;
    while (first < covered.size() && covered[first].second <= start)
      ++first;
    int64_t hidden = 0;
    for (size_t k = first; k < covered.size() && covered[k].first < end; ++k)
      hidden += std::min(end, covered[k].second) - std::max(start, covered[k].first);
    if (end - start - hidden > 0) {
      context.ChargeLaunched(steps, costs, *op.block, op.row, end - start - hidden);
    }
  }
}

}  // namespace

std::vector<Finding> FindPageableAsyncCopies(const FindingContext& context) {
  const Trace& trace = context.trace;
  std::map<int32_t, Finding> by_device;
  std::map<int32_t, uint64_t> bytes;
  std::map<int32_t, int64_t> without_call;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (!IsHostDeviceCopy(block.engine[i])) continue;
      const OpSignature& signature = trace.signatures[block.signature[i]];
      if (signature.src_kind != MemoryKind::kPageable &&
          signature.dst_kind != MemoryKind::kPageable) {
        continue;
      }
      const int32_t device_id = trace.streams[block.stream[i]].device_id;
      const DeviceActivity* device = TimelineOf(context.devices, device_id);
      if (device == nullptr || !OpCountsInWindow(trace, block, i, device->window)) continue;
      const ApiCall* call = context.launch_calls.Of(block, i);
      if (call == nullptr) {
        ++without_call[device_id];
        continue;
      }
      const std::string_view name = trace.strings.Get(call->name);
      if (name.find("Async") == std::string_view::npos) continue;  // sync copies: sync-call
      Finding& finding = by_device[device_id];
      const int64_t duration = block.end_ns[i] - block.start_ns[i];
      ++finding.count;
      finding.cost_ns = SaturatingAdd(finding.cost_ns, duration);
      bytes[device_id] = SaturatingAddBytes(bytes[device_id], block.bytes[i]);
      ChargeStep(context.StepsOf(device_id), finding.step_costs, call->start_ns, duration);
      AddExample(finding.examples,
                 {block.start_ns[i], block.end_ns[i], duration,
                  fmt::format("{} {} bytes {}", name, block.bytes[i],
                              signature.src_kind == MemoryKind::kPageable ? "from pageable memory"
                                                                          : "to pageable memory")});
    }
  }
  std::vector<Finding> out;
  for (auto& [device_id, finding] : by_device) {
    ApplyRule(finding, "pageable-copy");
    finding.device_id = device_id;
    KeepCostliestExamples(finding.examples);
    finding.evidence =
        fmt::format("{} async copy(ies) with a pageable host side: {} bytes, {} of copy time",
                    finding.count, bytes[device_id], FormatDurationNs(finding.cost_ns));
    if (without_call[device_id] > 0) {
      finding.evidence +=
          fmt::format("; {} more pageable copies not counted: the trace lacks their launching call",
                      without_call[device_id]);
    }
    out.push_back(std::move(finding));
  }
  return out;
}

std::vector<Finding> FindSerialisedCopies(const FindingContext& context) {
  std::vector<Finding> out;
  for (const DeviceActivity& device : context.devices) {
    const int64_t copy_busy = SegmentsLengthNs(device.copies);
    const int64_t compute_busy = SegmentsLengthNs(device.compute);
    if (copy_busy == 0 || compute_busy == 0) continue;
    const int64_t exposed = UncoveredLengthNs(device.copies, device.compute);
    const int64_t any_busy = SegmentsLengthNs(device.any);
    // With every copy hidden under compute, the device is busy at least as long as its compute
    // and its copies each are: the gain is bounded by what the union exceeds that.
    const int64_t bound = std::max(compute_busy, copy_busy);
    const int64_t cost = std::min(exposed, std::max<int64_t>(0, any_busy - bound));
    if (cost <= 0) continue;
    Finding finding = NewFinding("serialised-copies", device.device_id,
                                 static_cast<int64_t>(device.copies.size()), cost);
    // Per step: the copy time with no kernel running in each step, scaled to the cost.
    ChargeExposedByLaunch(context, context.StepsOf(device.device_id), finding.step_costs,
                          device.copy_ops, device.compute);
    ScaleStepCosts(finding.step_costs, cost, exposed);
    finding.evidence = fmt::format(
        "copies busy {}, {} of it with no kernel running; kernels busy {}; the device busy {}. "
        "Overlapped, it would be busy at least {}: {} less ({:.2f}x)",
        FormatDurationNs(copy_busy), FormatDurationNs(exposed), FormatDurationNs(compute_busy),
        FormatDurationNs(any_busy), FormatDurationNs(any_busy - cost), FormatDurationNs(cost),
        static_cast<double>(any_busy) / static_cast<double>(any_busy - cost));
    out.push_back(std::move(finding));
  }
  return out;
}

std::vector<Finding> FindExposedComm(const FindingContext& context) {
  std::vector<Finding> out;
  for (const DeviceActivity& device : context.devices) {
    if (device.comm.empty()) continue;
    const int64_t comm_busy = SegmentsLengthNs(device.comm);
    const int64_t exposed = UncoveredLengthNs(device.comm, device.compute);
    if (exposed <= 0) continue;
    Finding finding = NewFinding("exposed-comm", device.device_id,
                                 static_cast<int64_t>(device.comm.size()), exposed);
    ChargeExposedByLaunch(context, context.StepsOf(device.device_id), finding.step_costs,
                          device.comm_ops, device.compute);
    finding.evidence =
        fmt::format("collectives busy {}, {} of it ({:.1f} %) with no compute kernel running",
                    FormatDurationNs(comm_busy), FormatDurationNs(exposed),
                    100.0 * static_cast<double>(exposed) / static_cast<double>(comm_busy));
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace gpuroof
