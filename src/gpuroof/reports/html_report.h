#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/analyses/findings/findings.h"
#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/analyses/timeline_bins.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// Everything the page shows about one trace. Vectors of devices are in ascending device id; a
// device may be missing from kernels, copies, gaps and timelines (nothing of that kind ran).
// Where a device's warm-up ends (MSER-5 over the unit series of analyses/steady_state.h), for
// the timeline; `note` says why it is not marked, or what MSER-5 warned.
struct SteadyMark {
  int32_t device_id = 0;
  std::optional<int64_t> start_ns;  // unset: not marked (too few units, or --window steady)
  std::string series;               // "50 slices (busy time of H2D)"
  size_t dropped = 0;               // warm-up units dropped
  std::vector<std::string> notes;
};

struct ReportedTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceLoad> devices;
  std::vector<EngineOverlap> overlaps;  // parallel to devices
  std::vector<DeviceTimeline> timelines;
  std::vector<DeviceGaps> gaps;
  std::vector<DeviceKernels> kernels;  // top kernels (KernelSummaryOptions::top)
  std::vector<DeviceCopies> copies;
  std::optional<RangeSummary> ranges;  // set when the trace has NVTX ranges
  std::vector<SteadyMark> steady;      // one per device with a timeline
  // What `gpuroof findings` reports on the trace (default thresholds, the page's window); unset
  // when the page leaves findings out (`report --no-findings`).
  std::optional<FindingsResult> findings;
};

// Where and with what traces were recorded: a campaign's env stamp (env.json beside them), as
// labelled lines ("git" -> "abc123 (main, clean)"), for the header.
struct ReportEnvironment {
  std::string source;          // the env.json path
  std::vector<size_t> traces;  // the traces it applies to, 1-based as numbered on the page
  std::vector<std::pair<std::string, std::string>> lines;
  std::string error;  // set when the file could not be read: the page says why
};

struct HtmlReport {
  std::vector<ReportedTrace> traces;
  std::vector<ReportEnvironment> environments;
  std::string window_text;  // the --window value as given
  std::string units_text;   // "--units 2000", "--units-from kernel:k" or ""
  std::string tool_version;
  std::string gap_min_text;     // the gap threshold as given ("1ms")
  size_t highlighted_gaps = 5;  // the largest gaps of each device drawn on its timeline
  size_t top_ranges = 20;       // NVTX range names listed per trace (largest CPU total first)
  // The traces as the ranks of one job (`report --ranks`, or every trace names its rank):
  // the rank table, the stragglers and the widest collective skew (docs/metrics.md, "Ranks").
  std::optional<RankSetAnalysis> ranks;
  std::vector<std::string> rank_notes;  // traces left out of the rank section, and why
  // NVTX units narrow the bars' window to the ranges' work, not the findings' (they resolve
  // --window as `gpuroof findings` does): the findings section says so.
  bool findings_window_differs = false;
};

// One self-contained HTML page (docs/formats.md, "report"): inline CSS and SVG, no script, no
// network. Sections: header (inputs, devices, windows, units, diagnostics), engine bars with the
// roofline (all traces on one scale), duty cycles and the overlap heat table, the timeline of
// each device, top kernels and copies, the NVTX range table when a trace has ranges, the findings
// of each trace (costliest first; "no findings" when none fired), the ranks. Every text
// taken from a trace is escaped.
std::string RenderHtmlReport(const HtmlReport& report);

}  // namespace gpuroof
