#pragma once

#include <optional>
#include <vector>

#include "gpuroof/analyses/engine_load.h"

namespace gpuroof {

// Ratios of one engine's load (docs/metrics.md). Each is unset when its denominator is zero.
std::optional<double> OverlapFactor(const EngineLoad& load);               // sum / busy
std::optional<double> DutyPercent(int64_t busy_ns, const Window& window);  // 100 busy / window
std::optional<double> BandwidthGBps(const EngineLoad& load);            // load.rate.gbps() (GB/s)
std::optional<double> PerUnitUs(int64_t ns, const DeviceLoad& device);  // ns / units, in us

// The engine with the largest busy time (ties: the earlier engine in display order). A device
// whose ops all have zero length has no bottleneck (has_bottleneck false, nothing else set).
// ComputeEngineLoad stores it in DeviceLoad::roofline: writers read that, computed once.
Roofline ComputeRoofline(const DeviceLoad& device);

}  // namespace gpuroof
