#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/api_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct ApiOfTrace {
  const Trace* trace = nullptr;
  ApiSummary summary;
};

struct ApiReport {
  std::vector<ApiOfTrace> traces;
  std::string window_text;  // the --window value as given
  std::string tool_version;
};

// Text, CSV and Markdown render this document (format/report_document.h); columns in
// docs/cli.md, "gpuroof api".
ReportDocument ApiDocument(const ApiReport& report);
// Schema "gpuroof.api/1" (docs/cli.md).
std::string RenderApiJson(const ApiReport& report);

}  // namespace gpuroof
