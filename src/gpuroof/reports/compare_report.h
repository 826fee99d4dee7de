// Outputs of `gpuroof compare` (docs/cli.md, docs/formats.md "gpuroof.compare/1").
#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/regression/calibration.h"
#include "gpuroof/analyses/regression/gate.h"
#include "gpuroof/analyses/regression/history.h"
#include "gpuroof/analyses/regression/profile_samples.h"

namespace gpuroof {

struct CompareReport {
  std::vector<ProfileSummary> baseline;
  std::vector<ProfileSummary> current;
  std::string history_source;  // history mode: the --history file (baseline is then empty)
  size_t history_entries = 0;
  CompareResult result;
  std::string warmup_text = "auto";  // the --warmup value, for the settings echo
  std::string kernel_key = "launch";
  std::string tool_version;
};

// Aligned table for stdout: input lines, settings, one row per metric, summary and result.
std::string RenderCompareText(const CompareReport& report);
// Schema "gpuroof.compare/1": settings, inputs, every metric unrounded, summary.
std::string RenderCompareJson(const CompareReport& report);
// A pull-request comment: status headline, offenders, collapsible full table; under
// kMarkdownLimitBytes (the full table is truncated to fit).
std::string RenderCompareMarkdown(const CompareReport& report);

inline constexpr size_t kMarkdownLimitBytes = 60000;

// `--html`: one self-contained page in the style of `gpuroof report` (inline CSS and SVG, no
// script): status, inputs, a chart of every estimated metric's change with its interval and
// noise floor (gated first, at most 40), the verdict table, notes. Every text is escaped.
std::string RenderCompareHtml(const CompareReport& report);

// One line of a history file (JSONL, schema "gpuroof.compare-history/1"): the profile's path,
// device and run summaries by metric id. Ends in a newline.
std::string RenderHistoryLine(const HistoryEntry& entry, const std::string& path);

// `compare --calibrate`: one row per metric with its run-to-run noise, the floor check, the A/A
// minimum detectable effect and the profiles per side a target-size change needs.
std::string RenderCalibrationText(const Calibration& calibration, const GateSettings& settings);

}  // namespace gpuroof
