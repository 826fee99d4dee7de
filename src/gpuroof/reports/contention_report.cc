#include "gpuroof/reports/contention_report.h"

#include <cmath>

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

// The loss as printed with one decimal: rounding noise of equal bandwidths (1e-14 %) shows as
// 0.0, not -0.0.
std::optional<double> PrintedLoss(const DirectionContention& direction) {
  std::optional<double> loss = direction.loss_pct();
  if (loss && std::abs(*loss) < 0.05) return 0.0;
  return loss;
}

std::string Title(const Trace& trace, const DeviceContention& device) {
  return device.device_name.empty() ? fmt::format("{} · device {}", trace.source, device.device_id)
                                    : fmt::format("{} · device {} ({})", trace.source,
                                                  device.device_id, device.device_name);
}

void WriteClassJson(JsonWriter& json, std::string_view key, const ContentionClass& figures) {
  json.Key(key).BeginObject();
  json.Key("time_ns").Int(figures.time_ns);
  json.Key("bytes").Double(figures.bytes);
  json.Key("bandwidth_gbps").Double(figures.bandwidth_gbps());
  json.EndObject();
}

}  // namespace

std::string ContentionReading(const DirectionContention& direction) {
  std::string_view self = EngineName(direction.engine);
  std::string_view other = EngineName(direction.opposite);
  std::optional<double> busy = direction.opposite_busy.bandwidth_gbps();
  std::optional<double> idle = direction.opposite_idle.bandwidth_gbps();
  if (!busy) {
    return fmt::format("{} never ran while {} was busy: nothing to compare ({:.2f} GB/s).", self,
                       other, idle.value_or(0.0));
  }
  if (!idle) {
    return fmt::format("{} always ran while {} was busy: no idle baseline ({:.2f} GB/s).", self,
                       other, *busy);
  }
  std::optional<double> loss = PrintedLoss(direction);
  std::string change =
      !loss        ? fmt::format("moved no bytes while {} was idle", other)
      : *loss == 0 ? fmt::format("keeps its bandwidth against a busy {}", other)
      : *loss > 0  ? fmt::format("loses {:.1f} % of its bandwidth against a busy {}", *loss, other)
                   : fmt::format("is {:.1f} % faster against a busy {}", -*loss, other);
  return fmt::format(
      "{} {} ({:.2f} GB/s vs {:.2f} GB/s while {} is idle; {:.1f} % of its copy "
      "time overlaps a busy {}).",
      self, change, *busy, *idle, other, direction.busy_share_pct().value_or(0.0), other);
}

std::string RenderContentionText(const ContentionReport& report) {
  std::string out;
  for (const ContendedTrace& contended : report.traces) {
    for (const DeviceContention& device : contended.devices) {
      out += Title(*contended.trace, device) + "\n";
      out += fmt::format("window {}: {} to {} on the trace clock, {} long\n",
                         WindowLabel(device.window),
                         HumanDurationNs(static_cast<double>(device.window.start_ns)),
                         HumanDurationNs(static_cast<double>(device.window.end_ns)),
                         HumanDurationNs(static_cast<double>(device.window.length_ns())));
      if (!device.window.note.empty()) out += "note: " + device.window.note + "\n";
      out += "\n";
      TextTable table({"copy", "ops", "bytes", "opp. busy ms", "GB/s", "opp. idle ms", "GB/s",
                       "busy share %", "loss %"});
      for (const DirectionContention& d : device.directions) {
        table.AddRow({fmt::format("{} vs {}", EngineName(d.engine), EngineName(d.opposite)),
                      std::to_string(d.ops), HumanBytes(d.bytes()),
                      FixedDouble(Ms(d.opposite_busy.time_ns), 3),
                      FixedDouble(d.opposite_busy.bandwidth_gbps(), 2),
                      FixedDouble(Ms(d.opposite_idle.time_ns), 3),
                      FixedDouble(d.opposite_idle.bandwidth_gbps(), 2),
                      FixedDouble(d.busy_share_pct(), 1), FixedDouble(PrintedLoss(d), 1)});
      }
      out += table.Render("  ") + "\n";
      for (const DirectionContention& d : device.directions)
        out += ContentionReading(d) + "\n";
      out += "\n";
    }
  }
  return out;
}

std::string RenderContentionCsv(const ContentionReport& report) {
  bool several_traces = report.traces.size() > 1;
  std::vector<std::string> header;
  if (several_traces) header.push_back("trace");
  for (const char* name :
       {"device", "copy", "opposite", "ops", "bytes", "opposite_busy_ms", "opposite_busy_bytes",
        "opposite_busy_gbps", "opposite_idle_ms", "opposite_idle_bytes", "opposite_idle_gbps",
        "busy_share_pct", "loss_pct"}) {
    header.emplace_back(name);
  }
  std::string out = CsvLine(header);
  for (const ContendedTrace& contended : report.traces) {
    for (const DeviceContention& device : contended.devices) {
      for (const DirectionContention& d : device.directions) {
        std::vector<std::string> fields;
        if (several_traces) fields.push_back(contended.trace->source);
        fields.push_back(std::to_string(device.device_id));
        fields.emplace_back(EngineName(d.engine));
        fields.emplace_back(EngineName(d.opposite));
        fields.push_back(std::to_string(d.ops));
        fields.push_back(ShortestDouble(d.bytes()));
        fields.push_back(ShortestDouble(Ms(d.opposite_busy.time_ns)));
        fields.push_back(ShortestDouble(d.opposite_busy.bytes));
        fields.push_back(ShortestDouble(d.opposite_busy.bandwidth_gbps()));
        fields.push_back(ShortestDouble(Ms(d.opposite_idle.time_ns)));
        fields.push_back(ShortestDouble(d.opposite_idle.bytes));
        fields.push_back(ShortestDouble(d.opposite_idle.bandwidth_gbps()));
        fields.push_back(ShortestDouble(d.busy_share_pct()));
        fields.push_back(ShortestDouble(d.loss_pct()));
        out += CsvLine(fields);
      }
    }
  }
  return out;
}

std::string RenderContentionJson(const ContentionReport& report) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.contention/1", report.tool_version);
  json.Key("options").BeginObject().Key("window").String(report.window_text).EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  for (const ContendedTrace& contended : report.traces) {
    for (const DeviceContention& device : contended.devices) {
      json.BeginObject();
      WriteDeviceKeysJson(json, *contended.trace, device.device_id, device.device_name);
      WriteWindowJson(json, device.window);
      json.Key("directions").BeginArray();
      for (const DirectionContention& d : device.directions) {
        json.BeginObject();
        json.Key("copy").String(EngineName(d.engine));
        json.Key("opposite").String(EngineName(d.opposite));
        json.Key("ops").Int(d.ops);
        json.Key("time_ns").Int(d.time_ns());
        json.Key("bytes").Double(d.bytes());
        WriteClassJson(json, "opposite_busy", d.opposite_busy);
        WriteClassJson(json, "opposite_idle", d.opposite_idle);
        json.Key("busy_share_pct").Double(d.busy_share_pct());
        json.Key("loss_pct").Double(d.loss_pct());
        json.Key("reading").String(ContentionReading(d));
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
