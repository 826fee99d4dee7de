#include "gpuroof/analyses/copy_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

double MedianOf(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  if (n % 2 == 1) return values[n / 2];
  return values[n / 2 - 1] + (values[n / 2] - values[n / 2 - 1]) / 2.0;
}

struct Accumulator {
  CopyRow row;
  std::vector<int64_t> durations_ns;
  std::vector<double> bandwidths_gbps;
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
    if (row.pageable) n += row.bytes;
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
  std::map<int32_t, size_t> slot_of_device;
  std::vector<size_t> stream_slot(trace.streams.size());
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    auto [it, inserted] =
        slot_of_device.try_emplace(trace.streams[s].device_id, slot_of_device.size());
    stream_slot[s] = it->second;
  }
  std::vector<bool> copies_on(slot_of_device.size(), false);
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (EngineMovesBytes(block.engine[i])) copies_on[stream_slot[block.stream[i]]] = true;
    }
  }
  if (std::find(copies_on.begin(), copies_on.end(), true) == copies_on.end()) {
    throw InputError(trace.source,
                     "no memory copies or memsets in the trace (nothing for 'copies' to "
                     "summarize; was CUDA memcpy tracing on?)");
  }
  // Windows come from the engine load, so `copies` and `analyze` describe the same stretch.
  EngineLoadOptions load_options;
  load_options.window = options.window;
  std::map<int32_t, Window> windows;
  for (const DeviceLoad& load : ComputeEngineLoad(trace, load_options)) {
    windows[load.device_id] = load.window;
  }
  std::vector<DeviceCopies> devices(slot_of_device.size());
  for (const auto& [id, slot] : slot_of_device) {
    DeviceCopies& device = devices[slot];
    device.device_id = id;
    device.device_name = std::string(trace.DeviceName(id));
    if (copies_on[slot]) device.window = windows.at(id);
  }

  // Pass 2 (any order): the counted copies, grouped by device and copy class.
  std::map<std::tuple<size_t, int, int, int>, Accumulator> classes;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      Engine engine = block.engine[i];
      if (!EngineMovesBytes(engine)) continue;
      size_t slot = stream_slot[block.stream[i]];
      const Window& window = devices[slot].window;
      int64_t start = block.start_ns[i];
      int64_t end = block.end_ns[i];
      if (!OpCountsInWindow(start, end, window)) continue;
      const OpSignature& signature = trace.signatures[block.signature[i]];
      MemoryKind dst = engine == Engine::kMemset ? MemoryKind::kUnknown : signature.dst_kind;
      auto key = std::make_tuple(slot, EngineIndex(engine), static_cast<int>(signature.src_kind),
                                 static_cast<int>(dst));
      Accumulator& acc = classes[key];
      CopyRow& row = acc.row;
      if (row.count == 0) {
        row.engine = engine;
        row.src_kind = signature.src_kind;
        row.dst_kind = dst;
        row.pageable = IsPageableHostCopy(engine, signature.src_kind, dst);
      }
      ++row.count;
      row.bytes += block.bytes[i];
      row.sum_ns += std::min(end, window.end_ns) - std::max(start, window.start_ns);
      row.op_time_ns += end - start;
      acc.durations_ns.push_back(end - start);
      if (end > start) {
        acc.bandwidths_gbps.push_back(static_cast<double>(block.bytes[i]) /
                                      static_cast<double>(end - start));
      }
    }
  }
  for (auto& [key, acc] : classes) {
    CopyRow& row = acc.row;
    std::sort(acc.durations_ns.begin(), acc.durations_ns.end());
    row.median_ns = Median(acc.durations_ns).value_or(0.0);
    if (row.op_time_ns > 0) {
      row.bandwidth_gbps = static_cast<double>(row.bytes) / static_cast<double>(row.op_time_ns);
    }
    if (!acc.bandwidths_gbps.empty()) row.median_bandwidth_gbps = MedianOf(acc.bandwidths_gbps);
    devices[std::get<0>(key)].rows.push_back(row);  // map order: engine, source, destination
  }
  std::vector<DeviceCopies> result;
  for (const auto& [id, slot] : slot_of_device) {
    if (copies_on[slot]) result.push_back(std::move(devices[slot]));
  }
  return result;
}

}  // namespace gpuroof
