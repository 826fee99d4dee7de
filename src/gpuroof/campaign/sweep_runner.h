#pragma once

#include <string>
#include <vector>

#include "gpuroof/campaign/campaign_session.h"
#include "gpuroof/campaign/probe_rows.h"

namespace gpuroof {

struct SweepOutcome {
  std::filesystem::path results;
  std::vector<ProbeRow> rows;  // this invocation's rows, in run order
  int failed = 0;              // configurations that failed (their rows say why)
  int kept_earlier = 0;        // of those, failures not written over earlier ok rows of the key
  int skipped = 0;             // --resume: configurations whose rows were already there
};

// Refuses (InputError naming the file) a probes.csv or manifest.csv in the results folder that a
// sweep would refuse to merge into, and a file at one of the plan's trace names that probes.csv
// rows of another key point at (it would be written over): RunSweep checks it before anything
// runs or is written, and a dry run makes the same check.
void CheckSweepResultsFiles(const CampaignSession& session);

// Runs every planned configuration under the profiler, analyses each trace and merges its rows
// into probes.csv and its artifacts into manifest.csv as soon as it finishes, so an interrupted
// sweep keeps every finished row. A failed configuration is recorded (its row replaces no
// earlier ok rows of its key: those stay, and a note says so) and the sweep goes on.
// `resume` skips configurations whose ok rows exist with the same build and are quotable. Writes
// env.json with the first ok row (keeping one of another session as env.earlier-<time>.json).
// A file at a trace name that no row points at is kept under the .earlier- rule.
SweepOutcome RunSweep(const CampaignSession& session, bool resume, CampaignSystem& system);

// The plan of a dry run: results folder, key, and per configuration the trace name, units and
// the argv that would run (each argument quoted so spaces and quotes are visible).
std::string RenderSweepPlan(const CampaignSession& session);

// The final table: config, per-unit busy time of kernel, H2D and D2H, bottleneck, roofline and
// roofline throughput.
std::string RenderSweepTable(const SweepOutcome& outcome);

}  // namespace gpuroof
