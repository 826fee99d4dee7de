#include "gpuroof/reports/kernel_report.h"

#include <array>

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// The key column's title: what the rows are keyed by.
constexpr std::array<EnumName<KernelKey>, 3> kKeyTitles = {{
    {KernelKey::kName, "kernel"},
    {KernelKey::kDemangled, "kernel (demangled)"},
    {KernelKey::kLaunch, "kernel <<<grid,block>>>"},
}};

std::string KeyTitle(KernelKey key) {
  return std::string(NameOf(kKeyTitles, key, "kernel"));
}

// The columns of a kernel row, once for every format (docs/cli.md, "gpuroof kernels").
std::vector<TableColumn> KernelColumns(KernelKey key) {
  using U = ColumnUnit;
  return {
      MakeColumn("kernel", KeyTitle(key), U::kName, ColumnRole::kKey).WithJsonKey("key"),
      MakeColumn("name", "name", U::kName, ColumnRole::kLabel).JsonOnly(),
      MakeColumn("engine", "engine", U::kText, ColumnRole::kLabel),
      MakeColumn("grid", "grid", U::kText, ColumnRole::kLabel).JsonOnly().OmitUnsetInJson(),
      MakeColumn("block", "block", U::kText, ColumnRole::kLabel).JsonOnly().OmitUnsetInJson(),
      MakeColumn("instances", "instances", U::kCount),
      MakeColumn("total_ns", "total", U::kNs),
      MakeColumn("mean_ns", "avg", U::kNs),
      MakeColumn("median_ns", "median", U::kNs),
      MakeColumn("min_ns", "min", U::kNs),
      MakeColumn("max_ns", "max", U::kNs),
      MakeColumn("stddev_ns", "stddev", U::kNs),
      MakeColumn("p95_ns", "p95", U::kNs),
      MakeColumn("p99_ns", "p99", U::kNs),
      MakeColumn("sum_share_pct", "sum", U::kPercent),
      MakeColumn("busy_share_pct", "busy", U::kPercent),
  };
}

TableCell DimCell(const std::optional<std::array<uint32_t, 3>>& dim) {
  if (!dim) return std::monostate{};
  return Dim3{(*dim)[0], (*dim)[1], (*dim)[2]};
}

}  // namespace

Table KernelTable(const DeviceKernels& device, KernelKey key) {
  std::vector<TableColumn> columns = KernelColumns(key);
  // The engine column tells collectives (comm) from compute; without collectives it says
  // nothing a text reader needs.
  columns[2].in_text = device.comm_ops > 0;
  Table table(std::move(columns));
  for (const KernelRow& row : device.rows) {
    const DurationStats& s = row.stats;
    bool launch_shape = row.grid && row.block;
    table.AddRow({row.key, row.name, std::string(EngineName(row.engine)),
                  launch_shape ? DimCell(row.grid) : TableCell{},
                  launch_shape ? DimCell(row.block) : TableCell{}, s.count, s.total_ns, s.mean_ns,
                  s.median_ns, s.min_ns, s.max_ns, s.stddev_ns, s.p95_ns, s.p99_ns,
                  OptionalCell(row.sum_share_pct), OptionalCell(row.busy_share_pct)});
  }
  return table;
}

ReportDocument KernelDocument(const KernelReport& report) {
  return PerDeviceDocument(
      report, KernelColumns(report.key),
      [&](ReportSection& section, const Trace&, const DeviceKernels& device) {
        std::string totals =
            fmt::format("{} of {} (key: {}) · sum {} · busy {}",
                        CountOf(device.kernel_ops, "launch", "launches"),
                        CountOf(device.key_count, "kernel", "kernels"), KernelKeyName(report.key),
                        HumanDurationNs(static_cast<double>(device.kernel_sum_ns)),
                        HumanDurationNs(static_cast<double>(device.kernel_busy_ns)));
        if (device.comm_ops > 0) {
          // Collectives are their own engine: their rows say so, their shares are of comm.
          totals += fmt::format(" · communication (comm): {} · sum {} · busy {}",
                                CountOf(device.comm_ops, "launch", "launches"),
                                HumanDurationNs(static_cast<double>(device.comm_sum_ns)),
                                HumanDurationNs(static_cast<double>(device.comm_busy_ns)));
        }
        section.preamble.push_back(totals);
        if (device.graph_ops > 0) {
          // Their time is compute (analyze's graph engine) but no row can show it.
          section.preamble.push_back(fmt::format(
              "not listed: {} (engine graph) · sum {} · busy {}: CUDA graphs traced as whole "
              "graphs, their kernels not one by one (nsys --cuda-graph-trace=node lists them)",
              CountOf(device.graph_ops, "whole-graph launch", "whole-graph launches"),
              HumanDurationNs(static_cast<double>(device.graph_sum_ns)),
              HumanDurationNs(static_cast<double>(device.graph_busy_ns))));
          section.left_out.push_back(
              fmt::format("{} ({} busy) not listed: CUDA graphs traced as whole graphs, their "
                          "kernels not one by one",
                          CountOf(device.graph_ops, "whole-graph launch", "whole-graph launches"),
                          HumanDurationNs(static_cast<double>(device.graph_busy_ns))));
        }
        section.table = KernelTable(device, report.key);
        if (device.omitted_keys > 0) {
          const std::string omitted =
              fmt::format("{} more {} (--top {}): {}, {}", device.omitted_keys,
                          device.omitted_keys == 1 ? "kernel" : "kernels", report.top,
                          CountOf(device.omitted_ops, "launch", "launches"),
                          HumanDurationNs(static_cast<double>(device.omitted_total_ns)));
          section.footer.push_back("  ... " + omitted);
          section.left_out.push_back("not listed: " + omitted);
        }
      });
}

std::string RenderKernelJson(const KernelReport& report) {
  auto options = [&report](JsonWriter& json) {
    json.Key("window").String(report.window_text);
    json.Key("key").String(KernelKeyName(report.key));
    json.Key("top").Int(report.top > 0 ? std::optional<int64_t>(report.top) : std::nullopt);
  };
  auto fields = [&report](JsonWriter& json, const Trace&, const DeviceKernels& device) {
    json.Key("kernel_ops").Int(device.kernel_ops);
    json.Key("kernel_sum_ns").Int(device.kernel_sum_ns);
    json.Key("kernel_busy_ns").Int(device.kernel_busy_ns);
    json.Key("comm_ops").Int(device.comm_ops);
    json.Key("comm_sum_ns").Int(device.comm_sum_ns);
    json.Key("comm_busy_ns").Int(device.comm_busy_ns);
    json.Key("graph_ops").Int(device.graph_ops);
    json.Key("graph_sum_ns").Int(device.graph_sum_ns);
    json.Key("graph_busy_ns").Int(device.graph_busy_ns);
    json.Key("keys").Int(device.key_count);
    json.Key("omitted").BeginObject();
    json.Key("keys").Int(device.omitted_keys);
    json.Key("instances").Int(device.omitted_ops);
    json.Key("total_ns").Int(device.omitted_total_ns);
    json.EndObject();
    json.Key("kernels");
    WriteTableRowsJson(json, KernelTable(device, report.key));
  };
  return RenderPerDeviceJson(report, "gpuroof.kernels/1", options, fields);
}

}  // namespace gpuroof
