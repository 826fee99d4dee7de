#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using GappedTrace = DevicesOfTrace<DeviceGaps>;

struct GapsReport {
  std::vector<GappedTrace> traces;
  int64_t min_ns = 0;
  std::string min_text;  // the --min value as given
  std::string tool_version;
};

// Per device a summary line and the gaps, longest first; CSV rows per gap, times in ns on the
// trace clock.
// Text, CSV and Markdown render this document (format/report_document.h).
ReportDocument GapsDocument(const GapsReport& report);
// Schema "gpuroof.gaps/2" (docs/cli.md): gaps as flat rows, starts on the trace clock.
std::string RenderGapsJson(const GapsReport& report);

// "3 gaps longer than 1 ms: 5.2 ms in all, 15.40 % of the 33.7 ms span"
std::string GapsSummaryLine(const DeviceGaps& device, const std::string& min_text);

}  // namespace gpuroof
