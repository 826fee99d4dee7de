#include "gpuroof/analyses/copy_summary.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/analyses/statistics.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// Same rule as ComputeEngineLoad(): an op counts when it overlaps the window for a positive time,
// or when it has zero length and lies inside the closed window.
bool Intersects(int64_t start, int64_t end, const Window& window) {
  if (start == end) return start >= window.start_ns && start <= window.end_ns;
  return start < window.end_ns && end > window.start_ns;
}

void Extend(DeviceSpan& span, Engine engine, int64_t start, int64_t end) {
  if (!span.has_ops) {
    span.first_start_ns = start;
    span.last_end_ns = end;
    span.has_ops = true;
  } else {
    span.first_start_ns = std::min(span.first_start_ns, start);
    span.last_end_ns = std::max(span.last_end_ns, end);
  }
  if (engine == Engine::kKernel) {
    span.first_kernel_start_ns =
        span.has_kernels ? std::min(span.first_kernel_start_ns, start) : start;
    span.last_kernel_end_ns = span.has_kernels ? std::max(span.last_kernel_end_ns, end) : end;
    span.has_kernels = true;
  } else if (engine == Engine::kD2H) {
    span.last_d2h_end_ns = span.has_d2h ? std::max(span.last_d2h_end_ns, end) : end;
    span.has_d2h = true;
  }
}

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
  std::vector<DeviceSpan> spans(slot_of_device.size());
  std::vector<bool> copies_on(slot_of_device.size(), false);
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      size_t slot = stream_slot[block.stream[i]];
      Extend(spans[slot], block.engine[i], block.start_ns[i], block.end_ns[i]);
      if (EngineMovesBytes(block.engine[i])) copies_on[slot] = true;
    }
  }
  if (std::find(copies_on.begin(), copies_on.end(), true) == copies_on.end()) {
    throw InputError(trace.source,
                     "no memory copies or memsets in the trace (nothing for 'copies' to "
                     "summarize; was CUDA memcpy tracing on?)");
  }
  int64_t trace_first = std::numeric_limits<int64_t>::max();
  int64_t trace_last = std::numeric_limits<int64_t>::min();
  for (const DeviceSpan& span : spans) {
    if (!span.has_ops) continue;
    trace_first = std::min(trace_first, span.first_start_ns);
    trace_last = std::max(trace_last, span.last_end_ns);
  }
  std::vector<DeviceCopies> devices(slot_of_device.size());
  for (const auto& [id, slot] : slot_of_device) {
    DeviceCopies& device = devices[slot];
    device.device_id = id;
    device.device_name = std::string(trace.DeviceName(id));
    if (copies_on[slot]) {
      device.window = ResolveWindow(trace, options.window, spans[slot], trace_first, trace_last);
    }
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
      if (!Intersects(start, end, window)) continue;
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
