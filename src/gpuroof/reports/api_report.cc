#include "gpuroof/reports/api_report.h"

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/model/scalar_read.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// docs/cli.md, "gpuroof api".
std::vector<TableColumn> ApiColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("function", "function", U::kName, ColumnRole::kKey),
      MakeColumn("calls", "calls", U::kCount),
      MakeColumn("total_ns", "total", U::kNs),
      MakeColumn("time_share_pct", "time", U::kPercent),
      MakeColumn("mean_ns", "avg", U::kNs),
      MakeColumn("median_ns", "median", U::kNs),
      MakeColumn("p95_ns", "p95", U::kNs),
      MakeColumn("min_ns", "min", U::kNs),
      MakeColumn("max_ns", "max", U::kNs),
      MakeColumn("stddev_ns", "stddev", U::kNs),
  };
}

Table ApiTable(const ApiSummary& summary) {
  Table table(ApiColumns());
  for (const ApiFunctionRow& row : summary.rows) {
    const DurationStats& s = row.stats;
    table.AddRow({row.name, s.count, s.total_ns, row.time_share_pct, s.mean_ns, s.median_ns,
                  s.p95_ns, s.min_ns, s.max_ns, s.stddev_ns});
  }
  return table;
}

std::string WindowText(const ApiSummary& summary, int64_t origin_ns) {
  if (summary.whole_trace) return "window all: every call of the trace";
  if (!summary.window_range.empty()) {
    return fmt::format(
        "window nvtx {}: calls overlapping the range's CPU time, {} to {} after the first GPU op",
        summary.window_range, RelativeTime(summary.window_start_ns, origin_ns),
        RelativeTime(summary.window_end_ns, origin_ns));
  }
  return fmt::format("window {}: calls overlapping {} to {} after the first GPU op{}",
                     summary.window_policy, RelativeTime(summary.window_start_ns, origin_ns),
                     RelativeTime(summary.window_end_ns, origin_ns),
                     summary.window_note.empty() ? "" : " (" + summary.window_note + ")");
}

}  // namespace

std::string OutsideCallsNote(const ApiSummary& summary) {
  if (summary.outside_calls == 0) return "";
  return fmt::format("{} outside the window left out",
                     CountOf(summary.outside_calls, "call", "calls"));
}

std::string ScalarReadsNote(const ApiSummary& summary) {
  if (summary.scalar_reads == 0) return "";
  return fmt::format("{} PyTorch .item() op(s) ({}) are not CUDA functions: left out",
                     summary.scalar_reads, kScalarReadOpName);
}

ReportDocument ApiDocument(const ApiReport& report) {
  return PerTraceDocument(report, ApiColumns(), [](ReportSection& section, const ApiOfTrace& api) {
    const ApiSummary& summary = api.result;
    section.heading = fmt::format("{} · CUDA API calls", api.trace->source);
    section.preamble.push_back(WindowText(summary, api.trace->FirstGpuOpNs()));
    std::string totals =
        fmt::format("{} of {} · {} in calls", CountOf(summary.calls, "call", "calls"),
                    CountOf(static_cast<int64_t>(summary.rows.size()), "function", "functions"),
                    HumanDurationNs(static_cast<double>(summary.total_ns)));
    if (summary.outside_calls > 0) totals += " · " + OutsideCallsNote(summary);
    section.preamble.push_back(totals);
    if (summary.scalar_reads > 0) {
      section.left_out.push_back(ScalarReadsNote(summary));  // on stderr with CSV
      section.preamble.push_back("note: " + section.left_out.back());
    }
    section.table = ApiTable(summary);
    section.when_empty = "no call in the window";
  });
}

std::string RenderApiJson(const ApiReport& report) {
  auto options = [&report](JsonWriter& json) { json.Key("window").String(report.window_text); };
  auto fields = [](JsonWriter& json, const ApiOfTrace& api) {
    const ApiSummary& summary = api.result;
    json.Key("window").BeginObject();
    json.Key("policy").String(summary.window_policy);
    if (!summary.window_range.empty()) json.Key("range").String(summary.window_range);
    json.Key("note").String(summary.window_note);
    if (summary.whole_trace) {
      json.Key("start_ns").Null();
      json.Key("end_ns").Null();
    } else {
      json.Key("start_ns").Int(summary.window_start_ns);
      json.Key("end_ns").Int(summary.window_end_ns);
    }
    json.EndObject();
    json.Key("calls").Int(summary.calls);
    json.Key("total_ns").Int(summary.total_ns);
    json.Key("outside_calls").Int(summary.outside_calls);
    json.Key("scalar_reads").Int(summary.scalar_reads);
    json.Key("functions");
    WriteTableRowsJson(json, ApiTable(summary));
  };
  return RenderPerTraceJson(report, "gpuroof.api/1", options, fields);
}

}  // namespace gpuroof
