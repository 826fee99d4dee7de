#pragma once

#include <optional>
#include <vector>

#include "gpuroof/analyses/engine_load.h"

namespace gpuroof {

// Ratios of one engine's load (docs/metrics.md). Each is unset when its denominator is zero.
std::optional<double> OverlapFactor(const EngineLoad& load);               // sum / busy
std::optional<double> DutyPercent(int64_t busy_ns, const Window& window);  // 100 busy / window
std::optional<double> BandwidthGBps(const EngineLoad& load);               // bytes / op time (GB/s)
std::optional<double> PerUnitUs(int64_t ns, const DeviceLoad& device);     // ns / units, in us

// How much an engine could grow before it binds.
struct Headroom {
  Engine engine = Engine::kKernel;
  double per_unit_gap_us = 0;  // roofline per unit minus this engine's busy per unit (us)
  double factor = 0;           // bottleneck busy / this engine's busy (x); 0 when busy is 0
};

// The tallest engine bar of a device: the bottleneck and the throughput it allows.
struct Roofline {
  bool has_bottleneck = false;  // false when no engine was busy for a positive time
  Engine bottleneck = Engine::kKernel;
  int64_t bottleneck_busy_ns = 0;
  std::optional<double> per_unit_us;  // bottleneck busy per unit (us/unit)
  std::optional<double> units_per_s;  // units / bottleneck busy (s)
  std::vector<Headroom> headroom;     // every other engine present, in engine order
};

// The engine with the largest busy time (ties: the earlier engine in display order). A device
// whose ops all have zero length has no bottleneck (has_bottleneck false, nothing else set).
Roofline ComputeRoofline(const DeviceLoad& device);

}  // namespace gpuroof
