#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/api_summary.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct ApiOfTrace {
  const Trace* trace = nullptr;
  ApiSummary summary;
};

struct ApiReport {
  std::vector<ApiOfTrace> traces;
  std::string window_text;  // the --window value as given
  std::string tool_version;
};

// Per trace one table: a row per CUDA runtime/driver function, total time first.
std::string RenderApiText(const ApiReport& report);
std::string RenderApiMarkdown(const ApiReport& report);
// One row per (trace, function), durations in ns at full precision (docs/cli.md, "gpuroof api").
std::string RenderApiCsv(const ApiReport& report);
// Schema "gpuroof.api/1" (docs/cli.md, "gpuroof api").
std::string RenderApiJson(const ApiReport& report);

}  // namespace gpuroof
