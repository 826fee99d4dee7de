#include "gpuroof/reports/html_engine_bars.h"

#include <algorithm>

#include <fmt/format.h>

#include "gpuroof/analyses/roofline.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/reports/analyze_report.h"
#include "gpuroof/reports/html_svg.h"

namespace gpuroof {

namespace {

// Geometry of the chart, in CSS pixels.
constexpr double kPlotHeight = 240;
constexpr double kTopMargin = 40;     // two label lines above the tallest bar
constexpr double kBottomMargin = 44;  // engine names and the group caption
constexpr double kLeftMargin = 76;    // axis tick labels
constexpr double kBarWidth = 56;
constexpr double kBarGap = 12;
constexpr double kRooflineLabelWidth = 76;  // right of each group: "roofline" and its value
constexpr double kGroupGap = 24;
// Labels are 11 px system-ui text: 0.6 em per character is a safe upper bound for digits and
// Latin letters, so widths laid out from it never let two labels touch.
constexpr double kCharWidth = 6.6;

double TextWidth(const std::string& text) {
  return kCharWidth * static_cast<double>(text.size());
}

// A bar's value in the chart's unit.
double BarValue(const DeviceLoad& device, int64_t busy_ns, bool per_unit) {
  if (per_unit) return PerUnitUs(busy_ns, device).value_or(0.0);
  return static_cast<double>(busy_ns) / 1e6;
}

// "16.35 us" for either unit: both are turned back into ns for the one human formatter.
std::string ValueText(double value, bool per_unit) {
  return HumanDurationNs(value * (per_unit ? 1e3 : 1e6));
}

std::string BarTitle(const DeviceLoad& device, const EngineLoad& load, const Roofline& roofline,
                     bool per_unit) {
  std::string title =
      fmt::format("{}: {} ops, busy {} in the {} window ({:.2f} % duty)", EngineName(load.engine),
                  load.ops, HumanDurationNs(static_cast<double>(load.busy_ns)),
                  HumanDurationNs(static_cast<double>(device.window.length_ns())),
                  DutyPercent(load.busy_ns, device.window).value_or(0.0));
  if (per_unit) {
    title += fmt::format(", {:.3f} us/{}", PerUnitUs(load.busy_ns, device).value_or(0.0),
                         device.unit_name);
  }
  if (roofline.has_bottleneck && load.engine == roofline.bottleneck) {
    title += "; the bottleneck";
  }
  for (const Headroom& h : roofline.headroom) {
    if (h.engine == load.engine) title += "; headroom " + HeadroomFactorText(h);
  }
  return title;
}

}  // namespace

EngineBarsLayout LayoutEngineBars(const std::vector<BarGroupInput>& groups) {
  EngineBarsLayout layout;
  layout.per_unit = !groups.empty() &&
                    std::all_of(groups.begin(), groups.end(),
                                [](const BarGroupInput& g) { return g.device->units.has_value(); });
  std::string unit = groups.empty() ? "frame" : groups.front().device->unit_name;
  layout.axis_label = layout.per_unit ? "busy per " + unit : "busy in the window";
  for (const BarGroupInput& group : groups) {
    for (const EngineLoad& load : group.device->engines) {
      if (load.ops > 0) {
        layout.max_value =
            std::max(layout.max_value, BarValue(*group.device, load.busy_ns, layout.per_unit));
      }
    }
  }
  layout.plot_top = kTopMargin;
  layout.plot_bottom = kTopMargin + kPlotHeight;
  layout.height = layout.plot_bottom + kBottomMargin;
  double x = kLeftMargin;
  for (const BarGroupInput& group : groups) {
    const DeviceLoad& device = *group.device;
    const Roofline& roofline = device.roofline;
    BarGroupGeometry geometry;
    geometry.label = group.label;
    geometry.x = x;
    double roofline_value = 0;
    if (roofline.has_bottleneck) {
      roofline_value = BarValue(device, roofline.bottleneck_busy_ns, layout.per_unit);
      geometry.roofline_label = ValueText(roofline_value, layout.per_unit);
    }
    // Each bar's slot is as wide as its widest label (value, headroom, engine name), so labels of
    // neighbouring bars never overlap, however long the numbers.
    double slot = kBarWidth;
    for (const EngineLoad& load : device.engines) {
      if (load.ops == 0) continue;
      const double value = BarValue(device, load.busy_ns, layout.per_unit);
      slot = std::max({slot, TextWidth(ValueText(value, layout.per_unit)),
                       TextWidth(std::string(EngineName(load.engine))), TextWidth("bottleneck"),
                       TextWidth("+" + ValueText(roofline_value - value, layout.per_unit))});
    }
    const double roofline_label_width = std::max(
        {kRooflineLabelWidth, TextWidth("roofline") + 8, TextWidth(geometry.roofline_label) + 8});
    double bar_x = x + kBarGap;
    for (const EngineLoad& load : device.engines) {
      if (load.ops == 0) continue;
      BarGeometry bar;
      bar.engine = load.engine;
      bar.value = BarValue(device, load.busy_ns, layout.per_unit);
      bar.height = layout.max_value > 0 ? bar.value / layout.max_value * kPlotHeight : 0;
      bar.x = bar_x + (slot - kBarWidth) / 2;
      bar.y = layout.plot_bottom - bar.height;
      bar.width = kBarWidth;
      bar.bottleneck = roofline.has_bottleneck && load.engine == roofline.bottleneck;
      bar.value_label = ValueText(bar.value, layout.per_unit);
      if (roofline.has_bottleneck && !bar.bottleneck) {
        bar.headroom_label =
            fmt::format("+{}", ValueText(roofline_value - bar.value, layout.per_unit));
      }
      bar.title = BarTitle(device, load, roofline, layout.per_unit);
      if (bar.bottleneck) geometry.roofline_y = bar.y;
      geometry.bars.push_back(std::move(bar));
      bar_x += slot + kBarGap;
    }
    geometry.roofline_label_width = roofline_label_width;
    geometry.width = (bar_x - x) + roofline_label_width;
    // The caption under the group may not reach into the next group: shortened with "…" (the
    // full text is in the section heading).
    const auto fits = static_cast<size_t>((geometry.width + kGroupGap - 8) / kCharWidth);
    if (geometry.label.size() > fits && fits > 1) {
      geometry.label = geometry.label.substr(0, fits - 1) + "…";
    }
    x += geometry.width + kGroupGap;
    layout.groups.push_back(std::move(geometry));
  }
  layout.width = x;
  return layout;
}

std::string RenderEngineBarsSvg(const EngineBarsLayout& layout) {
  SvgBuilder svg(layout.width, layout.height, "bars",
                 fmt::format("Engine busy time {} with the roofline at the tallest bar",
                             layout.per_unit ? "per unit" : "in the window"));
  // Grid lines at quarters of the tallest bar, labelled on the axis.
  for (int quarter = 0; quarter <= 4; ++quarter) {
    double y = layout.plot_bottom - (layout.plot_bottom - layout.plot_top) * quarter / 4.0;
    svg.Line(kLeftMargin - 4, y, layout.width, y, quarter == 0 ? "axis" : "grid");
    svg.Text(kLeftMargin - 8, y + 4, ValueText(layout.max_value * quarter / 4.0, layout.per_unit),
             "tick", "end");
  }
  svg.Text(4, 12, layout.axis_label, "axis-label");
  for (const BarGroupGeometry& group : layout.groups) {
    svg.BeginGroup("bar-group");
    for (const BarGeometry& bar : group.bars) {
      std::string css =
          fmt::format("bar e-{}{}", EngineName(bar.engine), bar.bottleneck ? " bottleneck" : "");
      svg.Rect(bar.x, bar.y, bar.width, bar.height, css, bar.title);
      double center = bar.x + bar.width / 2;
      svg.Text(center, bar.y - 4, bar.value_label, "value", "middle");
      if (bar.bottleneck) {
        svg.Text(center, bar.y - 18, "bottleneck", "mark", "middle");
      } else if (!bar.headroom_label.empty()) {
        svg.Text(center, bar.y - 18, bar.headroom_label, "headroom", "middle");
      }
      svg.Text(center, layout.plot_bottom + 14, EngineName(bar.engine), "engine", "middle");
    }
    if (group.roofline_y) {
      double right = group.x + group.width;
      svg.Line(group.x, *group.roofline_y, right, *group.roofline_y, "roofline");
      svg.Text(right - group.roofline_label_width + 6, *group.roofline_y - 4, "roofline",
               "roofline-label");
      svg.Text(right - group.roofline_label_width + 6, *group.roofline_y + 12, group.roofline_label,
               "roofline-label");
    }
    svg.Text(group.x + (group.width - group.roofline_label_width) / 2, layout.plot_bottom + 34,
             group.label, "group-label", "middle");
    svg.EndGroup();
  }
  return svg.Finish();
}

}  // namespace gpuroof
