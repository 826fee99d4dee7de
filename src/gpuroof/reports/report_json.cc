#include "gpuroof/reports/report_json.h"

namespace gpuroof {

void WriteJsonHeader(JsonWriter& json, std::string_view schema, std::string_view tool_version) {
  json.Key("schema").String(schema);
  json.Key("tool").BeginObject().Key("name").String("gpuroof");
  json.Key("version").String(tool_version).EndObject();
}

void WriteDiagnosticsJson(JsonWriter& json, const Diagnostics& diagnostics) {
  json.BeginObject();
  json.Key("records_read").Int(diagnostics.records_read());
  json.Key("records_used").Int(diagnostics.records_used());
  json.Key("records_skipped").Int(diagnostics.records_skipped());
  json.Key("skipped").BeginArray();
  for (const SkipCount& skip : diagnostics.skips()) {
    json.BeginObject();
    json.Key("table").String(skip.table);
    json.Key("reason").String(skip.reason);
    json.Key("severity").String(SeverityName(skip.severity));
    json.Key("count").Int(skip.count);
    json.EndObject();
  }
  json.EndArray();
  WriteStringArrayJson(json, "notes", diagnostics.notes());
  json.EndObject();
}

void WriteInputJson(JsonWriter& json, const Trace& trace) {
  json.BeginObject();
  json.Key("path").String(trace.source);
  json.Key("format").String(trace.format);
  json.Key("metadata").BeginObject();
  for (const auto& [key, value] : trace.metadata)
    json.Key(key).String(value);
  json.EndObject();
  json.Key("activities").UInt(trace.activity_count());
  json.Key("diagnostics");
  WriteDiagnosticsJson(json, trace.diagnostics);
  json.EndObject();
}

void WriteWindowJson(JsonWriter& json, const Window& window) {
  json.Key("window").BeginObject();
  json.Key("policy").String(window.policy);
  json.Key("spec").String(window.text);
  json.Key("start_ns").Int(window.start_ns);
  json.Key("end_ns").Int(window.end_ns);
  json.Key("length_ns").Int(window.length_ns());
  json.Key("note").String(window.note);
  if (!window.resolved.empty()) json.Key("range").String(window.resolved);
  if (window.work != nullptr) json.Key("counts").String("range work");
  json.EndObject();
}

std::string WindowLabel(const Window& window) {
  return window.resolved.empty() ? window.policy : window.policy + " " + window.resolved;
}

void WriteBottleneckJson(JsonWriter& json, const std::optional<Engine>& bottleneck) {
  json.Key("bottleneck");
  if (bottleneck) {
    json.String(EngineName(*bottleneck));
  } else {
    json.Null();
  }
}

void WriteStringArrayJson(JsonWriter& json, std::string_view key,
                          const std::vector<std::string>& lines) {
  json.Key(key).BeginArray();
  for (const std::string& line : lines)
    json.String(line);
  json.EndArray();
}

void WriteTextOrNullJson(JsonWriter& json, std::string_view key, std::string_view text) {
  json.Key(key);
  if (text.empty()) {
    json.Null();
  } else {
    json.String(text);
  }
}

void WriteDeviceKeysJson(JsonWriter& json, const Trace& trace, int32_t device_id,
                         std::string_view device_name) {
  json.Key("trace").String(trace.source);
  json.Key("device").Int(device_id);
  json.Key("device_name").String(device_name);
}

}  // namespace gpuroof
