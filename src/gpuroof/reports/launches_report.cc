#include "gpuroof/reports/launches_report.h"

#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// docs/cli.md, "gpuroof launches".
std::vector<TableColumn> KeyColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("kernel", "kernel", U::kName, ColumnRole::kKey),
      MakeColumn("engine", "engine", U::kText, ColumnRole::kLabel).JsonOnly(),
      MakeColumn("launches", "launches", U::kCount),
      MakeColumn("overhead_total_ns", "overhead total", U::kNs),
      MakeColumn("overhead_median_ns", "overhead median", U::kNs),
      MakeColumn("overhead_p95_ns", "overhead p95", U::kNs),
      MakeColumn("overhead_max_ns", "overhead max", U::kNs),
      MakeColumn("queued", "queued", U::kCount),
      MakeColumn("queue_median_ns", "queue median", U::kNs),
      MakeColumn("queue_p95_ns", "queue p95", U::kNs),
      MakeColumn("queue_max_ns", "queue max", U::kNs),
      MakeColumn("latency_median_ns", "latency median", U::kNs),
      MakeColumn("latency_p95_ns", "latency p95", U::kNs),
      MakeColumn("latency_max_ns", "latency max", U::kNs),
      MakeColumn("kernel_median_ns", "kernel median", U::kNs),
      MakeColumn("shorter_than_overhead", "kernel < overhead", U::kCount),
  };
}

// The columns of nsys's kernexectrace, in its order.
std::vector<TableColumn> LaunchColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("api_start_ns", "API start", U::kNs, ColumnRole::kKey).NotInText(),
      // Text and Markdown: times after the trace's first GPU op, as every text output.
      MakeColumn("api_start_after_first_op_ns", "API start", U::kNs, ColumnRole::kKey).HumanOnly(),
      MakeColumn("api_dur_ns", "API dur", U::kNs),
      MakeColumn("queue_start_ns", "queue start", U::kNs).NotInText(),
      MakeColumn("queue_start_after_first_op_ns", "queue start", U::kNs).HumanOnly(),
      MakeColumn("queue_dur_ns", "queue dur", U::kNs),
      MakeColumn("kernel_start_ns", "kernel start", U::kNs).NotInText(),
      MakeColumn("kernel_start_after_first_op_ns", "kernel start", U::kNs).HumanOnly(),
      MakeColumn("kernel_dur_ns", "kernel dur", U::kNs),
      MakeColumn("total_dur_ns", "total dur", U::kNs),
      MakeColumn("api_function", "API function", U::kText, ColumnRole::kLabel),
      MakeColumn("kernel", "kernel", U::kName, ColumnRole::kLabel),
  };
}

Table KeyTable(const DeviceLaunches& device) {
  Table table(KeyColumns());
  for (const LaunchKeyRow& row : device.rows) {
    table.AddRow({row.key, std::string(EngineName(row.engine)), row.overhead.count,
                  row.overhead.total_ns, row.overhead.median_ns, row.overhead.p95_ns,
                  row.overhead.max_ns, row.queued, row.queue.median_ns, row.queue.p95_ns,
                  row.queue.max_ns, row.latency.median_ns, row.latency.p95_ns, row.latency.max_ns,
                  row.kernel.median_ns, row.shorter_than_overhead});
  }
  return table;
}

// One row per launch. The queue cells are unset when the kernel did not wait after the call
// returned, as kernexectrace leaves them empty.
Table LaunchTable(const Trace& trace, const DeviceLaunches& device, KernelKey key) {
  Table table(LaunchColumns());
  const int64_t origin_ns = trace.FirstGpuOpNs();
  // Keys per signature, derived once (the short name parses the demangled signature).
  std::unordered_map<uint32_t, std::string> key_of_signature;
  for (const KernelLaunch& launch : device.records) {
    auto [known, added] = key_of_signature.try_emplace(launch.signature);
    if (added) known->second = KernelKeyText(trace, trace.signatures[launch.signature], key);
    TableCell queue_start = launch.queued() ? TableCell(launch.api_end_ns) : TableCell{};
    TableCell queue_start_after =
        launch.queued() ? TableCell(launch.api_end_ns - origin_ns) : TableCell{};
    TableCell queue_dur = launch.queued() ? TableCell(launch.queue_ns()) : TableCell{};
    table.AddRow({launch.api_start_ns, launch.api_start_ns - origin_ns, launch.overhead_ns(),
                  queue_start, queue_start_after, queue_dur, launch.kernel_start_ns,
                  launch.kernel_start_ns - origin_ns, launch.kernel_end_ns - launch.kernel_start_ns,
                  launch.total_ns(), std::string(trace.strings.Get(launch.api_name)),
                  known->second});
  }
  return table;
}

