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

// Text, CSV and Markdown render this document (format/report_document.h); columns in
// docs/cli.md, "gpuroof api".
ReportDocument ApiDocument(const ApiReport& report);
// Schema "gpuroof.api/1" (docs/cli.md).
std::string RenderApiJson(const ApiReport& report);

}  // namespace gpuroof
