#include "gpuroof/reports/html_report.h"

#include <algorithm>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/roofline.h"
#include "gpuroof/format/html_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/table_cells.h"
#include "gpuroof/format/table_html.h"
#include "gpuroof/reports/analyze_report.h"
#include "gpuroof/reports/copy_report.h"
#include "gpuroof/reports/findings_report.h"
#include "gpuroof/reports/gaps_report.h"
#include "gpuroof/reports/html_engine_bars.h"
#include "gpuroof/reports/html_style.h"
#include "gpuroof/reports/html_timeline.h"
#include "gpuroof/reports/kernel_report.h"
#include "gpuroof/reports/ranges_report.h"
#include "gpuroof/reports/ranks_report.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// "#2 · device 0" with several traces, else "device 0".
std::string DeviceLabel(const HtmlReport& report, size_t trace_index, int32_t device_id) {
  if (report.traces.size() == 1) return fmt::format("device {}", device_id);
  return fmt::format("#{} · device {}", trace_index + 1, device_id);
}

std::string DeviceTitle(const ReportedTrace& reported, const DeviceLoad& device) {
  std::string title = fmt::format("{} · device {}", reported.trace->source, device.device_id);
  if (!device.device_name.empty()) title += " (" + device.device_name + ")";
  return title;
}

// A heat-table cell: the background's strength is `fraction` of the strongest colour.
HtmlCell HeatCell(std::string text, double fraction) {
  return {std::move(text), "num heat", HeatStyle(fraction)};
}

template <typename Device>
const Device* FindDevice(const std::vector<Device>& devices, int32_t device_id) {
  for (const Device& device : devices) {
    if (device.device_id == device_id) return &device;
  }
  return nullptr;
}

// The env stamps of the campaigns that recorded the traces: one small table each.
void WriteEnvironments(HtmlWriter& html, const HtmlReport& report) {
  for (const ReportEnvironment& environment : report.environments) {
    std::string applies;
    for (size_t t : environment.traces)
      applies += fmt::format("{}#{}", applies.empty() ? "" : ", ", t);
    html.Element(
        "h3", fmt::format("Recorded with (env stamp {}, traces {})", environment.source, applies));
    if (!environment.error.empty()) {
      html.Element("p", "env stamp unreadable: " + environment.error, {{"class", "warn"}});
      continue;
    }
    std::vector<std::vector<HtmlCell>> rows;
    for (const auto& [label, value] : environment.lines) {
      const bool flagged = label == "git" && value.find("dirty") != std::string::npos;
      rows.push_back({{label, "", ""}, {value, flagged ? "warn" : "", ""}});
    }
    WriteHtmlTable(html, {"", "value"}, rows, "environment");
  }
}

void WriteHeader(HtmlWriter& html, const HtmlReport& report) {
  html.Element("h1", "gpuroof report");
  std::string options = "window " + report.window_text;
  options += report.units_text.empty() ? " · no units" : " · " + report.units_text;
  html.Element("p", fmt::format("gpuroof {} · {}", report.tool_version, options),
               {{"class", "meta"}});
  std::vector<std::vector<HtmlCell>> rows;
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const Trace& trace = *report.traces[t].trace;
    std::string metadata;
    for (const auto& [key, value] : trace.metadata) {
      metadata += (metadata.empty() ? "" : "; ") + key + ": " + value;
    }
    std::string devices;
    for (const DeviceLoad& device : report.traces[t].devices) {
      devices += (devices.empty() ? "" : ", ") + std::to_string(device.device_id);
      if (!device.device_name.empty()) devices += " (" + device.device_name + ")";
    }
    rows.push_back({{std::to_string(t + 1), "num", ""},
                    {trace.source, "path", ""},
                    {trace.format, "", ""},
                    {metadata, "", ""},
                    {std::to_string(trace.activity_count()), "num", ""},
                    {devices, "", ""},
                    {trace.diagnostics.Summary(), "", ""}});
  }
  WriteHtmlTable(html, {"#", "trace", "format", "metadata", "activities", "devices", "diagnostics"},
                 rows, "inputs");
  WriteEnvironments(html, report);
  // Windows, units, and every note a command would print on stderr.
  html.Open("ul", {{"class", "windows"}});
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const ReportedTrace& reported = report.traces[t];
    for (const DeviceLoad& device : reported.devices) {
      std::string line = DeviceLabel(report, t, device.device_id) + ": " +
                         WindowLine(device.window, reported.trace->FirstGpuOpNs());
      if (device.units) {
        line += fmt::format(" · {} {}", *device.units,
                            *device.units == 1 ? device.unit_name : PluralUnit(device.unit_name));
      }
      html.Element("li", line);
      for (const std::string* note : {&device.window.note, &device.units_note}) {
        if (!note->empty()) html.Element("li", "note: " + *note, {{"class", "note"}});
      }
      for (const std::string& note : RateNotes(device))
        html.Element("li", "note: " + note, {{"class", "note"}});
    }
    for (const std::string& note : reported.trace->diagnostics.notes()) {
      html.Element("li", fmt::format("#{} note: {}", t + 1, note), {{"class", "note"}});
    }
  }
  html.Close("ul");
}

