#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/window.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

// Pieces every JSON report shares, so one input or window reads the same in all of them
// (docs/formats.md).

// "schema": schema, "tool": {"name", "version"} — inside the open top-level object.
void WriteJsonHeader(JsonWriter& json, std::string_view schema, std::string_view tool_version);

// One element of "inputs": path, format, metadata, activities and the full diagnostics.
void WriteInputJson(JsonWriter& json, const Trace& trace);

// The "inputs" array: one WriteInputJson() element per analysed trace (any type with a `trace`
// pointer, as the breakdown reports keep them).
template <typename Analysed>
void WriteInputsJson(JsonWriter& json, const std::vector<Analysed>& analysed) {
  json.Key("inputs").BeginArray();
  for (const Analysed& a : analysed)
    WriteInputJson(json, *a.trace);
  json.EndArray();
}

// The keys every per-device result object starts with: "trace", "device", "device_name".
void WriteDeviceKeysJson(JsonWriter& json, const Trace& trace, int32_t device_id,
                         std::string_view device_name);

// "window": {policy, spec, start_ns, end_ns, length_ns, note}, plus "range" (the resolved range
// and instance) and "counts": "range work" for NVTX work windows.
void WriteWindowJson(JsonWriter& json, const Window& window);

// The document every JSON report is: the header, "options" (its members written by
// `options(json)`), "inputs" (one per analysed trace) and "results" (its elements written by
// `results(json)`). `Report` has `tool_version` and `traces`, each with a `trace` pointer.
template <typename Report, typename WriteOptions, typename WriteResults>
std::string RenderReportJson(const Report& report, std::string_view schema, WriteOptions options,
                             WriteResults results) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, schema, report.tool_version);
  json.Key("options").BeginObject();
  options(json);
  json.EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  results(json);
  json.EndArray();
  json.EndObject();
  return json.str();
}

// RenderReportJson with one result object per trace: "trace" (its source), then
// `fields(json, traced)`.
template <typename Report, typename WriteOptions, typename WriteFields>
std::string RenderPerTraceJson(const Report& report, std::string_view schema, WriteOptions options,
                               WriteFields fields) {
  return RenderReportJson(report, schema, options, [&](JsonWriter& json) {
    for (const auto& traced : report.traces) {
      json.BeginObject();
      json.Key("trace").String(traced.trace->source);
      fields(json, traced);
      json.EndObject();
    }
  });
}

// RenderReportJson with one result object per (trace, device): the device keys, the "window"
// (WriteWindowJson) when the device's result has one (WindowOfDevice), then
// `fields(json, trace, device)`. Each trace has `devices` (with `device_id`, `device_name`).
template <typename Report, typename WriteOptions, typename WriteFields>
std::string RenderPerDeviceJson(const Report& report, std::string_view schema, WriteOptions options,
                                WriteFields fields) {
  return RenderReportJson(report, schema, options, [&](JsonWriter& json) {
    for (const auto& traced : report.traces) {
      for (const auto& device : traced.devices) {
        json.BeginObject();
        WriteDeviceKeysJson(json, *traced.trace, device.device_id, device.device_name);
        if (const Window* window = WindowOfDevice(device)) WriteWindowJson(json, *window);
        fields(json, *traced.trace, device);
        json.EndObject();
      }
    }
  });
}

// `key`: an array of the strings `lines` (notes, warnings), empty when there is none.
void WriteStringArrayJson(JsonWriter& json, std::string_view key,
                          const std::vector<std::string>& lines);

// `key`: `text`, or null when it is empty (an option not given, a label the trace lacks).
void WriteTextOrNullJson(JsonWriter& json, std::string_view key, std::string_view text);

// "bottleneck": the engine's name, or null when no engine was busy.
void WriteBottleneckJson(JsonWriter& json, const std::optional<Engine>& bottleneck);

// The diagnostics object: records read/used/skipped, the skips by reason, the notes.
void WriteDiagnosticsJson(JsonWriter& json, const Diagnostics& diagnostics);

// The window's policy for text lines, with the range it resolved to: "processing",
// "nvtx 'ProfilerStep#7' (1 instance)".
std::string WindowLabel(const Window& window);

}  // namespace gpuroof