Table DeviceTable(const LaunchesReport& report, const Trace& trace, const DeviceLaunches& device) {
  return report.per_launch ? LaunchTable(trace, device, report.key) : KeyTable(device);
}

}  // namespace

std::vector<std::string> LaunchesNotes(const DeviceLaunches& device) {
  std::vector<std::string> notes;
  if (device.unmatched > 0) {
    notes.push_back(fmt::format("{} in the window left out: the trace lacks their launching call",
                                CountOf(device.unmatched, "kernel", "kernels")));
  }
  if (device.shared_call_kernels > 0) {
    // Named by what the calls are: a graph launch only when the call is one.
    const int64_t graph_calls = device.shared_calls - device.shared_non_graph_calls;
    std::string what;
    if (device.shared_non_graph_calls == 0) {
      what = "CUDA graph launches";
    } else {
      what = fmt::format(
          "{}{}: not graph launches, so some op records share a call (duplicated rows?)",
          graph_calls > 0 ? fmt::format("{} graph launch(es); ", graph_calls) : "",
          fmt::format("{} of {}", device.shared_non_graph_calls, device.shared_non_graph_names));
    }
    notes.push_back(fmt::format(
        "{} in the window left out: {} launched several ops each ({}), and a call's overhead is "
        "not one kernel's",
        CountOf(device.shared_call_kernels, "kernel", "kernels"),
        CountOf(device.shared_calls, "call", "calls"), what));
  }
  if (device.graph_launches > 0) {
    notes.push_back(fmt::format(
        "{} ({} on the GPU) in the window left out: CUDA graphs traced as whole graphs, their "
        "kernels not one by one (nsys --cuda-graph-trace=node traces them)",
        CountOf(device.graph_launches, "whole-graph launch", "whole-graph launches"),
        HumanDurationNs(static_cast<double>(device.graph_sum_ns))));
  }
  if (device.early_starts > 0) {
    notes.push_back(fmt::format(
        "{} before its launching call started (negative latency: clock skew between CPU and "
        "GPU, or a wrong join); kept in the figures",
        CountOf(device.early_starts, "kernel starts", "kernels start")));
  }
  return notes;
}

ReportDocument LaunchesDocument(const LaunchesReport& report) {
  return PerDeviceDocument(
      report, report.per_launch ? LaunchColumns() : KeyColumns(),
      [&](ReportSection& section, const Trace& trace, const DeviceLaunches& device) {
        section.preamble.push_back(fmt::format("{} joined to their launching call (key: {})",
                                               CountOf(device.launches, "kernel", "kernels"),
                                               KernelKeyName(report.key)));
        section.left_out = LaunchesNotes(device);  // on stderr with CSV
        for (const std::string& note : section.left_out)
          section.preamble.push_back("note: " + note);
        section.table = DeviceTable(report, trace, device);
        section.when_empty = "no launch in the window";
      });
}

std::string RenderLaunchesJson(const LaunchesReport& report) {
  auto options = [&report](JsonWriter& json) {
    json.Key("window").String(report.window_text);
    json.Key("key").String(KernelKeyName(report.key));
    json.Key("per_launch").Bool(report.per_launch);
  };
  auto fields = [&report](JsonWriter& json, const Trace& trace, const DeviceLaunches& device) {
    json.Key("launches").Int(device.launches);
    json.Key("unmatched").Int(device.unmatched);
    json.Key("shared_call_kernels").Int(device.shared_call_kernels);
    json.Key("shared_calls").Int(device.shared_calls);
    json.Key("graph_launches").Int(device.graph_launches);
    json.Key("graph_sum_ns").Int(device.graph_sum_ns);
    json.Key("outside_kernels").Int(device.outside_kernels);
    json.Key("early_starts").Int(device.early_starts);
    json.Key(report.per_launch ? "records" : "kernels");
    WriteTableRowsJson(json, DeviceTable(report, trace, device));
  };
  return RenderPerDeviceJson(report, "gpuroof.launches/1", options, fields);
}

}  // namespace gpuroof
