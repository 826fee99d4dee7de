#include "gpuroof/analyses/roofline.h"

namespace gpuroof {

std::optional<double> OverlapFactor(const EngineLoad& load) {
  if (load.busy_ns <= 0) return std::nullopt;
  // The exact sum: sum_ns clamps at the int64 maximum.
  const WideSum sum = load.exact_sum_ns > 0 ? load.exact_sum_ns : load.sum_ns;
  return static_cast<double>(sum) / static_cast<double>(load.busy_ns);
}

std::optional<double> DutyPercent(int64_t busy_ns, const Window& window) {
  if (window.length_ns() <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(busy_ns) / static_cast<double>(window.length_ns());
}

std::optional<double> BandwidthGBps(const EngineLoad& load) {
  if (!EngineMovesBytes(load.engine)) return std::nullopt;
  return load.rate.gbps();
}

std::optional<double> PerUnitUs(int64_t ns, const DeviceLoad& device) {
  if (!device.units || *device.units <= 0) return std::nullopt;
  // One division, so the result is the correctly rounded quotient (300 ns / 3 units = 0.1 us).
  return static_cast<double>(ns) / (1e3 * static_cast<double>(*device.units));
}

Roofline ComputeRoofline(const DeviceLoad& device) {
  Roofline roofline;
  for (const EngineLoad& load : device.engines) {
    if (load.ops > 0 && load.busy_ns > roofline.bottleneck_busy_ns) {
      roofline.bottleneck = load.engine;
      roofline.bottleneck_busy_ns = load.busy_ns;
    }
  }
  // No engine busy for a positive time (every op in the window has zero length): no bottleneck.
  roofline.has_bottleneck = roofline.bottleneck_busy_ns > 0;
  if (!roofline.has_bottleneck) return roofline;
  roofline.per_unit_us = PerUnitUs(roofline.bottleneck_busy_ns, device);
  if (device.units && roofline.bottleneck_busy_ns > 0) {
    roofline.units_per_s = static_cast<double>(*device.units) /
                           (static_cast<double>(roofline.bottleneck_busy_ns) / 1e9);
  }
  for (const EngineLoad& load : device.engines) {
    if (load.ops == 0 || load.engine == roofline.bottleneck) continue;
    Headroom headroom;
    headroom.engine = load.engine;
    auto bottleneck_per_unit = PerUnitUs(roofline.bottleneck_busy_ns, device);
    auto engine_per_unit = PerUnitUs(load.busy_ns, device);
    if (bottleneck_per_unit && engine_per_unit) {
      headroom.per_unit_gap_us = *bottleneck_per_unit - *engine_per_unit;
    }
    if (load.busy_ns > 0) {
      headroom.factor =
          static_cast<double>(roofline.bottleneck_busy_ns) / static_cast<double>(load.busy_ns);
    }
    roofline.headroom.push_back(headroom);
  }
  return roofline;
}

}  // namespace gpuroof
