#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/format/table.h"
#include "gpuroof/format/table_text.h"

namespace gpuroof {

// A breakdown report in neutral form: one section per (trace, device) or per trace, each with a
// few lines of context and one table. The text, CSV and Markdown writers render any document;
// JSON reports nest the same tables under their own schema (WriteTableRowsJson).
struct ReportSection {
  std::string trace;                  // the input's path: a leading CSV column with several traces
  std::optional<int32_t> device;      // a leading CSV column when set
  std::string heading;                // the first text line; a Markdown heading
  std::vector<std::string> preamble;  // lines between the heading and the table
  Table table;
  std::string when_empty;           // printed instead of a table that has no row
  std::vector<std::string> footer;  // lines after the table (rows left out, warnings)
  // What the table leaves out (rows after --top, records no row counts), as notes: each is also
  // said in the preamble or footer, which a CSV has no place for, so the CLI prints these on
  // stderr with a CSV (PrintLeftOutNotes in src/cli/output_options.h).
  std::vector<std::string> left_out;
  // False for a section whose table has other columns than the document's (a summary after the
  // main table): text and Markdown show it, CSV (one table) leaves it out.
  bool in_csv = true;
};

struct ReportDocument {
  std::vector<TableColumn> columns;  // every section's table has these (the CSV header)
  std::vector<ReportSection> sections;
  bool per_device = true;  // CSV rows lead with a "device" column
  size_t trace_count = 0;  // CSV rows lead with a "trace" column when more than one
  TextTableOptions text;
};

// One table as CSV: the names of its CSV columns, then a line per row at full precision
// (PreciseCell: base units, unset cells empty).
std::string RenderTableCsv(const Table& table);

// Sections one after another: heading, preamble, a blank line, the table (indented), footer.
std::string RenderDocumentText(const ReportDocument& document);
// One CSV table of every section's rows (sections with in_csv), at full precision in base units,
// with the leading trace/device columns; the header even when there is no row.
std::string RenderDocumentCsv(const ReportDocument& document);
// Sections as "### heading", the preamble as lines, the table as a Markdown table.
std::string RenderDocumentMarkdown(const ReportDocument& document);

}  // namespace gpuroof
