#include "gpuroof/reports/copy_report.h"

#include <fmt/format.h>

#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/table_json.h"
#include "gpuroof/reports/report_json.h"
#include "gpuroof/reports/report_text.h"

namespace gpuroof {

namespace {

std::string DstKindName(const CopyRow& row) {
  return row.engine == Engine::kMemset ? "" : std::string(MemoryKindName(row.dst_kind));
}

// The columns of a copy class, once for every format (docs/cli.md, "gpuroof copies").
std::vector<TableColumn> CopyColumns() {
  using U = ColumnUnit;
  return {
      MakeColumn("copy", "copy", U::kText, ColumnRole::kKey),
      MakeColumn("engine", "engine", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("src_kind", "src", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("dst_kind", "dst", U::kText, ColumnRole::kLabel).NotInText(),
      MakeColumn("count", "count", U::kCount),
      MakeColumn("bytes", "bytes", U::kBytes),
      MakeColumn("total_ns", "total", U::kNs),
      MakeColumn("op_time_ns", "op time", U::kNs),
      MakeColumn("median_ns", "median", U::kNs),
      MakeColumn("bandwidth_gbps", "", U::kGbps),
      MakeColumn("median_bandwidth_gbps", "median", U::kGbps),
      MakeColumn("pageable", "pageable", U::kFlag, ColumnRole::kLabel),
  };
}

}  // namespace

Table CopyTable(const DeviceCopies& device) {
  Table table(CopyColumns());
  for (const CopyRow& row : device.rows) {
    table.AddRow({CopyLabel(row.engine, row.src_kind, row.dst_kind),
                  std::string(EngineName(row.engine)), std::string(MemoryKindName(row.src_kind)),
                  DstKindName(row), row.count, static_cast<int64_t>(row.bytes), row.sum_ns,
                  row.op_time_ns, row.median_ns, OptionalCell(row.bandwidth_gbps),
                  OptionalCell(row.median_bandwidth_gbps), row.pageable});
  }
  return table;
}

ReportDocument CopyDocument(const CopyReport& report) {
  return PerDeviceDocument(
      report, CopyColumns(), [](ReportSection& section, const Trace&, const DeviceCopies& device) {
        section.table = CopyTable(device);
        section.when_empty = "no copy or memset in the window (--window all covers every op)";
        std::vector<std::string> rate_notes = CopyRateNotes(device);
        if (!rate_notes.empty()) section.footer.push_back("");
        for (const std::string& note : rate_notes) {
          section.footer.push_back("note: " + note);
          section.left_out.push_back(note);  // on stderr with CSV
        }
        std::string warning = PageableWarning(device);
        if (!warning.empty()) {
          section.footer.push_back("");
          section.footer.push_back(warning);
        }
      });
}

std::vector<std::string> CopyRateNotes(const DeviceCopies& device) {
  std::vector<std::string> notes;
  for (const CopyRow& row : device.rows) {
    std::string note = ZeroDurationRateNote(CopyLabel(row.engine, row.src_kind, row.dst_kind),
                                            row.engine, row.rate);
    if (!note.empty()) notes.push_back(std::move(note));
  }
  return notes;
}

std::string PageableWarning(const DeviceCopies& device) {
  int64_t count = device.pageable_count();
  if (count == 0) return "";
  // The stake in the warning's own words: how many bytes and how much copy time.
  return fmt::format(
      "warning: {} ({}, {} of copy time) {} pageable host memory: {} cannot overlap with "
      "kernels — the classic async memcpy that isn't",
      CountOf(count, "copy", "copies"), HumanBytes(static_cast<double>(device.pageable_bytes())),
      HumanDurationNs(static_cast<double>(device.pageable_time_ns())), count == 1 ? "uses" : "use",
      count == 1 ? "it" : "they");
}

std::string RenderCopyJson(const CopyReport& report) {
  auto options = [&report](JsonWriter& json) { json.Key("window").String(report.window_text); };
  auto fields = [](JsonWriter& json, const Trace&, const DeviceCopies& device) {
    json.Key("copies");
    WriteTableRowsJson(json, CopyTable(device));
    json.Key("pageable").BeginObject();
    json.Key("count").Int(device.pageable_count());
    json.Key("bytes").UInt(device.pageable_bytes());
    json.Key("op_time_ns").Int(device.pageable_time_ns());
    json.Key("warning").String(PageableWarning(device));
    json.EndObject();
    // The copies the rows' bandwidth_gbps leave out (ByteRate), over every row.
    ByteRate left_out;
    for (const CopyRow& row : device.rows) {
      left_out.zero_duration_ops += row.rate.zero_duration_ops;
      left_out.zero_duration_bytes += row.rate.zero_duration_bytes;
    }
    json.Key("zero_duration").BeginObject();
    json.Key("count").Int(left_out.zero_duration_ops);
    json.Key("bytes").UInt(left_out.zero_duration_bytes);
    WriteStringArrayJson(json, "notes", CopyRateNotes(device));
    json.EndObject();
  };
  return RenderPerDeviceJson(report, "gpuroof.copies/1", options, fields);
}

}  // namespace gpuroof
