#include "gpuroof/reports/gaps_report.h"

#include <optional>

#include <fmt/format.h>

#include "gpuroof/reports/json_writer.h"
#include "gpuroof/reports/number_format.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/text_table.h"

namespace gpuroof {

namespace {

double Ms(int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

std::optional<double> SharePercent(const DeviceGaps& device) {
  if (device.span_ns() <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(device.gap_total_ns) / static_cast<double>(device.span_ns());
}

std::string DeviceTitle(const DeviceGaps& device) {
  return device.device_name.empty()
             ? fmt::format("device {}", device.device_id)
             : fmt::format("device {} ({})", device.device_id, device.device_name);
}

void WriteNeighbor(JsonWriter& json, const GapNeighbor& neighbor) {
  json.BeginObject();
  json.Key("engine").String(EngineName(neighbor.engine));
  json.Key("op").String(neighbor.label);
  json.Key("stream").UInt(neighbor.stream_id);
  json.EndObject();
}

}  // namespace

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

std::string RenderGapsText(const GapsReport& report) {
  std::string out;
  for (const GappedTrace& gapped : report.traces) {
    for (const DeviceGaps& device : gapped.devices) {
      out += fmt::format("{} · {}\n", gapped.trace->source, DeviceTitle(device));
      out += GapsSummaryLine(device, report.min_text) + "\n";
      if (!device.gaps.empty()) {
        out += "\n";
        TextTable table({"#", "start ms", "duration ms", "before", "after"});
        for (size_t g = 0; g < device.gaps.size(); ++g) {
          const Gap& gap = device.gaps[g];
          table.AddRow({std::to_string(g + 1),
                        FixedDouble(Ms(gap.start_ns - device.span_start_ns), 3),
                        FixedDouble(Ms(gap.duration_ns()), 3), gap.before.label, gap.after.label});
        }
        out += table.Render("  ");
      }
      out += "\n";
    }
  }
  return out;
}

std::string RenderGapsCsv(const GapsReport& report) {
  bool several_traces = report.traces.size() > 1;
  std::string out;
  auto emit = [&out](const std::vector<std::string>& fields) { out += CsvLine(fields); };
  std::vector<std::string> header;
  if (several_traces) header.push_back("trace");
  for (const char* name :
       {"device", "start_ms", "duration_ms", "before_engine", "before", "after_engine", "after"}) {
    header.emplace_back(name);
  }
  emit(header);
  for (const GappedTrace& gapped : report.traces) {
    for (const DeviceGaps& device : gapped.devices) {
      for (const Gap& gap : device.gaps) {
        std::vector<std::string> fields;
        if (several_traces) fields.push_back(gapped.trace->source);
        fields.push_back(std::to_string(device.device_id));
        fields.push_back(ShortestDouble(Ms(gap.start_ns - device.span_start_ns)));
        fields.push_back(ShortestDouble(Ms(gap.duration_ns())));
        fields.emplace_back(EngineName(gap.before.engine));
        fields.push_back(gap.before.label);
        fields.emplace_back(EngineName(gap.after.engine));
        fields.push_back(gap.after.label);
        emit(fields);
      }
    }
  }
  return out;
}

std::string RenderGapsJson(const GapsReport& report) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.gaps/1", report.tool_version);
  json.Key("options").BeginObject().Key("min_ns").Int(report.min_ns).EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  for (const GappedTrace& gapped : report.traces) {
    for (const DeviceGaps& device : gapped.devices) {
      json.BeginObject();
      WriteDeviceKeysJson(json, *gapped.trace, device.device_id, device.device_name);
      json.Key("span").BeginObject();
      json.Key("start_ns").Int(device.span_start_ns);
      json.Key("end_ns").Int(device.span_end_ns);
      json.Key("length_ns").Int(device.span_ns());
      json.EndObject();
      json.Key("gap_count").UInt(device.gaps.size());
      json.Key("gap_total_ns").Int(device.gap_total_ns);
      json.Key("gap_share_pct").Double(SharePercent(device));
      json.Key("gaps").BeginArray();
      for (const Gap& gap : device.gaps) {
        json.BeginObject();
        json.Key("start_ns").Int(gap.start_ns - device.span_start_ns);
        json.Key("duration_ns").Int(gap.duration_ns());
        json.Key("before");
        WriteNeighbor(json, gap.before);
        json.Key("after");
        WriteNeighbor(json, gap.after);
        json.EndObject();
      }
      json.EndArray();
      json.EndObject();
    }
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace gpuroof
