#include "gpuroof/reports/kernel_report.h"

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

double Us(double ns) {
  return ns / 1e3;
}

std::string DeviceTitle(const DeviceKernels& device) {
  return device.device_name.empty()
             ? fmt::format("device {}", device.device_id)
             : fmt::format("device {} ({})", device.device_id, device.device_name);
}

std::string KeyColumn(KernelKey key) {
  switch (key) {
    case KernelKey::kName:
      return "kernel";
    case KernelKey::kDemangled:
      return "kernel (demangled)";
    case KernelKey::kLaunch:
      return "kernel <<<grid,block>>>";
  }
  return "kernel";
}

void WriteDim(JsonWriter& json, const std::array<uint32_t, 3>& dim) {
  json.BeginArray();
  for (uint32_t v : dim)
    json.UInt(v);
  json.EndArray();
}

}  // namespace

std::string RenderKernelText(const KernelReport& report) {
  std::string out;
  for (const SummarizedTrace& summarized : report.traces) {
    for (const DeviceKernels& device : summarized.devices) {
      out += fmt::format("{} · {}\n", summarized.trace->source, DeviceTitle(device));
      out += fmt::format("window {}: {} to {} on the trace clock, {} long\n",
                         WindowLabel(device.window),
                         HumanDurationNs(static_cast<double>(device.window.start_ns)),
                         HumanDurationNs(static_cast<double>(device.window.end_ns)),
                         HumanDurationNs(static_cast<double>(device.window.length_ns())));
      if (!device.window.note.empty()) out += "note: " + device.window.note + "\n";
      out += fmt::format("{} launch{} of {} kernel{} (key: {}) · sum {} · busy {}\n\n",
                         device.kernel_ops, device.kernel_ops == 1 ? "" : "es", device.key_count,
                         device.key_count == 1 ? "" : "s", KernelKeyName(report.key),
                         HumanDurationNs(static_cast<double>(device.kernel_sum_ns)),
                         HumanDurationNs(static_cast<double>(device.kernel_busy_ns)));
      if (device.comm_ops > 0) {
        // Collectives are their own engine: their rows are marked, their shares are of comm.
        out.insert(out.size() - 2,
                   fmt::format(" · communication (comm): {} launch{} · sum {} · busy {}",
                               device.comm_ops, device.comm_ops == 1 ? "" : "es",
                               HumanDurationNs(static_cast<double>(device.comm_sum_ns)),
                               HumanDurationNs(static_cast<double>(device.comm_busy_ns))));
      }
      TextTable table({KeyColumn(report.key), "instances", "total ms", "avg us", "median us",
                       "min us", "max us", "stddev us", "p95 us", "p99 us", "% sum", "% busy"});
      for (const KernelRow& row : device.rows) {
        const DurationStats& s = row.stats;
        table.AddRow(
            {row.engine == Engine::kComm ? "[comm] " + row.key : row.key, std::to_string(s.count),
             FixedDouble(Ms(s.total_ns), 3), FixedDouble(Us(s.mean_ns), 3),
             FixedDouble(Us(s.median_ns), 3), FixedDouble(Us(static_cast<double>(s.min_ns)), 3),
             FixedDouble(Us(static_cast<double>(s.max_ns)), 3), FixedDouble(Us(s.stddev_ns), 3),
             FixedDouble(Us(s.p95_ns), 3), FixedDouble(Us(s.p99_ns), 3),
             FixedDouble(row.sum_share_pct, 2), FixedDouble(row.busy_share_pct, 2)});
      }
      out += table.Render("  ");
      if (device.omitted_keys > 0) {
        out += fmt::format("  ... {} more kernel{} (--top {}): {} launch{}, {} ms\n",
                           device.omitted_keys, device.omitted_keys == 1 ? "" : "s", report.top,
                           device.omitted_ops, device.omitted_ops == 1 ? "" : "es",
                           FixedDouble(Ms(device.omitted_total_ns), 3));
      }
      out += "\n";
    }
  }
  return out;
}

