// pageable-copy, serialised-copies and exposed-comm: copies and collectives that do not run
// alongside compute (docs/findings.md).
#include <algorithm>
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

// Charges the parts of `segments` that `covered` does not cover to the steps they overlap
// (nothing to charge, and nothing built, without steps).
void ChargeExposedSegments(const FindingSteps& steps, StepCosts& costs, const Segments& segments,
                           const Segments& covered) {
  if (steps.intervals.empty()) return;
  ChargeSegments(steps, costs, UncoveredSegments(segments, covered));
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
      ChargeStep(context.StepsOf(device_id), finding.step_costs, block.start_ns[i], duration);
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
    ChargeExposedSegments(context.StepsOf(device.device_id), finding.step_costs, device.copies,
                          device.compute);
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
    ChargeExposedSegments(context.StepsOf(device.device_id), finding.step_costs, device.comm,
                          device.compute);
    finding.evidence =
        fmt::format("collectives busy {}, {} of it ({:.1f} %) with no compute kernel running",
                    FormatDurationNs(comm_busy), FormatDurationNs(exposed),
                    100.0 * static_cast<double>(exposed) / static_cast<double>(comm_busy));
    out.push_back(std::move(finding));
  }
  return out;
}

}  // namespace gpuroof
