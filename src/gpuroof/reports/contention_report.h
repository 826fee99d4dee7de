#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/copy_contention.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using ContendedTrace = DevicesOfTrace<DeviceContention>;
using ContentionReport = WindowedReport<DeviceContention>;

// Per device a table of the copy directions (bandwidth with the opposite direction busy and
// idle) and one reading line per direction; CSV rows per trace, device and direction, times in ns.
// Text, CSV and Markdown render this document (format/report_document.h).
ReportDocument ContentionDocument(const ContentionReport& report);
// Schema "gpuroof.contention/2" (docs/cli.md): inputs, windows, directions as flat rows.
std::string RenderContentionJson(const ContentionReport& report);

// "H2D loses 23.0 % of its bandwidth against a busy D2H (4.01 GB/s vs 5.21 GB/s while D2H is
// idle; 12.2 % of its copy time overlaps D2H)", or why there is no comparison.
std::string ContentionReading(const DirectionContention& direction);

}  // namespace gpuroof
