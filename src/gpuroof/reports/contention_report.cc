#include "gpuroof/reports/contention_report.h"

#include <cmath>

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

// The loss as printed: rounding noise of equal bandwidths (1e-14 %) shows as 0.00, not -0.00.
std::optional<double> PrintedLoss(const DirectionContention& direction) {
  std::optional<double> loss = direction.loss_pct();
  if (loss && std::abs(*loss) < 0.005) return 0.0;
  return loss;
}

// The columns of a copy direction, once for every format (docs/cli.md, "copies --contention").
std::vector<TableColumn> ContentionColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("direction", "copy", U::kText, ColumnRole::kKey).HumanOnly(),
      MakeColumn("copy", "copy", U::kText, ColumnRole::kKey).NotInText(),
      MakeColumn("opposite", "opposite", U::kText, ColumnRole::kKey).NotInText(),
      MakeColumn("ops", "ops", U::kCount),
      MakeColumn("time_ns", "time", U::kNs).NotInText(),
      MakeColumn("bytes", "bytes", U::kBytes),
      MakeColumn("opposite_busy_ns", "opp. busy", U::kNs),
      MakeColumn("opposite_busy_bytes", "opp. busy", U::kBytes).NotInText(),
      MakeColumn("opposite_busy_gbps", "", U::kGbps),
      MakeColumn("opposite_idle_ns", "opp. idle", U::kNs),
      MakeColumn("opposite_idle_bytes", "opp. idle", U::kBytes).NotInText(),
      MakeColumn("opposite_idle_gbps", "", U::kGbps),
      MakeColumn("busy_share_pct", "busy share", U::kPercent),
      MakeColumn("loss", "loss", U::kPercent).HumanOnly(),
      MakeColumn("loss_pct", "loss", U::kPercent).NotInText(),
      MakeColumn("reading", "reading", U::kText, ColumnRole::kLabel).JsonOnly(),
  };
}

Table ContentionTable(const DeviceContention& device) {
  Table table(ContentionColumns());
  for (const DirectionContention& d : device.directions) {
    table.AddRow({fmt::format("{} vs {}", EngineName(d.engine), EngineName(d.opposite)),
                  std::string(EngineName(d.engine)), std::string(EngineName(d.opposite)), d.ops,
                  d.time_ns(), d.bytes(), d.opposite_busy.time_ns, d.opposite_busy.bytes,
                  OptionalCell(d.opposite_busy.bandwidth_gbps()), d.opposite_idle.time_ns,
                  d.opposite_idle.bytes, OptionalCell(d.opposite_idle.bandwidth_gbps()),
                  OptionalCell(d.busy_share_pct()), OptionalCell(PrintedLoss(d)),
                  OptionalCell(d.loss_pct()), ContentionReading(d)});
  }
  return table;
}

}  // namespace

ReportDocument ContentionDocument(const ContentionReport& report) {
  return PerDeviceDocument(
      report, ContentionColumns(),
      [](ReportSection& section, const Trace&, const DeviceContention& device) {
        if (device.zero_time_copies > 0) {
          section.left_out.push_back(ZeroTimeNote(device));  // on stderr with CSV
          section.preamble.push_back("note: " + section.left_out.back());
        }
        section.table = ContentionTable(device);
        section.when_empty = "no H2D or D2H copy takes time in the window";
        section.footer.emplace_back();
        for (const DirectionContention& d : device.directions)
          section.footer.push_back(ContentionReading(d));
      });
}

std::string ZeroTimeNote(const DeviceContention& device) {
  if (device.zero_time_copies == 0) return "";
  return fmt::format("{} ({}) in the window left out: they take no time, so have no bandwidth",
                     CountOf(device.zero_time_copies, "H2D/D2H copy", "H2D/D2H copies"),
                     HumanBytes(static_cast<double>(device.zero_time_bytes)));
}

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

std::string RenderContentionJson(const ContentionReport& report) {
  auto options = [&report](JsonWriter& json) { json.Key("window").String(report.window_text); };
  auto fields = [](JsonWriter& json, const Trace&, const DeviceContention& device) {
    json.Key("zero_time_copies").Int(device.zero_time_copies);
    json.Key("zero_time_bytes").UInt(device.zero_time_bytes);
    json.Key("directions");
    WriteTableRowsJson(json, ContentionTable(device));
  };
  return RenderPerDeviceJson(report, "gpuroof.contention/2", options, fields);
}

}  // namespace gpuroof
