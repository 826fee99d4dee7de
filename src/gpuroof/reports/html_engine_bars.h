#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/model/engine.h"

namespace gpuroof {

// One group of bars: one device of one trace.
struct BarGroupInput {
  std::string label;  // short caption under the bars, e.g. "#1 · device 0"
  const DeviceLoad* device = nullptr;
};

// Where one engine's bar goes, in SVG user units (y grows downwards).
struct BarGeometry {
  Engine engine = Engine::kKernel;
  double value = 0;  // us per unit (per-unit scale) or busy ms (busy scale)
  double x = 0;
  double y = 0;  // top of the bar
  double width = 0;
  double height = 0;
  bool bottleneck = false;
  std::string value_label;     // e.g. "16.35 us"
  std::string headroom_label;  // "+10.71 us" for every bar but the bottleneck's, else ""
  std::string title;           // hover text: every figure of the bar
};

struct BarGroupGeometry {
  std::string label;
  double x = 0;  // left edge of the group
  double width = 0;
  std::vector<BarGeometry> bars;     // engines with ops in the window, display order
  std::optional<double> roofline_y;  // the top of the tallest bar; unset without a bottleneck
  std::string roofline_label;        // e.g. "16.35 us"
  double roofline_label_width = 0;   // room right of the bars for "roofline" and its value
};

// The engine-bar chart of several devices (and traces) on one scale.
struct EngineBarsLayout {
  // Per unit (us/unit) when every device has units; else busy time in the window (ms), so bars
  // of groups with and without units are never mixed on one axis.
  bool per_unit = false;
  std::string axis_label;  // e.g. "busy per frame" or "busy in the window"
  double max_value = 0;    // the tallest bar of all groups: the top of the plot
  double width = 0;
  double height = 0;
  double plot_top = 0;     // y of max_value
  double plot_bottom = 0;  // y of 0
  std::vector<BarGroupGeometry> groups;
};

// Lays the bars out: every bar's height is its value / max_value x the plot height, so heights
// are proportional to busy time per unit across all groups; each group's roofline is at its
// tallest bar (the bottleneck, ComputeRoofline()).
EngineBarsLayout LayoutEngineBars(const std::vector<BarGroupInput>& groups);

// The layout as an <svg> (classes "bars", "bar e-<engine>", "bottleneck", "roofline").
std::string RenderEngineBarsSvg(const EngineBarsLayout& layout);

}  // namespace gpuroof
