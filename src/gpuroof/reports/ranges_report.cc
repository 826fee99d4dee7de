#include "gpuroof/reports/ranges_report.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "gpuroof/reports/json_writer.h"
#include "gpuroof/reports/number_format.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/text_table.h"

namespace gpuroof {
namespace {

double Us(double ns) {
  return ns / 1e3;
}

std::string UsText(double ns) {
  return FixedDouble(Us(ns), 3);
}

std::string_view Side(bool on_gpu) {
  return on_gpu ? "gpu" : "cpu";
}

std::string_view MethodName(AttributionMethod method) {
  return method == AttributionMethod::kLaunchCorrelation ? "launch-correlation" : "time-overlap";
}

std::string LowerEngineName(Engine engine) {
  std::string name(EngineName(engine));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return name;
}

const RangeEngineWork& WorkOf(const std::array<RangeEngineWork, kEngineCount>& engines,
                              Engine engine) {
  return engines[static_cast<size_t>(EngineIndex(engine))];
}

// Engines with work anywhere in the summary: the text tables show only these.
std::vector<Engine> EnginesWithWork(const RangeSummary& summary) {
  std::vector<Engine> engines;
  for (Engine engine : kAllEngines) {
    for (const RangeGroup& group : summary.groups) {
      if (WorkOf(group.engines, engine).ops > 0) {
        engines.push_back(engine);
        break;
      }
    }
  }
  return engines;
}

std::string BottleneckText(const std::optional<Engine>& engine) {
  return engine ? std::string(EngineName(*engine)) : "-";
}

std::string RangeName(const Trace& trace, const RangeInstanceLoad& row) {
  return std::string(trace.strings.Get(trace.nvtx_ranges[row.range_index].name));
}

void RenderGroupTable(const RangeSummary& summary, std::string& out) {
  const std::vector<Engine> engines = EnginesWithWork(summary);
  std::vector<std::string> header = {"range",  "side",   "instances", "cpu total ms", "median us",
                                     "p95 us", "min us", "max us",    "gpu ops"};
  for (Engine engine : engines)
    header.push_back(fmt::format("{} us/inst", EngineName(engine)));
  header.insert(header.end(), {"bottleneck", "roofline us/inst", "inst/s"});
  TextTable table(header);
  for (const RangeGroup& group : summary.groups) {
    const double instances = static_cast<double>(group.cpu.count);
    std::vector<std::string> row = {group.name,
                                    std::string(Side(group.on_gpu)),
                                    std::to_string(group.cpu.count),
                                    FixedDouble(static_cast<double>(group.cpu.total_ns) / 1e6, 3),
                                    UsText(group.cpu.median_ns),
                                    UsText(group.cpu.p95_ns),
                                    UsText(static_cast<double>(group.cpu.min_ns)),
                                    UsText(static_cast<double>(group.cpu.max_ns)),
                                    std::to_string(group.gpu_ops)};
    for (Engine engine : engines) {
      const RangeEngineWork& work = WorkOf(group.engines, engine);
      row.push_back(work.ops > 0 ? UsText(static_cast<double>(work.busy_ns) / instances) : "-");
    }
    row.push_back(BottleneckText(group.bottleneck));
    const bool bound = group.bottleneck && group.roofline_ns_per_instance > 0;
    row.push_back(bound ? UsText(group.roofline_ns_per_instance) : "-");
    row.push_back(bound ? FixedDouble(1e9 / group.roofline_ns_per_instance, 1) : "-");
    table.AddRow(row);
  }
  out += table.Render("  ");
}

void RenderInstanceTable(const Trace& trace, const RangeSummary& summary, std::string& out) {
  const std::vector<Engine> engines = EnginesWithWork(summary);
  std::vector<std::string> header = {"range",  "#",       "start ms",   "cpu us",
                                     "device", "gpu ops", "gpu span us"};
  for (Engine engine : engines)
    header.push_back(fmt::format("{} us", EngineName(engine)));
  header.insert(header.end(), {"bottleneck", "roofline us"});
  TextTable table(header);
  for (const RangeGroup& group : summary.groups) {
    for (const RangeInstanceLoad& row : group.instance_rows) {
      const NvtxRange& range = trace.nvtx_ranges[row.range_index];
      std::vector<std::string> cells = {
          RangeName(trace, row) + (group.on_gpu ? " (gpu)" : ""),
          std::to_string(row.ordinal),
          FixedDouble(static_cast<double>(range.start_ns) / 1e6, 3),
          UsText(static_cast<double>(range.end_ns - range.start_ns)),
          row.device_id < 0 ? "-" : std::to_string(row.device_id),
          std::to_string(row.gpu_ops),
          row.gpu_ops > 0 ? UsText(static_cast<double>(row.gpu_span_ns())) : "-"};
      for (Engine engine : engines) {
        const RangeEngineWork& work = WorkOf(row.engines, engine);
        cells.push_back(work.ops > 0 ? UsText(static_cast<double>(work.busy_ns)) : "-");
      }
      cells.push_back(BottleneckText(row.bottleneck));
      cells.push_back(row.bottleneck ? UsText(static_cast<double>(row.roofline_ns)) : "-");
      table.AddRow(cells);
    }
  }
  out += table.Render("  ");
}

void AppendEngineCsvHeader(std::vector<std::string>& header) {
  for (Engine engine : kAllEngines) {
    header.push_back(LowerEngineName(engine) + "_ops");
    header.push_back(LowerEngineName(engine) + "_busy_ns");
  }
}

void AppendEngineCsvFields(const std::array<RangeEngineWork, kEngineCount>& engines,
                           std::vector<std::string>& fields) {
  for (Engine engine : kAllEngines) {
    fields.push_back(std::to_string(WorkOf(engines, engine).ops));
    fields.push_back(std::to_string(WorkOf(engines, engine).busy_ns));
  }
}

void WriteEnginesJson(JsonWriter& json, const std::array<RangeEngineWork, kEngineCount>& engines) {
  json.Key("engines").BeginArray();
  for (Engine engine : kAllEngines) {
    const RangeEngineWork& work = WorkOf(engines, engine);
    if (work.ops == 0) continue;
    json.BeginObject();
    json.Key("engine").String(EngineName(engine));
    json.Key("ops").Int(work.ops);
    json.Key("sum_ns").Int(work.sum_ns);
    json.Key("busy_ns").Int(work.busy_ns);
    json.Key("bytes").UInt(work.bytes);
    json.EndObject();
  }
  json.EndArray();
}

}  // namespace

std::string RenderRangesText(const RangesReport& report) {
  std::string out;
  for (const RangesOfTrace& ranges : report.traces) {
    const RangeSummary& summary = ranges.summary;
    out += fmt::format("{} · NVTX ranges · GPU work by {}\n", ranges.trace->source,
                       MethodName(summary.method));
    if (!summary.method_note.empty()) out += "note: " + summary.method_note + "\n";
    if (!summary.resolved.empty()) out += "range: " + summary.resolved + "\n";
    for (const RangeGroup& group : summary.groups) {
      if (group.on_gpu || group.method != AttributionMethod::kLaunchCorrelation) continue;
      if (group.scope == RangeScope::kProcess) {
        out += fmt::format("'{}': launches by any thread of the process count\n", group.name);
      } else if (group.other_thread_ops > 0) {
        out += fmt::format("note: '{}': {}\n", group.name, OtherThreadNote(group.other_thread_ops));
      }
    }
    if (summary.unmatched_ops > 0) {
      out +=
          fmt::format("note: {} GPU op{} launched by no API call in the trace (not attributed)\n",
                      summary.unmatched_ops, summary.unmatched_ops == 1 ? " was" : "s were");
    }
    out += "\n";
    if (report.name.empty()) {
      RenderGroupTable(summary, out);
    } else {
      RenderInstanceTable(*ranges.trace, summary, out);
    }
    out += "\n";
  }
  return out;
}

std::string RenderRangesCsv(const RangesReport& report) {
  const bool several_traces = report.traces.size() > 1;
  std::string out;
  std::vector<std::string> header;
  if (several_traces) header.emplace_back("trace");
  if (report.name.empty()) {
    header.insert(header.end(), {"range", "side", "method", "instances", "cpu_total_ns",
                                 "cpu_mean_ns", "cpu_median_ns", "cpu_min_ns", "cpu_max_ns",
                                 "cpu_p95_ns", "gpu_ops", "instances_with_gpu_work"});
    AppendEngineCsvHeader(header);
    header.insert(header.end(), {"bottleneck", "roofline_ns_per_instance"});
  } else {
    header.insert(header.end(),
                  {"range", "side", "method", "instance", "device", "cpu_start_ns", "cpu_end_ns",
                   "gpu_ops", "gpu_start_ns", "gpu_end_ns", "any_busy_ns"});
    AppendEngineCsvHeader(header);
    header.insert(header.end(), {"bottleneck", "roofline_ns"});
  }
  out += CsvLine(header);
  for (const RangesOfTrace& ranges : report.traces) {
    for (const RangeGroup& group : ranges.summary.groups) {
      if (report.name.empty()) {
        std::vector<std::string> fields;
        if (several_traces) fields.push_back(ranges.trace->source);
        const DurationStats& cpu = group.cpu;
        fields.insert(
            fields.end(),
            {group.name, std::string(Side(group.on_gpu)), std::string(MethodName(group.method)),
             std::to_string(cpu.count), std::to_string(cpu.total_ns), ShortestDouble(cpu.mean_ns),
             ShortestDouble(cpu.median_ns), std::to_string(cpu.min_ns), std::to_string(cpu.max_ns),
             ShortestDouble(cpu.p95_ns), std::to_string(group.gpu_ops),
             std::to_string(group.instances_with_work)});
        AppendEngineCsvFields(group.engines, fields);
        fields.push_back(group.bottleneck ? std::string(EngineName(*group.bottleneck)) : "");
        fields.push_back(group.bottleneck ? ShortestDouble(group.roofline_ns_per_instance) : "");
        out += CsvLine(fields);
        continue;
      }
      for (const RangeInstanceLoad& row : group.instance_rows) {
        const NvtxRange& range = ranges.trace->nvtx_ranges[row.range_index];
        std::vector<std::string> fields;
        if (several_traces) fields.push_back(ranges.trace->source);
        fields.insert(
            fields.end(),
            {group.name, std::string(Side(group.on_gpu)), std::string(MethodName(group.method)),
             std::to_string(row.ordinal), row.device_id < 0 ? "" : std::to_string(row.device_id),
             std::to_string(range.start_ns), std::to_string(range.end_ns),
             std::to_string(row.gpu_ops), row.gpu_ops > 0 ? std::to_string(row.gpu_start_ns) : "",
             row.gpu_ops > 0 ? std::to_string(row.gpu_end_ns) : "",
             std::to_string(row.any_busy_ns)});
        AppendEngineCsvFields(row.engines, fields);
        fields.push_back(row.bottleneck ? std::string(EngineName(*row.bottleneck)) : "");
        fields.push_back(row.bottleneck ? std::to_string(row.roofline_ns) : "");
        out += CsvLine(fields);
      }
    }
  }
  return out;
}

std::string RenderRangesJson(const RangesReport& report) {
  JsonWriter json;
  json.BeginObject();
  WriteJsonHeader(json, "gpuroof.ranges/1", report.tool_version);
  json.Key("options").BeginObject();
  if (report.name.empty()) {
    json.Key("name").Null();
  } else {
    json.Key("name").String(report.name);
  }
  json.EndObject();
  WriteInputsJson(json, report.traces);
  json.Key("results").BeginArray();
  for (const RangesOfTrace& ranges : report.traces) {
    const RangeSummary& summary = ranges.summary;
    json.BeginObject();
    json.Key("trace").String(ranges.trace->source);
    json.Key("method").String(MethodName(summary.method));
    json.Key("method_note").String(summary.method_note);
    json.Key("unmatched_ops").Int(summary.unmatched_ops);
    json.Key("range").String(summary.resolved);
    json.Key("ranges").BeginArray();
    for (const RangeGroup& group : summary.groups) {
      const DurationStats& cpu = group.cpu;
      json.BeginObject();
      json.Key("name").String(group.name);
      json.Key("side").String(Side(group.on_gpu));
      json.Key("method").String(MethodName(group.method));
      json.Key("scope").String(RangeScopeName(group.scope));
      json.Key("other_thread_ops").Int(group.other_thread_ops);
      json.Key("instances").Int(cpu.count);
      json.Key("duration").BeginObject();
      json.Key("total_ns").Int(cpu.total_ns);
      json.Key("mean_ns").Double(cpu.mean_ns);
      json.Key("median_ns").Double(cpu.median_ns);
      json.Key("min_ns").Int(cpu.min_ns);
      json.Key("max_ns").Int(cpu.max_ns);
      json.Key("stddev_ns").Double(cpu.stddev_ns);
      json.Key("p95_ns").Double(cpu.p95_ns);
      json.Key("p99_ns").Double(cpu.p99_ns);
      json.EndObject();
      json.Key("gpu_ops").Int(group.gpu_ops);
      json.Key("instances_with_gpu_work").Int(group.instances_with_work);
      WriteEnginesJson(json, group.engines);
      if (group.bottleneck) {
        json.Key("bottleneck").String(EngineName(*group.bottleneck));
        json.Key("roofline_ns_per_instance").Double(group.roofline_ns_per_instance);
      } else {
        json.Key("bottleneck").Null();
        json.Key("roofline_ns_per_instance").Null();
      }
      if (!report.name.empty()) {
        json.Key("instances_detail").BeginArray();
        for (const RangeInstanceLoad& row : group.instance_rows) {
          const NvtxRange& range = ranges.trace->nvtx_ranges[row.range_index];
          json.BeginObject();
          json.Key("instance").Int(row.ordinal);
          json.Key("start_ns").Int(range.start_ns);
          json.Key("end_ns").Int(range.end_ns);
          if (row.device_id < 0) {
            json.Key("device").Null();
          } else {
            json.Key("device").Int(row.device_id);
          }
          json.Key("gpu_ops").Int(row.gpu_ops);
          json.Key("gpu_start_ns").Int(row.gpu_start_ns);
          json.Key("gpu_end_ns").Int(row.gpu_end_ns);
          json.Key("any_busy_ns").Int(row.any_busy_ns);
          WriteEnginesJson(json, row.engines);
          if (row.bottleneck) {
            json.Key("bottleneck").String(EngineName(*row.bottleneck));
            json.Key("roofline_ns").Int(row.roofline_ns);
          } else {
            json.Key("bottleneck").Null();
            json.Key("roofline_ns").Null();
          }
          json.EndObject();
        }
        json.EndArray();
      }
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace gpuroof
