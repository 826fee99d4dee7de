#pragma once

#include <cstdint>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// How the engines of one device overlapped in its window (docs/metrics.md, "Engine overlap").
struct EngineOverlap {
  int32_t device_id = 0;
  std::vector<Engine> engines;  // engines with ops in the window, in display order
  // intersection_ns[i][j]: time engines i and j were both busy (length of the intersection of
  // their busy unions); the diagonal is each engine's busy time.
  std::vector<std::vector<int64_t>> intersection_ns;
  int64_t idle_ns = 0;  // window time when no engine was busy
  // Communication hidden behind compute: time the comm engine was busy while compute (kernels or
  // whole-graph launches) was; docs/metrics.md, "Communication".
  int64_t comm_hidden_ns = 0;
};

// The pairwise busy-time intersections of every device in `loads` (as ComputeEngineLoad made
// them, whose windows, busy times and any-op unions it reuses). One sweep over the ops in start
// order; memory O(devices x engines^2).
std::vector<EngineOverlap> ComputeEngineOverlap(const Trace& trace,
                                                const std::vector<DeviceLoad>& loads);

}  // namespace gpuroof
