#include "gpuroof/reports/findings_report.h"

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// docs/cli.md, "gpuroof findings".
std::vector<TableColumn> FindingColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("id", "rule", U::kText, ColumnRole::kKey),
      MakeColumn("device", "device", U::kCount, ColumnRole::kLabel),
      MakeColumn("cost_ns", "cost", U::kNs),
      MakeColumn("count", "count", U::kCount),
      MakeColumn("title", "finding", U::kName, ColumnRole::kLabel),
      MakeColumn("evidence", "evidence", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("advice", "advice", U::kText, ColumnRole::kLabel).NotInText(),
  };
}

Table FindingTable(const FindingsResult& result) {
  Table table(FindingColumns());
  for (const Finding& f : result.findings) {
    table.AddRow({f.id, static_cast<int64_t>(f.device_id), f.cost_ns, f.count, f.title, f.evidence,
                  f.advice});
  }
  return table;
}

std::string DroppedLine(const FindingsResult& result, const FindingThresholds& thresholds) {
  return fmt::format("{} below --min-cost-pct {} (% of the device window) left out",
                     CountOf(result.below_min_cost, "finding", "findings"),
                     thresholds.min_cost_pct);
}

}  // namespace

ReportDocument FindingsDocument(const FindingsReport& report) {
  ReportDocument document;
  document.columns = FindingColumns();
  document.per_device = false;
  document.trace_count = report.traces.size();
  for (const FindingsOfTrace& traced : report.traces) {
    const FindingsResult& result = traced.result;
    const int64_t origin = traced.trace->FirstGpuOpNs();
    ReportSection section;
    section.trace = traced.trace->source;
    section.heading =
        fmt::format("{} · findings (window {})", traced.trace->source, report.window_text);
    for (const std::string& note : result.notes)
      section.preamble.push_back("note: " + note);
    if (result.below_min_cost > 0)
      section.preamble.push_back(DroppedLine(result, report.thresholds));
    section.table = FindingTable(result);
    section.when_empty = "no finding";
    for (const Finding& f : result.findings) {
      section.footer.push_back("");
      section.footer.push_back(fmt::format("[{}] device {}: {}", f.id, f.device_id, f.title));
      section.footer.push_back("  evidence: " + f.evidence);
      for (const FindingExample& e : f.examples) {
        section.footer.push_back(
            fmt::format("    at {} ({} long): {}; cost {}", RelativeTime(e.start_ns, origin),
                        HumanDurationNs(static_cast<double>(e.end_ns - e.start_ns)), e.label,
                        HumanDurationNs(static_cast<double>(e.cost_ns))));
      }
      section.footer.push_back("  what to do: " + f.advice);
    }
    document.sections.push_back(std::move(section));
  }
  return document;
}

void WriteThresholdsJson(JsonWriter& json, const FindingThresholds& t) {
  json.Key("thresholds").BeginObject();
  json.Key("min_cost_pct").Double(t.min_cost_pct);
  json.Key("gap_min_ns").Int(t.gap_min_ns);
  json.Key("launch_bound_share_pct").Double(t.launch_bound_share_pct);
  json.Key("launch_bound_min_kernels").Int(t.launch_bound_min_kernels);
  json.Key("low_occupancy_pct").Double(t.low_occupancy_pct);
  json.EndObject();
}

void WriteFindingJson(JsonWriter& json, const Finding& f) {
  json.BeginObject();
  json.Key("id").String(f.id);
  json.Key("title").String(f.title);
  json.Key("device").Int(f.device_id);
  json.Key("cost_ns").Int(f.cost_ns);
  json.Key("count").Int(f.count);
  json.Key("evidence").String(f.evidence);
  json.Key("advice").String(f.advice);
  json.Key("examples").BeginArray();
  for (const FindingExample& e : f.examples) {
    json.BeginObject();
    json.Key("start_ns").Int(e.start_ns);
    json.Key("end_ns").Int(e.end_ns);
    json.Key("cost_ns").Int(e.cost_ns);
    json.Key("label").String(e.label);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
}

std::string RenderFindingsJson(const FindingsReport& report) {
  auto options = [&report](JsonWriter& json) {
    json.Key("window").String(report.window_text);
    WriteThresholdsJson(json, report.thresholds);
  };
  auto fields = [](JsonWriter& json, const FindingsOfTrace& traced) {
    json.Key("below_min_cost").Int(traced.result.below_min_cost);
    json.Key("notes").BeginArray();
    for (const std::string& note : traced.result.notes)
      json.String(note);
    json.EndArray();
    json.Key("findings").BeginArray();
    for (const Finding& f : traced.result.findings)
      WriteFindingJson(json, f);
    json.EndArray();
  };
  return RenderPerTraceJson(report, "gpuroof.findings/1", options, fields);
}

}  // namespace gpuroof