void WriteEngineBars(HtmlWriter& html, const HtmlReport& report) {
  html.Element("h2", "Engine bars and the roofline");
  std::vector<BarGroupInput> groups;
  for (size_t t = 0; t < report.traces.size(); ++t) {
    for (const DeviceLoad& device : report.traces[t].devices) {
      groups.push_back({DeviceLabel(report, t, device.device_id), &device});
    }
  }
  EngineBarsLayout layout = LayoutEngineBars(groups);
  // Per-unit bars need units on every device (one scale); say which lack them when some do.
  std::vector<std::string> without_units;
  for (const BarGroupInput& group : groups) {
    if (!group.device->units || *group.device->units <= 0) without_units.push_back(group.label);
  }
  const std::string why_busy = without_units.size() < groups.size() && !without_units.empty()
                                   ? fmt::format("no units on {}, so every bar shows busy time",
                                                 fmt::join(without_units, ", "))
                                   : "give --units for per-unit bars";
  html.Element("p",
               layout.per_unit
                   ? std::string("Busy time per unit of every engine (the union of its ops in "
                                 "the window, divided by the units); the tallest bar binds, and "
                                 "the roofline is drawn at it. Labels above the other bars: "
                                 "headroom, how much longer each could get before it binds.")
                   : fmt::format("Busy time of every engine in the window ({}); the tallest bar "
                                 "binds, and the roofline is drawn at it. Labels above the other "
                                 "bars: headroom, how much longer each could get before it binds.",
                                 why_busy),
               {{"class", "explain"}});
  html.Open("div", {{"class", "figure"}}).Raw(RenderEngineBarsSvg(layout)).Close("div");
  html.Open("ul", {{"class", "readings"}});
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const ReportedTrace& reported = report.traces[t];
    for (const DeviceLoad& device : reported.devices) {
      const Roofline& roofline = device.roofline;
      html.Open("li");
      html.Element("span", DeviceLabel(report, t, device.device_id), {{"class", "label"}});
      html.Element("span", DeviceTitle(reported, device), {{"class", "path"}});
      html.Element("span", ReadingLine(device, roofline), {{"class", "reading"}});
      if (roofline.per_unit_us) {
        html.Element("span",
                     fmt::format("roofline {:.3f} us/{} = {:.1f} {}/s", *roofline.per_unit_us,
                                 device.unit_name, roofline.units_per_s.value_or(0.0),
                                 PluralUnit(device.unit_name)),
                     {{"class", "figures"}});
      }
      html.Close("li");
    }
  }
  html.Close("ul");
}

