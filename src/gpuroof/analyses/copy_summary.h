#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// One copy class of one device: an engine (copy direction, or memset) and the memory kinds of
// its two sides (docs/metrics.md, "Copies"). Figures cover the ops counted in the window.
struct CopyRow {
  Engine engine = Engine::kH2D;
  MemoryKind src_kind = MemoryKind::kUnknown;   // memsets: the memory set
  MemoryKind dst_kind = MemoryKind::kUnknown;   // memsets: unused
  int64_t count = 0;                            // ops counted in the window
  uint64_t bytes = 0;                           // bytes of the counted ops (whole, not clipped)
  int64_t sum_ns = 0;                           // sum of clipped durations
  int64_t op_time_ns = 0;                       // sum of unclipped durations
  double median_ns = 0;                         // median unclipped duration
  ByteRate rate;                                // the bandwidth's bytes and time (ByteRate)
  std::optional<double> bandwidth_gbps;         // rate.gbps(): timed bytes / their op time
  std::optional<double> median_bandwidth_gbps;  // median of bytes / duration over the copies
                                                // that take time; unset when none does
  bool pageable = false;  // host side is pageable memory (H2D from it, D2H to it)
};

// Copy classes of one device, in engine display order, then source and destination kind.
struct DeviceCopies {
  int32_t device_id = 0;
  std::string device_name;
  Window window;
  std::vector<CopyRow> rows;  // empty when no copy of the device falls in the window

  int64_t pageable_count() const;
  uint64_t pageable_bytes() const;
  int64_t pageable_time_ns() const;  // their op time (unclipped): the time at stake
};

struct CopySummaryOptions {
  WindowSpec window;
  // The engine load of `window`, when the caller has it already: one pass over the trace saved.
  const std::vector<DeviceLoad>* engine_load = nullptr;
};

// Per-device copy summary of `trace`, devices in ascending id order; a device that has no copy
// or memset at all is left out. The window and the rule for which ops count are those of
// ComputeEngineLoad(). Throws InputError naming the trace when it has no copy or memset, or when
// the window is outside the trace's GPU activity.
std::vector<DeviceCopies> ComputeCopySummary(const Trace& trace, const CopySummaryOptions& options);

// "H2D Pageable->Device", "D2H Device->Pinned", "memset Device".
std::string CopyLabel(Engine engine, MemoryKind src_kind, MemoryKind dst_kind);

// True when the host side of a copy is pageable memory: H2D from it, or D2H to it. Such copies
// are staged through a pinned buffer by the driver and cannot overlap with kernels.
bool IsPageableHostCopy(Engine engine, MemoryKind src_kind, MemoryKind dst_kind);

}  // namespace gpuroof
