// Copy contention (docs/metrics.md, "Copy contention"): how fast each copy direction moves bytes
// while the opposite direction is busy versus while it is idle. PCIe and NVLink are full-duplex
// on paper; in practice a busy D2H often slows H2D (shared copy engines, host memory bandwidth,
// IOMMU), and this shows it from one trace instead of two runs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/window.h"
#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// The copy time of one direction in one class (opposite direction busy, or idle), and the bytes
// attributed to that time: each copy's bytes are split in proportion to its time in each class.
struct ContentionClass {
  int64_t time_ns = 0;  // sum over the copies of their (clipped) time in this class
  double bytes = 0;     // sum of bytes x time in this class / the copy's whole duration
  // bytes / time (GB/s = B/ns); unset when the class has no time.
  std::optional<double> bandwidth_gbps() const;
};

// One copy direction of one device, over the copies counted in the window.
struct DirectionContention {
  Engine engine = Engine::kH2D;    // H2D or D2H
  Engine opposite = Engine::kD2H;  // the other one
  int64_t ops = 0;                 // counted copies that take time in the window
  ContentionClass opposite_busy;   // time overlapped by the opposite direction's busy union
  ContentionClass opposite_idle;   // the rest of the copies' time

  int64_t time_ns() const { return opposite_busy.time_ns + opposite_idle.time_ns; }
  double bytes() const { return opposite_busy.bytes + opposite_idle.bytes; }
  // 100 x opposite_busy time / time; unset when time is 0.
  std::optional<double> busy_share_pct() const;
  // 100 x (1 - busy bandwidth / idle bandwidth): the share of its bandwidth the direction loses
  // against a busy opposite (negative when it is faster). Unset when either class has no time
  // or the idle bandwidth is 0.
  std::optional<double> loss_pct() const;
};

struct DeviceContention {
  int32_t device_id = 0;
  std::string device_name;
  Window window;
  std::vector<DirectionContention> directions;  // H2D, then D2H; only those with ops
  // H2D and D2H copies counted in the window that take no time there (zero duration): no
  // bandwidth and no engine time, left out of the directions.
  int64_t zero_time_copies = 0;
  uint64_t zero_time_bytes = 0;
};

struct CopyContentionOptions {
  WindowSpec window;
};

// Copy contention per device (ascending id) of `trace`, for the devices with an H2D or D2H copy
// in the window (one that takes no time is only counted in zero_time_copies). The windows and the
// rule for which ops count are those of ComputeEngineLoad(); ops are clipped to the window. One
// ordered pass (ForEachInStartOrder); memory O(devices + copies running at once). Throws InputError
// naming the trace when it has no H2D or D2H copy at all, when none takes time in the window
// (saying how many take none), or when the window is outside its GPU activity.
std::vector<DeviceContention> ComputeCopyContention(const Trace& trace,
                                                    const CopyContentionOptions& options);

}  // namespace gpuroof