void WriteDutyAndOverlap(HtmlWriter& html, const HtmlReport& report) {
  html.Element("h2", "Duty cycles and overlap");
  html.Element("p",
               "Duty: busy / window. Overlap table: time two engines were busy at once, as a "
               "share of the window (the diagonal is each engine's duty); darker is more.",
               {{"class", "explain"}});
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const ReportedTrace& reported = report.traces[t];
    for (size_t d = 0; d < reported.devices.size(); ++d) {
      const DeviceLoad& device = reported.devices[d];
      html.Element(
          "h3", DeviceLabel(report, t, device.device_id) + " — " + DeviceTitle(reported, device));
      html.Open("div", {{"class", "pair"}});
      TableHtmlOptions view;
      view.columns = {"engine", "ops", "busy_ns", "duty_pct", "per_unit_ns", "overlap", "gbps"};
      view.heat_column = "duty_pct";
      // Heat marks one thing: how saturated an engine is. "any GPU op" (the last row) is not an
      // engine (its duty is the share of the window with anything running), so it stays plain.
      const Table engines = EngineTable(device);
      // Without units the per-unit column has no value: left out, as the text table leaves it.
      for (size_t c = 0; c < engines.columns().size(); ++c) {
        if (engines.columns()[c].name == "per_unit_ns" && ColumnIsEmpty(engines, c))
          std::erase(view.columns, std::string("per_unit_ns"));
      }
      view.heat_row = [rows = engines.rows().size()](size_t row) { return row + 1 < rows; };
      WriteTableHtml(html, engines, "duty", view);
      if (d < reported.overlaps.size()) {
        const EngineOverlap& overlap = reported.overlaps[d];
        std::vector<std::string> header = {"both busy, % of window"};
        for (Engine engine : overlap.engines)
          header.emplace_back(EngineName(engine));
        std::vector<std::vector<HtmlCell>> matrix;
        for (size_t a = 0; a < overlap.engines.size(); ++a) {
          std::vector<HtmlCell> row = {{std::string(EngineName(overlap.engines[a])), "", ""}};
          for (size_t b = 0; b < overlap.engines.size(); ++b) {
            std::optional<double> share = DutyPercent(overlap.intersection_ns[a][b], device.window);
            row.push_back(HeatCell(FixedDouble(share, 1), share.value_or(0.0) / 100.0));
          }
          matrix.push_back(std::move(row));
        }
        WriteHtmlTable(html, header, matrix, "overlap");
        html.Element("p",
                     fmt::format("no engine busy: {} ({:.2f} % of the window)",
                                 HumanDurationNs(static_cast<double>(overlap.idle_ns)),
                                 DutyPercent(overlap.idle_ns, device.window).value_or(0.0)),
                     {{"class", "idle"}});
      }
      html.Close("div");
    }
  }
}

void WriteTimelines(HtmlWriter& html, const HtmlReport& report) {
  html.Element("h2", "Timeline");
  html.Element("p",
               fmt::format("One lane per engine; bar height: the share of each time bin the "
                           "engine was busy. Shaded: outside the window. Green dotted line: "
                           "where the warm-up ends (steady state). Red: the {} largest gaps (no "
                           "engine busy); hover for figures.",
                           report.highlighted_gaps),
               {{"class", "explain"}});
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const ReportedTrace& reported = report.traces[t];
    for (const DeviceTimeline& timeline : reported.timelines) {
      const DeviceLoad* device = FindDevice(reported.devices, timeline.device_id);
      if (device == nullptr) continue;
      html.Element("h3", DeviceLabel(report, t, timeline.device_id) + " — " +
                             DeviceTitle(reported, *device));
      TimelineInput input;
      input.timeline = &timeline;
      input.window = &device->window;
      input.origin_ns = reported.trace->FirstGpuOpNs();
      const DeviceGaps* gaps = FindDevice(reported.gaps, timeline.device_id);
      if (gaps != nullptr) {
        size_t n = std::min(report.highlighted_gaps, gaps->gaps.size());
        input.gaps = std::span<const Gap>(gaps->gaps.data(), n);
        html.Element(
            "p",
            fmt::format("{} bins of {} from {} after the first GPU op · {}", timeline.bin_count(),
                        HumanDurationNs(static_cast<double>(timeline.bin_ns)),
                        RelativeTime(timeline.start_ns, reported.trace->FirstGpuOpNs()),
                        GapsSummaryLine(*gaps, report.gap_min_text)),
            {{"class", "meta"}});
      }
      const SteadyMark* steady = FindDevice(reported.steady, timeline.device_id);
      if (steady != nullptr) {
        input.steady_start_ns = steady->start_ns;
        if (steady->start_ns) {
          html.Element(
              "p",
              fmt::format("steady from {} after the first GPU op: MSER-5 over {} dropped {} "
                          "unit{} of warm-up",
                          RelativeTime(*steady->start_ns, reported.trace->FirstGpuOpNs()),
                          steady->series, steady->dropped, steady->dropped == 1 ? "" : "s"),
              {{"class", "meta"}});
        }
        for (const std::string& note : steady->notes)
          html.Element("p", "note: " + note, {{"class", "note"}});
      }
      html.Open("div", {{"class", "figure"}}).Raw(RenderTimelineSvg(input)).Close("div");
    }
  }
}

