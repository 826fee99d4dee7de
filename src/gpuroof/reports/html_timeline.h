#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/analyses/timeline_bins.h"
#include "gpuroof/analyses/window.h"

namespace gpuroof {

// The bins ComputeTimelineBins() should make for one timeline: one per pixel column of the plot.
int TimelinePlotBins();

// What one device's timeline shows.
struct TimelineInput {
  const DeviceTimeline* timeline = nullptr;
  const Window* window = nullptr;
  std::span<const Gap> gaps;  // highlighted (the largest ones); any order
  // Where MSER-5 finds the warm-up over (analyses/steady_state.h), when the window is not
  // already the steady one: a dotted line labelled "steady from" inside the plot.
  std::optional<int64_t> steady_start_ns;
  // The trace's first GPU op (Trace::FirstGpuOpNs): gap times and axis ticks count from it, as
  // every other time on the page and `gpuroof gaps` do (a device that starts late reads late).
  int64_t origin_ns = 0;
};

// One swimlane per engine busy in the range: in each bin a bar whose height is the engine's busy
// fraction of the bin (in eighths, so runs of equal bins merge into one rectangle and the page
// stays small), the time outside the window shaded, the window's edges drawn as lines (the start
// labelled "steady state" when the window is the auto-detected steady one, policy "steady"), the
// gaps as highlighted spans with their figures as hover text. Times on the axis are from the range
// start.
std::string RenderTimelineSvg(const TimelineInput& input);

}  // namespace gpuroof
