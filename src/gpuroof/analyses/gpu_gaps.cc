#include "gpuroof/analyses/gpu_gaps.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/analyses/device_slots.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// Where an op lives, so its label is built only for the few ops next to a listed gap.
struct OpRef {
  const ActivityBlock* block = nullptr;
  size_t index = 0;
};

struct ScanState {
  bool open = false;
  int64_t first_start_ns = 0;
  int64_t segment_end_ns = 0;  // end of the current union segment
  OpRef last_ender;            // the op whose end is segment_end_ns
  std::vector<Gap> gaps;
  int64_t gap_total_ns = 0;
};

GapNeighbor Describe(const Trace& trace, const OpRef& ref) {
  GapNeighbor neighbor;
  const OpSignature& signature = trace.signatures[ref.block->signature[ref.index]];
  neighbor.engine = ref.block->engine[ref.index];
  neighbor.stream_id = trace.streams[ref.block->stream[ref.index]].stream_id;
  const std::string_view name = trace.strings.Get(signature.name);
  if (EngineMovesBytes(neighbor.engine)) {
    neighbor.label = CopyLabel(neighbor.engine, signature.src_kind, signature.dst_kind);
  } else if (name.empty()) {
    neighbor.label = std::string(EngineName(neighbor.engine));
  } else if (IsKernelEngine(neighbor.engine)) {  // a kernel, a collective ("comm ncclDevKernel_…")
    neighbor.label =
        fmt::format("{} {}", EngineName(neighbor.engine), KernelShortName(trace, signature));
  } else {  // a whole-graph launch
    neighbor.label = fmt::format("{} {}", EngineName(neighbor.engine), name);
  }
  return neighbor;
}

}  // namespace

std::vector<DeviceGaps> ComputeGaps(const Trace& trace, const GapOptions& options) {
  if (options.min_ns <= 0) {
    throw InputError("--min", fmt::format("must be longer than 0, got {} ns", options.min_ns));
  }
  // A named object, not a structured binding: the lambda below uses it (clang < 16).
  const DeviceSlots slots = SlotDevicesOfStreams(trace);
  const std::vector<size_t>& stream_slot = slots.slot_of_stream;
  std::vector<ScanState> states(slots.size());
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    int64_t start = block.start_ns[i];
    int64_t end = block.end_ns[i];
    if (end <= start) return;
    ScanState& state = states[stream_slot[block.stream[i]]];
    if (!state.open) {
      state.open = true;
      state.first_start_ns = start;
      state.segment_end_ns = end;
      state.last_ender = {&block, i};
      return;
    }
    if (start > state.segment_end_ns) {
      int64_t idle_ns = start - state.segment_end_ns;
      if (idle_ns > options.min_ns) {
        Gap gap;
        gap.start_ns = state.segment_end_ns;
        gap.end_ns = start;
        gap.before = Describe(trace, state.last_ender);
        gap.after = Describe(trace, {&block, i});
        state.gaps.push_back(std::move(gap));
        state.gap_total_ns += idle_ns;
      }
      state.segment_end_ns = end;
      state.last_ender = {&block, i};
    } else if (end >= state.segment_end_ns) {
      // Ties go to the op that started later: it is the one the gap directly follows.
      state.segment_end_ns = end;
      state.last_ender = {&block, i};
    }
  });

  std::vector<DeviceGaps> result;
  for (const auto& [id, slot] : slots.slot_of_device) {
    ScanState& state = states[slot];
    if (!state.open) continue;
    DeviceGaps device;
    device.device_id = id;
    device.device_name = std::string(trace.DeviceName(id));
    device.span_start_ns = state.first_start_ns;
    device.span_end_ns = state.segment_end_ns;
    device.gap_total_ns = state.gap_total_ns;
    device.gaps = std::move(state.gaps);
    std::stable_sort(device.gaps.begin(), device.gaps.end(),
                     [](const Gap& a, const Gap& b) { return a.duration_ns() > b.duration_ns(); });
    result.push_back(std::move(device));
  }
  if (result.empty()) {
    throw InputError(trace.source,
                     "no GPU activity that takes time: the trace has no usable kernel, memcpy or "
                     "memset records of positive length " +
                         trace.diagnostics.NoRecordsCause());
  }
  return result;
}

}  // namespace gpuroof
