#include "gpuroof/format/report_document.h"

#include "gpuroof/format/csv_line.h"
#include "gpuroof/format/table_cells.h"
#include "gpuroof/format/table_markdown.h"

namespace gpuroof {

std::string RenderDocumentText(const ReportDocument& document) {
  std::string out;
  size_t width = document.text.max_width;
  for (const ReportSection& section : document.sections) {
    out += section.heading + "\n";
    for (const std::string& line : section.preamble)
      out += WrapLine(line, width) + "\n";
    out += "\n";
    if (!section.table.empty()) {
      out += RenderTableText(section.table, document.text);
    } else if (!section.when_empty.empty()) {
      out += section.when_empty + "\n";
    }
    for (const std::string& line : section.footer)
      out += WrapLine(line, width) + "\n";
    out += "\n";
  }
  return out;
}

std::string RenderTableCsv(const Table& table) {
  std::vector<std::string> fields;
  for (const TableColumn& column : table.columns()) {
    if (column.in_csv) fields.push_back(column.name);
  }
  std::string out = CsvLine(fields);
  for (const auto& row : table.rows()) {
    fields.clear();
    for (size_t c = 0; c < row.size(); ++c) {
      if (table.columns()[c].in_csv) fields.push_back(PreciseCell(row[c]));
    }
    out += CsvLine(fields);
  }
  return out;
}

std::string RenderDocumentCsv(const ReportDocument& document) {
  bool with_trace = document.trace_count > 1;
  std::vector<std::string> header;
  if (with_trace) header.emplace_back("trace");
  if (document.per_device) header.emplace_back("device");
  for (const TableColumn& column : document.columns) {
    if (column.in_csv) header.push_back(column.name);
  }
  std::string out = CsvLine(header);
  for (const ReportSection& section : document.sections) {
    if (!section.in_csv) continue;
    const auto& columns = section.table.columns();
    for (const auto& row : section.table.rows()) {
      std::vector<std::string> fields;
      if (with_trace) fields.push_back(section.trace);
      if (document.per_device) {
        fields.push_back(section.device ? std::to_string(*section.device) : std::string());
      }
      for (size_t c = 0; c < columns.size(); ++c) {
        if (columns[c].in_csv) fields.push_back(PreciseCell(row[c]));
      }
      out += CsvLine(fields);
    }
  }
  return out;
}

std::string RenderDocumentMarkdown(const ReportDocument& document) {
  std::string out;
  for (const ReportSection& section : document.sections) {
    out += "### " + section.heading + "\n\n";
    for (const std::string& line : section.preamble)
      out += line + "  \n";
    out += "\n";
    if (!section.table.empty()) {
      out += RenderTableMarkdown(section.table, document.text.hide_empty_columns);
    } else if (!section.when_empty.empty()) {
      out += section.when_empty + "\n";
    }
    if (!section.footer.empty()) out += "\n";
    for (const std::string& line : section.footer)
      out += line + "  \n";
    out += "\n";
  }
  return out;
}

}  // namespace gpuroof
