#include "gpuroof/analyses/copy_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/device_slots.h"
#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {

namespace {

struct Accumulator {
  CopyRow row;
  std::vector<int64_t> durations_ns;
  std::vector<double> bandwidths_gbps;
  // row.bytes, sum_ns and op_time_ns exact (those clamp at the int64 maximum, said).
  WideSum exact_bytes = 0;
  WideSum exact_sum_ns = 0;
  WideSum exact_op_time_ns = 0;
};

}  // namespace

int64_t DeviceCopies::pageable_count() const {
  int64_t n = 0;
  for (const CopyRow& row : rows)
    if (row.pageable) n += row.count;
  return n;
}

uint64_t DeviceCopies::pageable_bytes() const {
  uint64_t n = 0;
  for (const CopyRow& row : rows)
    if (row.pageable) n = SaturatingAddBytes(n, row.bytes);
  return n;
}

int64_t DeviceCopies::pageable_time_ns() const {
  int64_t n = 0;
  for (const CopyRow& row : rows)
    if (row.pageable) n = SaturatingAdd(n, row.op_time_ns);  // clamped as the rows are
  return n;
}

std::string CopyLabel(Engine engine, MemoryKind src_kind, MemoryKind dst_kind) {
  if (engine == Engine::kMemset) {
    return fmt::format("memset {}", MemoryKindName(src_kind));
  }
  return fmt::format("{} {}->{}", EngineName(engine), MemoryKindName(src_kind),
                     MemoryKindName(dst_kind));
}

bool IsPageableHostCopy(Engine engine, MemoryKind src_kind, MemoryKind dst_kind) {
  return (engine == Engine::kH2D && src_kind == MemoryKind::kPageable) ||
         (engine == Engine::kD2H && dst_kind == MemoryKind::kPageable);
}

