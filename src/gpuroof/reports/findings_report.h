#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/findings/findings.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct FindingsOfTrace {
  const Trace* trace = nullptr;
  FindingsResult result;
};

struct FindingsReport {
  std::vector<FindingsOfTrace> traces;
  std::string window_text;  // the --window value as given
  FindingThresholds thresholds;
  std::string tool_version;
};

// Per trace a table of findings (costliest first), then each finding's evidence, examples and
// advice.
std::string RenderFindingsText(const FindingsReport& report);
std::string RenderFindingsMarkdown(const FindingsReport& report);
// One row per (trace, finding) with the evidence and advice (docs/cli.md, "gpuroof findings").
std::string RenderFindingsCsv(const FindingsReport& report);
// Schema "gpuroof.findings/1" (docs/formats.md).
std::string RenderFindingsJson(const FindingsReport& report);

}  // namespace gpuroof
