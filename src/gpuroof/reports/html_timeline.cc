#include "gpuroof/reports/html_timeline.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "gpuroof/format/number_format.h"
#include "gpuroof/reports/html_svg.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

constexpr double kLeftMargin = 80;  // lane names
constexpr double kPlotWidth = 880;
constexpr double kRightMargin = 16;
constexpr double kTopMargin = 18;  // marker labels
constexpr double kLaneHeight = 22;
constexpr double kLaneGap = 6;
constexpr double kAxisHeight = 24;
constexpr int kLevels = 8;  // busy fraction steps drawn per bin

struct Scale {
  int64_t start_ns = 0;
  int64_t length_ns = 1;
  double X(int64_t t) const {
    double clamped = static_cast<double>(std::clamp<int64_t>(t - start_ns, 0, length_ns));
    return kLeftMargin + clamped / static_cast<double>(length_ns) * kPlotWidth;
  }
};

void DrawLane(SvgBuilder& svg, const DeviceTimeline& timeline, const EngineBins& engine,
              const Scale& scale, double top) {
  int64_t range_ns = timeline.end_ns - timeline.start_ns;
  svg.Rect(kLeftMargin, top, kPlotWidth, kLaneHeight, "lane",
           fmt::format("{}: busy {} of {} ({:.2f} %)", EngineName(engine.engine),
                       HumanDurationNs(static_cast<double>(engine.total_busy_ns)),
                       HumanDurationNs(static_cast<double>(range_ns)),
                       100.0 * static_cast<double>(engine.total_busy_ns) /
                           static_cast<double>(std::max<int64_t>(range_ns, 1))));
  svg.Text(kLeftMargin - 6, top + kLaneHeight / 2 + 4, EngineName(engine.engine), "lane-name",
           "end");
  std::string css = fmt::format("busy e-{}", EngineName(engine.engine));
  size_t bins = engine.busy_ns.size();
  size_t run_start = 0;
  int run_level = -1;
  auto flush = [&](size_t end) {
    if (run_level <= 0) return;
    double height = kLaneHeight * run_level / kLevels;
    double x0 = scale.X(timeline.BinStartNs(run_start));
    double x1 = scale.X(timeline.BinStartNs(end - 1) + timeline.BinLengthNs(end - 1));
    svg.Rect(x0, top + kLaneHeight - height, x1 - x0, height, css);
  };
  for (size_t b = 0; b < bins; ++b) {
    double fraction = static_cast<double>(engine.busy_ns[b]) /
                      static_cast<double>(std::max<int64_t>(timeline.BinLengthNs(b), 1));
    // Any busy time shows: a bin that is busy at all gets at least the lowest step.
    int level =
        engine.busy_ns[b] > 0 ? std::max(1, static_cast<int>(std::lround(fraction * kLevels))) : 0;
    if (level != run_level) {
      flush(b);
      run_start = b;
      run_level = level;
    }
  }
  flush(bins);
}

void Marker(SvgBuilder& svg, double x, double top, double bottom, std::string_view label,
            std::string_view css, std::string_view anchor) {
  svg.Line(x, top, x, bottom, css);
  svg.Text(x + (anchor == "end" ? -3 : 3), top - 5, label, std::string(css) + "-label", anchor);
}

}  // namespace

int TimelinePlotBins() {
  return static_cast<int>(kPlotWidth);
}

std::string RenderTimelineSvg(const TimelineInput& input) {
  const DeviceTimeline& timeline = *input.timeline;
  const Window& window = *input.window;
  Scale scale{timeline.start_ns, std::max<int64_t>(timeline.end_ns - timeline.start_ns, 1)};
  double lanes_bottom =
      kTopMargin + static_cast<double>(timeline.engines.size()) * (kLaneHeight + kLaneGap);
  double height = lanes_bottom + kAxisHeight;
  SvgBuilder svg(kLeftMargin + kPlotWidth + kRightMargin, height, "timeline",
                 fmt::format("Timeline of device {}: engine busy time in {} bins",
                             timeline.device_id, timeline.bin_count()));
  for (size_t lane = 0; lane < timeline.engines.size(); ++lane) {
    DrawLane(svg, timeline, timeline.engines[lane], scale,
             kTopMargin + static_cast<double>(lane) * (kLaneHeight + kLaneGap));
  }
  // The time outside the window, shaded.
  double window_x0 = scale.X(window.start_ns);
  double window_x1 = scale.X(window.end_ns);
  if (window_x0 > kLeftMargin) {
    svg.Rect(kLeftMargin, kTopMargin, window_x0 - kLeftMargin, lanes_bottom - kTopMargin, "outside",
             "outside the window");
  }
  if (window_x1 < kLeftMargin + kPlotWidth) {
    svg.Rect(window_x1, kTopMargin, kLeftMargin + kPlotWidth - window_x1, lanes_bottom - kTopMargin,
             "outside", "outside the window");
  }
  for (size_t g = 0; g < input.gaps.size(); ++g) {
    const Gap& gap = input.gaps[g];
    double x0 = scale.X(gap.start_ns);
    double x1 = scale.X(gap.end_ns);
    // At least a pixel wide, so a short gap in a long trace is still seen.
    svg.Rect(x0, kTopMargin, std::max(x1 - x0, 1.0), lanes_bottom - kTopMargin, "gap",
             fmt::format("gap {}: {} idle from {} (after {}, before {})", g + 1,
                         HumanDurationNs(static_cast<double>(gap.duration_ns())),
                         RelativeTime(gap.start_ns, input.origin_ns), gap.before.label,
                         gap.after.label));
  }
  // With --window steady the window starts where the warm-up ends: say so on the marker.
  Marker(svg, window_x0, kTopMargin, lanes_bottom,
         window.policy == "steady" ? "steady state" : "window", "window", "start");
  Marker(svg, window_x1, kTopMargin, lanes_bottom, "window end", "window", "end");
  if (input.steady_start_ns) {
    // Labelled inside the plot: the warm-up is usually short, so the line sits near the window
    // start, whose label is above the plot.
    const double x = scale.X(*input.steady_start_ns);
    svg.Line(x, kTopMargin, x, lanes_bottom, "steady");
    svg.Text(x + 3, kTopMargin + 11, "steady from", "steady-label", "start");
  }
  // Time axis: five ticks over the range, after the trace's first GPU op.
  for (int tick = 0; tick <= 4; ++tick) {
    double x = kLeftMargin + kPlotWidth * tick / 4.0;
    svg.Line(x, lanes_bottom, x, lanes_bottom + 4, "axis");
    svg.Text(x, lanes_bottom + 16,
             HumanDurationNs(static_cast<double>(timeline.start_ns - input.origin_ns) +
                             static_cast<double>(scale.length_ns) * tick / 4.0),
             "tick",
             tick == 0   ? "start"
             : tick == 4 ? "end"
                         : "middle");
  }
  return svg.Finish();
}

}  // namespace gpuroof