std::vector<DeviceCopies> ComputeCopySummary(const Trace& trace,
                                             const CopySummaryOptions& options) {
  // Pass 1 (any order): per-device spans for the window policies, and which devices copy.
  const auto [slot_of_device, stream_slot] = SlotDevicesOfStreams(trace);
  // Pass 1: which devices have copies, and how many ops each (device, signature) has, so the
  // per-class duration vectors are allocated once (millions of copies: growth costs page faults).
  std::vector<bool> copies_on(slot_of_device.size(), false);
  const size_t signatures = trace.signatures.size();
  std::vector<size_t> ops_of(signatures * slot_of_device.size(), 0);
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (!EngineMovesBytes(block.engine[i])) continue;
      const size_t slot = stream_slot[block.stream[i]];
      copies_on[slot] = true;
      ++ops_of[slot * signatures + block.signature[i]];
    }
  }
  if (std::find(copies_on.begin(), copies_on.end(), true) == copies_on.end()) {
    throw InputError(trace.source,
                     "no memory copies or memsets in the trace (nothing for 'copies' to "
                     "summarize; was CUDA memcpy tracing on?)");
  }
  // Windows come from the engine load, so `copies` and `analyze` describe the same stretch.
  std::vector<DeviceLoad> computed;
  std::map<int32_t, Window> windows;
  for (const DeviceLoad& load :
       GivenOrComputedEngineLoad(trace, options.window, options.engine_load, computed)) {
    windows[load.device_id] = load.window;
  }
  std::vector<DeviceCopies> devices(slot_of_device.size());
  for (const auto& [id, slot] : slot_of_device) {
    DeviceCopies& device = devices[slot];
    device.device_id = id;
    device.device_name = std::string(trace.DeviceName(id));
    if (!copies_on[slot]) continue;
    const auto window = windows.find(id);
    if (window != windows.end()) {
      device.window = window->second;
    } else {
      copies_on[slot] = false;  // left out by the engine load (its ops take no time), said there
    }
  }

  // Pass 2 (any order): the counted copies, grouped by device and copy class.
  std::map<std::tuple<size_t, int, int, int>, Accumulator> classes;
  // The class of an op follows from its device slot and signature: look the map up once per
  // pair, not once per op (std::map nodes do not move).
  std::vector<Accumulator*> class_of(signatures * slot_of_device.size(), nullptr);
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      Engine engine = block.engine[i];
      if (!EngineMovesBytes(engine)) continue;
      size_t slot = stream_slot[block.stream[i]];
      if (!copies_on[slot]) continue;
      const Window& window = devices[slot].window;
      int64_t start = block.start_ns[i];
      int64_t end = block.end_ns[i];
      if (!OpCountsInWindow(trace, block, i, window)) continue;
      Accumulator*& cached = class_of[slot * signatures + block.signature[i]];
      if (cached == nullptr) {
        const OpSignature& signature = trace.signatures[block.signature[i]];
        MemoryKind dst = engine == Engine::kMemset ? MemoryKind::kUnknown : signature.dst_kind;
        cached =
            &classes[std::make_tuple(slot, EngineIndex(engine),
                                     static_cast<int>(signature.src_kind), static_cast<int>(dst))];
        CopyRow& row = cached->row;
        row.engine = engine;
        row.src_kind = signature.src_kind;
        row.dst_kind = dst;
        row.pageable = IsPageableHostCopy(engine, signature.src_kind, dst);
        const size_t expected =
            cached->durations_ns.size() + ops_of[slot * signatures + block.signature[i]];
        cached->durations_ns.reserve(expected);
        cached->bandwidths_gbps.reserve(expected);
      }
      Accumulator& acc = *cached;
      CopyRow& row = acc.row;
      ++row.count;
      row.bytes = SaturatingAddBytes(row.bytes, block.bytes[i]);
      row.sum_ns = SaturatingAdd(row.sum_ns, SaturatingSub(std::min(end, window.end_ns),
                                                           std::max(start, window.start_ns)));
      row.op_time_ns = SaturatingAdd(row.op_time_ns, SaturatingSub(end, start));
      row.rate.Add(block.bytes[i], SaturatingSub(end, start));
      acc.exact_bytes += block.bytes[i];
      acc.exact_sum_ns +=
          SaturatingSub(std::min(end, window.end_ns), std::max(start, window.start_ns));
      acc.exact_op_time_ns += SaturatingSub(end, start);
      acc.durations_ns.push_back(end - start);
      if (end > start) {
        acc.bandwidths_gbps.push_back(static_cast<double>(block.bytes[i]) /
                                      static_cast<double>(end - start));
      }
    }
  }
  std::vector<int64_t> clamped_sums(devices.size(), 0);  // by slot
  for (auto& [key, acc] : classes) {
    CopyRow& row = acc.row;
    for (WideSum exact : {acc.exact_bytes, acc.exact_sum_ns, acc.exact_op_time_ns}) {
      if (exact > kWideInt64Max) ++clamped_sums[std::get<0>(key)];
    }
    row.median_ns = SelectMedian(acc.durations_ns).value_or(0.0);
    row.bandwidth_gbps = row.rate.gbps();
    if (!acc.bandwidths_gbps.empty()) {
      row.median_bandwidth_gbps = *SelectMedian(acc.bandwidths_gbps);
    }
    devices[std::get<0>(key)].rows.push_back(row);  // map order: engine, source, destination
  }
  std::vector<DeviceCopies> result;
  for (const auto& [id, slot] : slot_of_device) {
    if (clamped_sums[slot] > 0) {
      Window& window = devices[slot].window;
      const std::string note = fmt::format(
          "warning: {} copy-class sum(s) (bytes, time) pass the int64 maximum and are written as "
          "{}; GB/s uses the exact sums",
          clamped_sums[slot], std::numeric_limits<int64_t>::max());
      window.note = window.note.empty() ? note : window.note + "; " + note;
    }
    if (copies_on[slot]) result.push_back(std::move(devices[slot]));
  }
  return result;
}

}  // namespace gpuroof
