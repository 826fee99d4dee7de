#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using SummarizedTrace = DevicesOfTrace<DeviceKernels>;

struct KernelReport : WindowedTracesReport<SummarizedTrace> {
  KernelKey key = KernelKey::kName;
  int64_t top = 0;  // 0 = all
};

// Per device one row per key, durations and shares (columns in docs/cli.md, "gpuroof kernels");
// CSV rows per (trace, device, key), durations in ns at full precision.
// One device's kernel rows on the table model: the table `kernels` prints, the HTML report shows.
Table KernelTable(const DeviceKernels& device, KernelKey key);
// Text, CSV and Markdown render this document (format/report_document.h).
ReportDocument KernelDocument(const KernelReport& report);
// Schema "gpuroof.kernels/1" (docs/cli.md, "gpuroof kernels"): inputs, windows, unrounded
// numbers.
std::string RenderKernelJson(const KernelReport& report);

}  // namespace gpuroof
