#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct RangesOfTrace {
  const Trace* trace = nullptr;
  RangeSummary summary;
};

struct RangesReport {
  std::vector<RangesOfTrace> traces;
  std::string name;  // --name: one range, one row per instance; empty: one row per range name
  std::string tool_version;
};

// Per trace, a table of range names (CPU durations, GPU busy per instance per engine, bottleneck,
// roofline per instance), or with a name one row per instance and device. Columns for the engines
// that have work only. Times in us (CPU totals in ms).
std::string RenderRangesText(const RangesReport& report);
// The same tables in Markdown.
std::string RenderRangesMarkdown(const RangesReport& report);
// Same rows at full precision (ns), one fixed column per engine (docs/formats.md).
std::string RenderRangesCsv(const RangesReport& report);
// Schema "gpuroof.ranges/1" (docs/formats.md).
std::string RenderRangesJson(const RangesReport& report);

}  // namespace gpuroof
