#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using RangesOfTrace = ResultOfTrace<RangeSummary>;

struct RangesReport {
  std::vector<RangesOfTrace> traces;
  std::string name;  // --name: one range, one row per instance; empty: one row per range name
  std::string tool_version;
};

// Per trace a table of range names (CPU durations, GPU busy per instance per engine, bottleneck,
// roofline per instance), or with a name one row per instance and device; engine columns for the
// engines that have work (docs/formats.md).
// One row per range name on the table model: the table `ranges` prints, the HTML report shows.
Table GroupTable(const RangeSummary& summary);
// What the attribution left out or assumed, one line each ("note: ..." for the method, other
// threads' launches not counted, ops launched by no API call; "range: ..." for the resolved
// instance; which ranges count any thread's launches): the ranges text and the HTML page both
// show them.
std::vector<std::string> RangeSummaryNotes(const RangeSummary& summary);
// Text, CSV and Markdown render this document (format/report_document.h).
ReportDocument RangesDocument(const RangesReport& report);
// Schema "gpuroof.ranges/1" (docs/formats.md).
std::string RenderRangesJson(const RangesReport& report);

}  // namespace gpuroof
