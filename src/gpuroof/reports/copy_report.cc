#include "gpuroof/reports/copy_report.h"

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

std::string DeviceTitle(const DeviceCopies& device) {
  return device.device_name.empty()
             ? fmt::format("device {}", device.device_id)
             : fmt::format("device {} ({})", device.device_id, device.device_name);
}

std::string DstKindName(const CopyRow& row) {
  return row.engine == Engine::kMemset ? "" : std::string(MemoryKindName(row.dst_kind));
}

}  // namespace

std::string PageableWarning(const DeviceCopies& device) {
  int64_t count = device.pageable_count();
  if (count == 0) return "";
  std::string bytes = HumanBytes(static_cast<double>(device.pageable_bytes()));
  if (count == 1) {
    return fmt::format(
        "warning: 1 copy ({}) uses pageable host memory: it cannot overlap with kernels — the "
        "classic async memcpy that isn't",
        bytes);
  }
  return fmt::format(
      "warning: {} copies ({}) use pageable host memory: they cannot overlap with kernels — the "
      "classic async memcpy that isn't",
      count, bytes);
}

std::string RenderCopyText(const CopyReport& report) {
  std::string out;
  for (const CopiedTrace& copied : report.traces) {
    for (const DeviceCopies& device : copied.devices) {
      out += fmt::format("{} · {}\n", copied.trace->source, DeviceTitle(device));
      out += fmt::format("window {}: {} to {} on the trace clock, {} long\n",
                         WindowLabel(device.window),
                         HumanDurationNs(static_cast<double>(device.window.start_ns)),
                         HumanDurationNs(static_cast<double>(device.window.end_ns)),
                         HumanDurationNs(static_cast<double>(device.window.length_ns())));
      if (!device.window.note.empty()) out += "note: " + device.window.note + "\n";
      out += "\n";
      if (device.rows.empty()) {
        out += "no copy or memset in the window (--window all covers every op)\n\n";
        continue;
      }
      TextTable table(
          {"copy", "count", "bytes", "total ms", "median us", "GB/s", "median GB/s", "pageable"});
      for (const CopyRow& row : device.rows) {
        table.AddRow({CopyLabel(row.engine, row.src_kind, row.dst_kind), std::to_string(row.count),
                      HumanBytes(static_cast<double>(row.bytes)), FixedDouble(Ms(row.sum_ns), 3),
                      FixedDouble(row.median_ns / 1e3, 3), FixedDouble(row.bandwidth_gbps, 2),
                      FixedDouble(row.median_bandwidth_gbps, 2), row.pageable ? "PAGEABLE" : "-"});
      }
      out += table.Render("  ");
      std::string warning = PageableWarning(device);
      if (!warning.empty()) out += "\n" + warning + "\n";
      out += "\n";
    }
  }
  return out;
}

std::string RenderCopyCsv(const CopyReport& report) {
  bool several_traces = report.traces.size() > 1;
  std::string out;
  auto emit = [&out](const std::vector<std::string>& fields) { out += CsvLine(fields); };
  std::vector<std::string> header;
  if (several_traces) header.push_back("trace");
  for (const char* name :
       {"device", "copy", "engine", "src_kind", "dst_kind", "count", "bytes", "total_ms",
        "op_time_ms", "median_us", "bandwidth_gbps", "median_bandwidth_gbps", "pageable"}) {
    header.emplace_back(name);
  }
  emit(header);
  for (const CopiedTrace& copied : report.traces) {
    for (const DeviceCopies& device : copied.devices) {
      for (const CopyRow& row : device.rows) {
        std::vector<std::string> fields;
        if (several_traces) fields.push_back(copied.trace->source);
        fields.push_back(std::to_string(device.device_id));
        fields.push_back(CopyLabel(row.engine, row.src_kind, row.dst_kind));
        fields.emplace_back(EngineName(row.engine));
        fields.emplace_back(MemoryKindName(row.src_kind));
        fields.push_back(DstKindName(row));
        fields.push_back(std::to_string(row.count));
        fields.push_back(std::to_string(row.bytes));
        fields.push_back(ShortestDouble(Ms(row.sum_ns)));
        fields.push_back(ShortestDouble(Ms(row.op_time_ns)));
        fields.push_back(ShortestDouble(row.median_ns / 1e3));
        fields.push_back(ShortestDouble(row.bandwidth_gbps));
        fields.push_back(ShortestDouble(row.median_bandwidth_gbps));
        fields.emplace_back(row.pageable ? "true" : "false");
        emit(fields);
      }
    }
  }
  return out;
}

std::string RenderCopyJson(const CopyReport& report) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.copies/1", report.tool_version);
  json.Key("options").BeginObject().Key("window").String(report.window_text).EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  for (const CopiedTrace& copied : report.traces) {
    for (const DeviceCopies& device : copied.devices) {
      json.BeginObject();
      WriteDeviceKeysJson(json, *copied.trace, device.device_id, device.device_name);
      WriteWindowJson(json, device.window);
      json.Key("copies").BeginArray();
      for (const CopyRow& row : device.rows) {
        json.BeginObject();
        json.Key("copy").String(CopyLabel(row.engine, row.src_kind, row.dst_kind));
        json.Key("engine").String(EngineName(row.engine));
        json.Key("src_kind").String(MemoryKindName(row.src_kind));
        json.Key("dst_kind").String(DstKindName(row));
        json.Key("count").Int(row.count);
        json.Key("bytes").UInt(row.bytes);
        json.Key("total_ns").Int(row.sum_ns);
        json.Key("op_time_ns").Int(row.op_time_ns);
        json.Key("median_ns").Double(row.median_ns);
        json.Key("bandwidth_gbps").Double(row.bandwidth_gbps);
        json.Key("median_bandwidth_gbps").Double(row.median_bandwidth_gbps);
        json.Key("pageable").Bool(row.pageable);
        json.EndObject();
      }
      json.EndArray();
      json.Key("pageable").BeginObject();
      json.Key("count").Int(device.pageable_count());
      json.Key("bytes").UInt(device.pageable_bytes());
      json.Key("warning").String(PageableWarning(device));
      json.EndObject();
      json.EndObject();
    }
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace gpuroof
