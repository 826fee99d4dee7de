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

// "3 H2D/D2H copies (3.01 MB) in the window left out: they take no time, ...": the text's note
// and the section's left_out note (on stderr with CSV); empty when the device has none.
std::string ZeroTimeNote(const DeviceContention& device);

// "H2D loses 23.0 % of its bandwidth against a busy D2H (4.01 GB/s vs 5.21 GB/s while D2H is
// idle; 12.2 % of its copy time overlaps D2H)", or why there is no comparison.
std::string ContentionReading(const DirectionContention& direction);

}  // namespace gpuroof