std::string RenderKernelCsv(const KernelReport& report) {
  bool several_traces = report.traces.size() > 1;
  std::string out;
  auto emit = [&out](const std::vector<std::string>& fields) { out += CsvLine(fields); };
  std::vector<std::string> header;
  if (several_traces) header.push_back("trace");
  for (const char* column :
       {"device", "kernel", "engine", "instances", "total_ns", "mean_ns", "median_ns", "min_ns",
        "max_ns", "stddev_ns", "p95_ns", "p99_ns", "sum_share_pct", "busy_share_pct"}) {
    header.emplace_back(column);
  }
  emit(header);
  for (const SummarizedTrace& summarized : report.traces) {
    for (const DeviceKernels& device : summarized.devices) {
      for (const KernelRow& row : device.rows) {
        const DurationStats& s = row.stats;
        std::vector<std::string> fields;
        if (several_traces) fields.push_back(summarized.trace->source);
        fields.push_back(std::to_string(device.device_id));
        fields.push_back(row.key);
        fields.push_back(std::string(EngineName(row.engine)));
        fields.push_back(std::to_string(s.count));
        fields.push_back(std::to_string(s.total_ns));
        fields.push_back(ShortestDouble(s.mean_ns));
        fields.push_back(ShortestDouble(s.median_ns));
        fields.push_back(std::to_string(s.min_ns));
        fields.push_back(std::to_string(s.max_ns));
        fields.push_back(ShortestDouble(s.stddev_ns));
        fields.push_back(ShortestDouble(s.p95_ns));
        fields.push_back(ShortestDouble(s.p99_ns));
        fields.push_back(ShortestDouble(row.sum_share_pct));
        fields.push_back(ShortestDouble(row.busy_share_pct));
        emit(fields);
      }
    }
  }
  return out;
}

std::string RenderKernelJson(const KernelReport& report) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.kernels/1", report.tool_version);
  json.Key("options").BeginObject();
  json.Key("window").String(report.window_text);
  json.Key("key").String(KernelKeyName(report.key));
  if (report.top > 0) {
    json.Key("top").Int(report.top);
  } else {
    json.Key("top").Null();
  }
  json.EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  for (const SummarizedTrace& summarized : report.traces) {
    for (const DeviceKernels& device : summarized.devices) {
      json.BeginObject();
      WriteDeviceKeysJson(json, *summarized.trace, device.device_id, device.device_name);
      WriteWindowJson(json, device.window);
      json.Key("kernel_ops").Int(device.kernel_ops);
      json.Key("kernel_sum_ns").Int(device.kernel_sum_ns);
      json.Key("kernel_busy_ns").Int(device.kernel_busy_ns);
      json.Key("comm_ops").Int(device.comm_ops);
      json.Key("comm_sum_ns").Int(device.comm_sum_ns);
      json.Key("comm_busy_ns").Int(device.comm_busy_ns);
      json.Key("keys").Int(device.key_count);
      json.Key("omitted").BeginObject();
      json.Key("keys").Int(device.omitted_keys);
      json.Key("instances").Int(device.omitted_ops);
      json.Key("total_ns").Int(device.omitted_total_ns);
      json.EndObject();
      json.Key("kernels").BeginArray();
      for (const KernelRow& row : device.rows) {
        const DurationStats& s = row.stats;
        json.BeginObject();
        json.Key("key").String(row.key);
        json.Key("name").String(row.name);
        json.Key("engine").String(EngineName(row.engine));
        if (row.grid && row.block) {
          json.Key("grid");
          WriteDim(json, *row.grid);
          json.Key("block");
          WriteDim(json, *row.block);
        }
        json.Key("instances").Int(s.count);
        json.Key("total_ns").Int(s.total_ns);
        json.Key("mean_ns").Double(s.mean_ns);
        json.Key("median_ns").Double(s.median_ns);
        json.Key("min_ns").Int(s.min_ns);
        json.Key("max_ns").Int(s.max_ns);
        json.Key("stddev_ns").Double(s.stddev_ns);
        json.Key("p95_ns").Double(s.p95_ns);
        json.Key("p99_ns").Double(s.p99_ns);
        json.Key("sum_share_pct").Double(row.sum_share_pct);
        json.Key("busy_share_pct").Double(row.busy_share_pct);
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