void WriteKernelsAndCopies(HtmlWriter& html, const HtmlReport& report) {
  html.Element("h2", "Top kernels and copies");
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const ReportedTrace& reported = report.traces[t];
    for (const DeviceLoad& device : reported.devices) {
      const DeviceKernels* kernels = FindDevice(reported.kernels, device.device_id);
      const DeviceCopies* copies = FindDevice(reported.copies, device.device_id);
      if (kernels == nullptr && copies == nullptr) continue;
      html.Element(
          "h3", DeviceLabel(report, t, device.device_id) + " — " + DeviceTitle(reported, device));
      if (kernels != nullptr) {
        TableHtmlOptions view;
        view.columns = {"kernel",    "instances", "total_ns", "mean_ns",
                        "median_ns", "p95_ns",    "max_ns",   "busy_share_pct"};
        view.heat_column = "busy_share_pct";
        WriteTableHtml(html, KernelTable(*kernels, KernelKey::kName), "kernels", view);
        if (kernels->omitted_keys > 0) {
          html.Element("p",
                       fmt::format("{} more kernels ({} launches, {}) not shown",
                                   kernels->omitted_keys, kernels->omitted_ops,
                                   HumanDurationNs(static_cast<double>(kernels->omitted_total_ns))),
                       {{"class", "meta"}});
        }
        if (kernels->graph_ops > 0) {
          html.Element(
              "p",
              fmt::format("not listed: {} ({} busy): CUDA graphs "
                          "traced as whole graphs, their kernels not one by one",
                          CountOf(kernels->graph_ops, "whole-graph launch", "whole-graph launches"),
                          HumanDurationNs(static_cast<double>(kernels->graph_busy_ns))),
              {{"class", "meta"}});
        }
      }
      if (copies != nullptr && !copies->rows.empty()) {
        WriteTableHtml(html, CopyTable(*copies), "copies");
        for (const std::string& note : CopyRateNotes(*copies))
          html.Element("p", "note: " + note, {{"class", "note"}});
        std::string warning = PageableWarning(*copies);
        if (!warning.empty()) html.Element("p", warning, {{"class", "warn"}});
      }
    }
  }
}

// A part of the page that only some traces have (`part`: their ranges, their findings): its
// heading and explanation once, then for each trace that has it a "#N — path" heading (with
// several traces) and what `write_part(part)` writes. Nothing when no trace has it.
template <typename Part, typename WritePart>
void WritePerTracePart(HtmlWriter& html, const HtmlReport& report,
                       std::optional<Part> ReportedTrace::*part, std::string_view heading,
                       std::string_view explanation, WritePart write_part) {
  bool any = std::any_of(report.traces.begin(), report.traces.end(),
                         [part](const ReportedTrace& t) { return (t.*part).has_value(); });
  if (!any) return;
  html.Element("h2", heading);
  html.Element("p", explanation, {{"class", "explain"}});
  for (size_t t = 0; t < report.traces.size(); ++t) {
    const ReportedTrace& reported = report.traces[t];
    if (!(reported.*part)) continue;
    if (report.traces.size() > 1) {
      html.Element("h3", fmt::format("#{} — {}", t + 1, reported.trace->source));
    }
    write_part(*(reported.*part));
  }
}

void WriteRanges(HtmlWriter& html, const HtmlReport& report) {
  WritePerTracePart(
      html, report, &ReportedTrace::ranges, "NVTX ranges",
      "Per range name: its instances' own durations and the GPU work they launched "
      "(gpuroof ranges); the bottleneck is the engine with the most busy time per "
      "instance.",
      [&](const RangeSummary& summary) {
        // What the attribution left out or assumed, as `gpuroof ranges` says it.
        for (const std::string& note : RangeSummaryNotes(summary))
          html.Element("p", note, {{"class", "note"}});
        TableHtmlOptions view;
        view.columns = {"range_shown",
                        "instances",
                        "cpu_total_ns",
                        "cpu_median_ns",
                        "gpu_ops",
                        "bottleneck",
                        "roofline_ns_per_instance"};
        view.max_rows = report.top_ranges;
        WriteTableHtml(html, GroupTable(summary), "ranges", view);
        const size_t shown = std::min(report.top_ranges, summary.groups.size());
        if (shown < summary.groups.size()) {
          html.Element("p",
                       fmt::format("{} more range names not shown", summary.groups.size() - shown),
                       {{"class", "meta"}});
        }
      });
}

