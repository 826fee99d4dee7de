#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/launch_latency.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using LaunchesOfTrace = DevicesOfTrace<DeviceLaunches>;

struct LaunchesReport : WindowedTracesReport<LaunchesOfTrace> {
  KernelKey key = KernelKey::kName;
  bool per_launch = false;  // one row per launch (kernexectrace) instead of per key
};

// What the device's launch table leaves out or flags, one sentence each (without "note: "): the
// text preamble's notes, and the section's left_out notes (on stderr with CSV).
std::vector<std::string> LaunchesNotes(const DeviceLaunches& device);

// Text, CSV and Markdown render this document (format/report_document.h); columns in
// docs/cli.md, "gpuroof launches".
ReportDocument LaunchesDocument(const LaunchesReport& report);
// Schema "gpuroof.launches/1" (docs/cli.md).
std::string RenderLaunchesJson(const LaunchesReport& report);

}  // namespace gpuroof
