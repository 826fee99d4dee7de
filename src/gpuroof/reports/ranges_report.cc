#include "gpuroof/reports/ranges_report.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {
namespace {

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

std::string RangeName(const Trace& trace, const RangeInstanceLoad& row) {
  return std::string(trace.strings.Get(trace.nvtx_ranges[row.range_index].name));
}

// Per engine: a human-only busy column (unset where the engine has no work, so text leaves out
// engines without work anywhere; a preamble line says what it holds) and the fixed CSV pair
// ops, busy_ns.
void AppendEngineColumns(std::vector<TableColumn>& columns) {
  for (Engine engine : kAllEngines) {
    columns.push_back(MakeColumn(LowerEngineName(engine) + "_busy_shown",
                                 std::string(EngineName(engine)), ColumnUnit::kNs)
                          .HumanOnly());
  }
  for (Engine engine : kAllEngines) {
    columns.push_back(
        MakeColumn(LowerEngineName(engine) + "_ops", "ops", ColumnUnit::kCount).NotInText());
    columns.push_back(
        MakeColumn(LowerEngineName(engine) + "_busy_ns", "busy", ColumnUnit::kNs).NotInText());
  }
}

void AppendEngineCells(const std::array<RangeEngineWork, kEngineCount>& engines, double divisor,
                       std::vector<TableCell>& cells) {
  for (Engine engine : kAllEngines) {
    const RangeEngineWork& work = WorkOf(engines, engine);
    cells.push_back(work.ops > 0 ? TableCell(static_cast<double>(work.busy_ns) / divisor)
                                 : TableCell());
  }
  for (Engine engine : kAllEngines) {
    cells.push_back(WorkOf(engines, engine).ops);
    cells.push_back(WorkOf(engines, engine).busy_ns);
  }
}

// One row per range name (docs/cli.md, "gpuroof ranges").
std::vector<TableColumn> GroupColumns() {
  using U = ColumnUnit;
  std::vector<TableColumn> columns = {
      MakeColumn("range", "range", U::kName, ColumnRole::kKey).NotInText(),
      MakeColumn("range_shown", "range", U::kName, ColumnRole::kKey).HumanOnly(),
      MakeColumn("side", "side", U::kText, ColumnRole::kKey).NotInText(),
      MakeColumn("method", "method", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("instances", "inst", U::kCount),
      MakeColumn("cpu_total_ns", "cpu total", U::kNs),
      MakeColumn("cpu_mean_ns", "mean", U::kNs).NotInText(),
      MakeColumn("cpu_median_ns", "median", U::kNs),
      MakeColumn("cpu_min_ns", "min", U::kNs).NotInText(),
      MakeColumn("cpu_max_ns", "max", U::kNs).NotInText(),
      MakeColumn("cpu_p95_ns", "p95", U::kNs),
      MakeColumn("gpu_ops", "gpu ops", U::kCount),
      MakeColumn("instances_with_gpu_work", "with work", U::kCount).NotInText(),
  };
  AppendEngineColumns(columns);
  columns.push_back(MakeColumn("bottleneck", "bottleneck", U::kText, ColumnRole::kLabel));
  columns.push_back(MakeColumn("roofline_ns_per_instance", "roofline", U::kNs));
  columns.push_back(MakeColumn("instances_per_s", "inst/s", U::kRatio).HumanOnly());
  return columns;
}

// With --name: one row per instance and device.
std::vector<TableColumn> InstanceColumns() {
  using U = ColumnUnit;
  std::vector<TableColumn> columns = {
      MakeColumn("range", "range", U::kName, ColumnRole::kKey),
      MakeColumn("side", "side", U::kText, ColumnRole::kKey).NotInText(),
      MakeColumn("method", "method", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("instance", "#", U::kCount, ColumnRole::kKey),
      MakeColumn("device", "device", U::kCount, ColumnRole::kKey),
      MakeColumn("cpu_start_ns", "start", U::kNs).NotInText(),
      MakeColumn("cpu_start_after_first_event_ns", "start", U::kNs).HumanOnly(),
      MakeColumn("cpu_end_ns", "end", U::kNs).NotInText(),
      MakeColumn("cpu_duration_ns", "cpu", U::kNs).HumanOnly(),
      MakeColumn("gpu_ops", "gpu ops", U::kCount),
      MakeColumn("gpu_start_ns", "gpu start", U::kNs).NotInText(),
      MakeColumn("gpu_end_ns", "gpu end", U::kNs).NotInText(),
      MakeColumn("gpu_span_ns", "gpu span", U::kNs).HumanOnly(),
      MakeColumn("any_busy_ns", "any busy", U::kNs).NotInText(),
  };
  AppendEngineColumns(columns);
  columns.push_back(MakeColumn("bottleneck", "bottleneck", U::kText, ColumnRole::kLabel));
  columns.push_back(MakeColumn("roofline_ns", "roofline", U::kNs));
  return columns;
}

Table InstanceTable(const Trace& trace, const RangeSummary& summary) {
  Table table(InstanceColumns());
  int64_t origin_ns = trace.FirstGpuOpNs();
  for (const RangeGroup& group : summary.groups) {
    for (const RangeInstanceLoad& row : group.instance_rows) {
      const NvtxRange& range = trace.nvtx_ranges[row.range_index];
      bool work = row.gpu_ops > 0;
      std::vector<TableCell> cells = {
          RangeName(trace, row) + (group.on_gpu ? " (gpu)" : ""),
          std::string(Side(group.on_gpu)),
          std::string(MethodName(group.method)),
          row.ordinal,
          row.device_id < 0 ? TableCell() : TableCell(int64_t{row.device_id}),
          range.start_ns,
          range.start_ns - origin_ns,
          range.end_ns,
          range.end_ns - range.start_ns,
          row.gpu_ops,
          work ? TableCell(row.gpu_start_ns) : TableCell(),
          work ? TableCell(row.gpu_end_ns) : TableCell(),
          work ? TableCell(row.gpu_span_ns()) : TableCell(),
          row.any_busy_ns};
      AppendEngineCells(row.engines, 1.0, cells);
      cells.push_back(row.bottleneck ? TableCell(std::string(EngineName(*row.bottleneck)))
                                     : TableCell());
      cells.push_back(row.bottleneck ? TableCell(row.roofline_ns) : TableCell());
      table.AddRow(std::move(cells));
    }
  }
  return table;
}

}  // namespace

Table GroupTable(const RangeSummary& summary) {
  Table table(GroupColumns());
  for (const RangeGroup& group : summary.groups) {
    const DurationStats& cpu = group.cpu;
    const bool bound = group.bottleneck && group.roofline_ns_per_instance > 0;
    std::vector<TableCell> cells = {group.name,
                                    group.name + (group.on_gpu ? " (gpu)" : ""),
                                    std::string(Side(group.on_gpu)),
                                    std::string(MethodName(group.method)),
                                    cpu.count,
                                    cpu.total_ns,
                                    cpu.mean_ns,
                                    cpu.median_ns,
                                    cpu.min_ns,
                                    cpu.max_ns,
                                    cpu.p95_ns,
                                    group.gpu_ops,
                                    group.instances_with_work};
    AppendEngineCells(group.engines, static_cast<double>(cpu.count), cells);
    cells.push_back(group.bottleneck ? TableCell(std::string(EngineName(*group.bottleneck)))
                                     : TableCell());
    cells.push_back(group.bottleneck ? TableCell(group.roofline_ns_per_instance) : TableCell());
    cells.push_back(bound ? TableCell(1e9 / group.roofline_ns_per_instance) : TableCell());
    table.AddRow(std::move(cells));
  }
  return table;
}

namespace {

// The GPU ops no range can be given: no API call in the trace launched them.
std::string UnmatchedOpsNote(const RangeSummary& summary) {
  return fmt::format("{} GPU op{} launched by no API call in the trace (not attributed)",
                     summary.unmatched_ops, summary.unmatched_ops == 1 ? " was" : "s were");
}

}  // namespace

std::vector<std::string> RangeSummaryNotes(const RangeSummary& summary) {
  std::vector<std::string> notes;
  if (!summary.method_note.empty()) notes.push_back("note: " + summary.method_note);
  if (!summary.resolved.empty()) notes.push_back("range: " + summary.resolved);
  for (const RangeGroup& group : summary.groups) {
    if (group.on_gpu || group.method != AttributionMethod::kLaunchCorrelation) continue;
    if (group.scope == RangeScope::kProcess) {
      notes.push_back(fmt::format("'{}': launches by any thread of the process count", group.name));
    } else if (group.other_thread_ops > 0) {
      notes.push_back(
          fmt::format("note: '{}': {}", group.name, OtherThreadNote(group.other_thread_ops)));
    }
  }
  for (const RangeGroup& group : summary.groups) {
    if (group.overlapping_instances == 0) continue;
    notes.push_back(fmt::format(
        "note: {}: each gets the GPU work it holds, so that work is counted once per instance in "
        "gpu ops and the per-instance figures (analyze --units-from nvtx: counts only the "
        "outermost)",
        OverlappingInstancesText(static_cast<size_t>(group.overlapping_instances),
                                 static_cast<size_t>(group.cpu.count), "'" + group.name + "'")));
  }
  for (const RangeGroup& group : summary.groups) {
    // The per-instance figures average over every instance; analyze --units-from counts only the
    // instances with work as units: said, so that the two commands' per-step figures reconcile.
    // analyze counts units per device, so one count is given only for work on one device.
    const int64_t without_work = group.cpu.count - group.instances_with_work;
    if (group.instances_with_work == 0 || without_work <= 0) continue;
    const std::string units =
        group.devices < 2 ? fmt::format("over the {} with work", group.instances_with_work)
                          : std::string("on each device, over the instances with work on it");
    notes.push_back(
        fmt::format("note: '{}': {} of {} instance(s) had no GPU work; the "
                    "per-instance figures average over all {} (analyze --units-from: "
                    "{})",
                    group.name, without_work, group.cpu.count, group.cpu.count, units));
  }
  for (const RangeGroup& group : summary.groups) {
    if (!group.launches_without_op_note.empty()) {
      notes.push_back("note: " + group.launches_without_op_note);
    }
  }
  for (const RangeGroup& group : summary.groups) {
    if (group.devices < 2) continue;
    notes.push_back(fmt::format(
        "note: '{}': its work ran on {} devices: the engine figures add their busy time; the "
        "roofline per instance takes each instance's busiest device (docs/metrics.md, \"Per "
        "group\")",
        group.name, group.devices));
  }
  if (summary.unmatched_ops > 0) notes.push_back("note: " + UnmatchedOpsNote(summary));
  return notes;
}

ReportDocument RangesDocument(const RangesReport& report) {
  ReportDocument document = PerTraceDocument(
      report, report.name.empty() ? GroupColumns() : InstanceColumns(),
      [&report](ReportSection& section, const RangesOfTrace& ranges) {
        const RangeSummary& summary = ranges.result;
        section.heading = fmt::format("{} · NVTX ranges · GPU work by {}", ranges.trace->source,
                                      MethodName(summary.method));
        std::vector<std::string> notes = RangeSummaryNotes(summary);
        section.preamble.insert(section.preamble.end(), notes.begin(), notes.end());
        // The method and thread notes reach stderr from the command in every format.
        if (summary.unmatched_ops > 0) section.left_out.push_back(UnmatchedOpsNote(summary));
        section.table =
            report.name.empty() ? GroupTable(summary) : InstanceTable(*ranges.trace, summary);
        section.preamble.push_back(report.name.empty()
                                       ? "engine columns: GPU busy time per instance; (gpu): a "
                                         "range on the GPU timeline; full figures in --format "
                                         "csv or json"
                                       : "engine columns: GPU busy time of the instance; start: "
                                         "after the first GPU op");
      });
  document.text.hide_empty_columns = true;  // engines without work anywhere
  // Range names are the user's strings, not C++ signatures: cut only, so that what is printed
  // is a prefix of the name (docs/formats.md, "Tables").
  document.text.shorten_name = CutToWidth;
  return document;
}

namespace {

// "duration": the CPU-side statistics of a range's instances.
void WriteDurationJson(JsonWriter& json, const DurationStats& cpu) {
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

std::string RenderRangesJson(const RangesReport& report) {
  auto options = [&report](JsonWriter& json) { WriteTextOrNullJson(json, "name", report.name); };
  auto fields = [&report](JsonWriter& json, const RangesOfTrace& ranges) {
    const RangeSummary& summary = ranges.result;
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
      json.Key("overlapping_instances").Int(group.overlapping_instances);
      json.Key("launches_without_gpu_op").Int(group.launches_without_op);
      json.Key("instances").Int(cpu.count);
      WriteDurationJson(json, cpu);
      json.Key("gpu_ops").Int(group.gpu_ops);
      json.Key("instances_with_gpu_work").Int(group.instances_with_work);
      WriteEnginesJson(json, group.engines);
      WriteBottleneckJson(json, group.bottleneck);
      json.Key("roofline_ns_per_instance")
          .Double(group.bottleneck ? std::optional(group.roofline_ns_per_instance) : std::nullopt);
      if (!report.name.empty()) {
        json.Key("instances_detail").BeginArray();
        for (const RangeInstanceLoad& row : group.instance_rows) {
          const NvtxRange& range = ranges.trace->nvtx_ranges[row.range_index];
          json.BeginObject();
          json.Key("instance").Int(row.ordinal);
          json.Key("name").String(RangeName(*ranges.trace, row));  // as the CSV's range column
          json.Key("start_ns").Int(range.start_ns);
          json.Key("end_ns").Int(range.end_ns);
          if (row.device_id < 0) {
            json.Key("device").Null();
          } else {
            json.Key("device").Int(row.device_id);
          }
          json.Key("gpu_ops").Int(row.gpu_ops);
          // No GPU work: no GPU start or end (0 would be a time, the clock's origin).
          const bool work = row.gpu_ops > 0;
          json.Key("gpu_start_ns").Int(work ? std::optional(row.gpu_start_ns) : std::nullopt);
          json.Key("gpu_end_ns").Int(work ? std::optional(row.gpu_end_ns) : std::nullopt);
          json.Key("any_busy_ns").Int(row.any_busy_ns);
          WriteEnginesJson(json, row.engines);
          WriteBottleneckJson(json, row.bottleneck);
          json.Key("roofline_ns")
              .Int(row.bottleneck ? std::optional<int64_t>(row.roofline_ns) : std::nullopt);
          json.EndObject();
        }
        json.EndArray();
      }
      json.EndObject();
    }
    json.EndArray();
  };
  return RenderPerTraceJson(report, "gpuroof.ranges/1", options, fields);
}

}  // namespace gpuroof
