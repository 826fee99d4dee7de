#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/findings/findings.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/format/table.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

using FindingsOfTrace = ResultOfTrace<FindingsResult>;

struct FindingsReport : WindowedTracesReport<FindingsOfTrace> {
  FindingThresholds thresholds;
};

// One row per finding (cost desc), the columns of FindingsDocument: id, device, cost_ns, count,
// cost_per_step_ns (empty without steps), steps ("3-7 (worst 5)"), title, evidence, advice. Also
// the report page's findings table.
Table FindingTable(const FindingsResult& result);
// "  per step: 151.569 ms over 5 steps ('ProfilerStep#*'); in 5 steps, 1 to 5, worst step 3
// (136.937 ms); 98.135 ms outside every step": the text footer's line, the HTML page's too.
std::string PerStepLine(const FindingPerStep& s);
// "2 findings below --min-cost-pct 1 (% of the device window) left out".
std::string FindingsDroppedLine(const FindingsResult& result, const FindingThresholds& thresholds);

// Text, CSV and Markdown render this document (format/report_document.h); columns in
// docs/cli.md, "gpuroof findings".
ReportDocument FindingsDocument(const FindingsReport& report);
// Schema "gpuroof.findings/1" (docs/formats.md).
std::string RenderFindingsJson(const FindingsReport& report);

}  // namespace gpuroof
