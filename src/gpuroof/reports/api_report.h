#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/api_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using ApiOfTrace = ResultOfTrace<ApiSummary>;
using ApiReport = WindowedTracesReport<ApiOfTrace>;

// "N calls outside the window left out" and "N PyTorch .item() op(s) ... left out": the table
// header's words; the first is also the CLI's window note on stderr, the second the section's
// left_out note (on stderr with CSV). Empty when there are none.
std::string OutsideCallsNote(const ApiSummary& summary);
std::string ScalarReadsNote(const ApiSummary& summary);

// Text, CSV and Markdown render this document (format/report_document.h); columns in
// docs/cli.md, "gpuroof api".
ReportDocument ApiDocument(const ApiReport& report);
// Schema "gpuroof.api/1" (docs/cli.md).
std::string RenderApiJson(const ApiReport& report);

}  // namespace gpuroof
