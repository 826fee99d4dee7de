#include "gpuroof/reports/gaps_report.h"

#include <optional>

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

std::optional<double> SharePercent(const DeviceGaps& device) {
  if (device.span_ns() <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(device.gap_total_ns) / static_cast<double>(device.span_ns());
}

// The columns of a gap, once for every format (docs/cli.md, "gpuroof gaps"). Text prints the
// start after the trace's first GPU op; CSV and JSON keep it on the trace clock.
std::vector<TableColumn> GapColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("rank", "#", U::kCount, ColumnRole::kKey).HumanOnly(),
      MakeColumn("start_ns", "start", U::kNs).NotInText(),
      MakeColumn("start_after_first_event_ns", "start", U::kNs).HumanOnly(),
      MakeColumn("duration_ns", "duration", U::kNs),
      MakeColumn("before_engine", "engine", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("before", "before", U::kName, ColumnRole::kLabel),
      MakeColumn("before_stream", "stream", U::kCount, ColumnRole::kLabel).NotInText(),
      MakeColumn("after_engine", "engine", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("after", "after", U::kName, ColumnRole::kLabel),
      MakeColumn("after_stream", "stream", U::kCount, ColumnRole::kLabel).NotInText(),
  };
}

Table GapTable(const DeviceGaps& device, int64_t origin_ns) {
  Table table(GapColumns());
  for (size_t g = 0; g < device.gaps.size(); ++g) {
    const Gap& gap = device.gaps[g];
    table.AddRow({static_cast<int64_t>(g + 1), gap.start_ns, gap.start_ns - origin_ns,
                  gap.duration_ns(), std::string(EngineName(gap.before.engine)), gap.before.label,
                  static_cast<int64_t>(gap.before.stream_id),
                  std::string(EngineName(gap.after.engine)), gap.after.label,
                  static_cast<int64_t>(gap.after.stream_id)});
  }
  return table;
}

}  // namespace

ReportDocument GapsDocument(const GapsReport& report) {
  ReportDocument document = PerDeviceDocument(
      report, GapColumns(),
      [&](ReportSection& section, const Trace& trace, const DeviceGaps& device) {
        int64_t origin_ns = trace.FirstGpuOpNs();
        section.preamble.push_back(GapsSummaryLine(device, report.min_text));
        if (device.span_ns() > 0) {
          section.preamble.push_back(fmt::format("span: {} to {} after the first GPU op",
                                                 RelativeTime(device.span_start_ns, origin_ns),
                                                 RelativeTime(device.span_end_ns, origin_ns)));
        }
        section.table = GapTable(device, origin_ns);
      });
  // The labels are "<engine> <short name>" (kernels) or copy labels, not signatures: a label
  // too long is cut, keeping its engine word.
  document.text.shorten_name = CutToWidth;
  return document;
}

std::string GapsSummaryLine(const DeviceGaps& device, const std::string& min_text) {
  size_t n = device.gaps.size();
  if (n == 0) {
    return fmt::format("no idle gap longer than {} in the {} span", min_text,
                       HumanDurationNs(static_cast<double>(device.span_ns())));
  }
  return fmt::format(
      "{} {} longer than {}: {} in all, {} % of the {} span", n, n == 1 ? "gap" : "gaps", min_text,
      HumanDurationNs(static_cast<double>(device.gap_total_ns)),
      FixedDouble(SharePercent(device), 2), HumanDurationNs(static_cast<double>(device.span_ns())));
}

std::string RenderGapsJson(const GapsReport& report) {
  auto options = [&report](JsonWriter& json) { json.Key("min_ns").Int(report.min_ns); };
  auto fields = [](JsonWriter& json, const Trace& trace, const DeviceGaps& device) {
    json.Key("span").BeginObject();
    json.Key("start_ns").Int(device.span_start_ns);
    json.Key("end_ns").Int(device.span_end_ns);
    json.Key("length_ns").Int(device.span_ns());
    json.EndObject();
    json.Key("gap_count").UInt(device.gaps.size());
    json.Key("gap_total_ns").Int(device.gap_total_ns);
    json.Key("gap_share_pct").Double(SharePercent(device));
    json.Key("gaps");
    WriteTableRowsJson(json, GapTable(device, trace.FirstGpuOpNs()));
  };
  return RenderPerDeviceJson(report, "gpuroof.gaps/2", options, fields);
}

}  // namespace gpuroof
