#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using CopiedTrace = DevicesOfTrace<DeviceCopies>;
using CopyReport = WindowedReport<DeviceCopies>;

// Per device a table of copy classes, with a warning line when pageable host memory is used;
// CSV rows per trace, device and copy class, times in ns.
// One device's copy classes on the table model: the table `copies` prints, the HTML report shows.
Table CopyTable(const DeviceCopies& device);
// Text, CSV and Markdown render this document (format/report_document.h).
ReportDocument CopyDocument(const CopyReport& report);
// Schema "gpuroof.copies/1" (docs/cli.md): inputs, windows, unrounded numbers.
std::string RenderCopyJson(const CopyReport& report);

// "2001 copies (139.46 MB) use pageable host memory: ..." for a device with pageable copies,
// else "".
std::string PageableWarning(const DeviceCopies& device);

// What the GB/s of the device's copy classes leave out: one ZeroDurationRateNote per class with
// copies of zero duration, in row order (docs/metrics.md, "Bandwidth").
std::vector<std::string> CopyRateNotes(const DeviceCopies& device);

}  // namespace gpuroof
