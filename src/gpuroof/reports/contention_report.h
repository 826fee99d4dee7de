#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/copy_contention.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct ContendedTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceContention> devices;
};

struct ContentionReport {
  std::vector<ContendedTrace> traces;
  std::string window_text;  // the --window value as given
  std::string tool_version;
};

// Per device a table of the copy directions (bandwidth with the opposite direction busy and
// idle) and one reading line per direction.
std::string RenderContentionText(const ContentionReport& report);
// The same tables in Markdown.
std::string RenderContentionMarkdown(const ContentionReport& report);
// One row per trace, device and direction (a `trace` column leads when there are several),
// times in ns.
std::string RenderContentionCsv(const ContentionReport& report);
// Schema "gpuroof.contention/2" (docs/cli.md): inputs, windows, directions as flat rows.
std::string RenderContentionJson(const ContentionReport& report);

// "H2D loses 23.0 % of its bandwidth against a busy D2H (4.01 GB/s vs 5.21 GB/s while D2H is
// idle; 12.2 % of its copy time overlaps D2H)", or why there is no comparison.
std::string ContentionReading(const DirectionContention& direction);

}  // namespace gpuroof
