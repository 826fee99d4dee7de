#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuroof/campaign/campaign_session.h"
#include "gpuroof/campaign/csv_store.h"

namespace gpuroof {

struct BenchOptions {
  int reps = 5;
  std::string metric_regex;  // empty: wall time per unit
};

// The sustained-throughput ladder of one configuration (docs/metrics.md, "Bench ladder"), every
// figure in units/s.
struct LadderFigures {
  double cold = 0;                   // the first rep
  std::optional<double> warm;        // the best of the other reps
  std::optional<double> spread_pct;  // 100 (max - min) / min over the other reps
};
LadderFigures ComputeLadder(const std::vector<double>& units_per_s);

// The roofline a bench row is compared with: probes.csv rows of the same key, build and
// parameters (the `params` column: every parameter, so a default edited outside the key counts),
// status ok, the smallest roofline_units_per_s over their devices. Rows of another key (another
// cap, another stream count) or other parameters are never used; when only rows of other
// parameters exist, the warning names theirs. A roofline_units_per_s that is not a finite positive
// number is not used, and said. A table without a header (no probes.csv) gets its own warning,
// not the one for a probes.csv that lacks the columns. `quotable` is false when the roofline
// comes from a probes row that is not quotable, or when the build does not identify one build
// (BuildNotIdentifiedReason): the figures derived from it are not quotable either.
struct RooflineMatch {
  std::optional<double> units_per_s;
  bool quotable = true;
  std::vector<std::string> warnings;  // several streams, a non-quotable probe, no match
};

// What a bench measures, as the probes row records it (FindRoofline's `run`).
struct RooflineRun {
  std::string units;      // the probes row's cell: "" when [run] units is not given
  std::string unit_name;  // [run] unit_name
  std::string git_rev;    // "<rev>[-dirty]", "" outside git
};

// `run`, when given: a row of other `units` or `unit_name` measured another unit, so it is never
// joined (its roofline would be a rate of other units); the warning names both. A joined row
// whose `git_rev` differs from `run.git_rev` (another commit, or "-dirty" on one side) is said in
// a warning; quotable is left to the build identity rule, which called both builds the same. A
// probes.csv without a git_rev column is not checked for it.
RooflineMatch FindRoofline(const CsvTable& probes, const std::string& key, const std::string& build,
                           const std::string& params,
                           const std::optional<RooflineRun>& run = std::nullopt);

// Why `build` does not name one build, or "": "unknown" (no identity rule, no git) and
// "<rev>-dirty" (uncommitted edits, whatever they are) match other sessions' builds of other code.
std::string BuildNotIdentifiedReason(const std::string& build);

// How far above 100 % of the roofline a warm rate may be before the row is refused as a
// mismatch (timer granularity and clock drift between the probe's session and the bench's).
inline constexpr double kRooflineTolerancePct = 2;

struct LadderRow : ResultRowIdentity {
  int reps = 0;
  std::string metric;  // "wall" or "regex"
  std::vector<double> rep_units_per_s;
  LadderFigures figures;
  std::optional<double> roofline_units_per_s;
  std::optional<double> pct_of_roofline;   // 100 warm / roofline
  std::optional<double> peak_units_per_s;  // min(roofline, warm); unset above the tolerance
  bool quotable = true;
  std::string status = "ok";
  std::optional<int> exit_code;
  std::string error;
  std::string warnings;
  std::string timestamp;
};

const std::vector<std::string>& LadderHeader();
std::vector<std::string> LadderCells(const LadderRow& row);

struct BenchOutcome {
  std::filesystem::path results;
  std::vector<LadderRow> rows;
  int failed = 0;
  int kept_earlier = 0;  // of those, failures not written over earlier ok rows of the key
};

// Runs each planned configuration `reps` times without a profiler, each rep a fresh process, and
// merges its ladder row into ladder.csv (keyed like probes.csv; a failure replaces no earlier ok
// rows of its key: those stay, and a note says so) with a manifest row. Throws
// InputError when the figure cannot be formed (no units and no --metric-regex, a bad regex).
BenchOutcome RunBench(const CampaignSession& session, const BenchOptions& options,
                      CampaignSystem& system);

std::string RenderBenchTable(const BenchOutcome& outcome, const std::string& unit_name);

}  // namespace gpuroof