// The rank section: one row per rank (figures per step, as `gpuroof ranks` prints them), the
// stragglers and the collective with the widest skew.
void WriteRanks(HtmlWriter& html, const HtmlReport& report) {
  if (!report.ranks) return;
  const RankSetAnalysis& ranks = *report.ranks;
  html.Element("h2", "Ranks");
  html.Element("p", fmt::format("{} ranks", ranks.ranks.size()), {{"class", "meta"}});
  // What the table rests on (steps, how ranks were identified, work not counted), as `gpuroof
  // ranks` says it.
  for (const std::string& line : RankSetPreamble(ranks)) {
    const bool note = line.starts_with("note: ");
    html.Element("p", line, {{"class", note ? "note" : "meta"}});
  }
  for (const std::string& note : report.rank_notes)
    html.Element("p", "note: " + note, {{"class", "note"}});
  for (const std::string& warning : ranks.warnings)
    html.Element("p", "warning: " + warning, {{"class", "note"}});
  WriteTableHtml(html, RankTable(ranks), "ranks");
  for (const Straggler& straggler : ranks.stragglers)
    html.Element("p", StragglerLine(ranks, straggler));
  if (!ranks.skew.instances.empty()) {
    const CollectiveSkew& widest = ranks.skew.instances.front();
    html.Element("p", fmt::format("widest collective skew: {} (step {}, #{}), spread {}; last: "
                                  "{}",
                                  widest.name, widest.step + 1, widest.order + 1,
                                  HumanDurationNs(static_cast<double>(widest.spread_ns())),
                                  RankLabel(ranks.ranks, ranks.ids, widest.last_rank_index)));
  }
}

// The findings of each trace (gpuroof findings with its default thresholds, in the page's
// window): costliest first, with the evidence and what to do; "no findings" when none fired.
void WriteFindings(HtmlWriter& html, const HtmlReport& report) {
  const FindingThresholds defaults;
  const std::string window =
      report.findings_window_differs
          ? fmt::format("window {}, not the ranges' work the bars show", report.window_text)
          : std::string("the page's window");
  WritePerTracePart(
      html, report, &ReportedTrace::findings, "Findings",
      fmt::format("What to fix, costliest first (gpuroof findings, default thresholds, {}): cost "
                  "is the GPU time idle or serialised because of it (docs/findings.md).",
                  window),
      [&](const FindingsResult& result) {
        for (const std::string& note : result.notes)
          html.Element("p", "note: " + note, {{"class", "note"}});
        if (!result.steps_label.empty() && !result.findings.empty()) {
          html.Element("p", "steps: " + result.steps_label, {{"class", "meta"}});
        }
        if (result.findings.empty()) {
          html.Element("p", "no findings", {{"class", "meta"}});
        } else {
          TableHtmlOptions view;
          view.columns = {"id", "device", "title", "cost_ns", "count"};
          if (!result.steps_label.empty()) {
            view.columns.insert(view.columns.end(), {"cost_per_step_ns", "steps"});
          }
          view.columns.insert(view.columns.end(), {"evidence", "advice"});
          WriteTableHtml(html, FindingTable(result), "findings", view);
          // cost/step spreads the whole cost over the steps: where it fell, the worst step and
          // the part outside every step, as `gpuroof findings` says (its line less the indent).
          for (const Finding& f : result.findings) {
            if (f.per_step) {
              html.Element("p",
                           fmt::format("{}, device {}: {}", f.id, f.device_id,
                                       PerStepLine(*f.per_step).substr(2)),
                           {{"class", "meta"}});
            }
          }
        }
        if (result.below_min_cost > 0) {
          html.Element("p", FindingsDroppedLine(result, defaults), {{"class", "meta"}});
        }
      });
}

}  // namespace

std::string RenderHtmlReport(const HtmlReport& report) {
  HtmlWriter html;
  std::string title = "gpuroof report";
  if (report.traces.size() == 1) title += " · " + report.traces.front().trace->source;
  BeginHtmlPage(html, title);
  WriteHeader(html, report);
  WriteEngineBars(html, report);
  WriteDutyAndOverlap(html, report);
  WriteTimelines(html, report);
  WriteKernelsAndCopies(html, report);
  WriteRanges(html, report);
  WriteFindings(html, report);
  WriteRanks(html, report);
  html.Element("p", "Every figure is defined in gpuroof's docs/metrics.md.", {{"class", "meta"}});
  return EndHtmlPage(html);
}

}  // namespace gpuroof
