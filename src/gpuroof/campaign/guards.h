#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuroof/campaign/gpu_probe.h"
#include "gpuroof/campaign/sweep_spec.h"
#include "gpuroof/campaign/system_view.h"

namespace gpuroof {

// Checks that run before any configuration does (docs/cli.md, "Guards"). Each returns a decision;
// the caller refuses (exit 1) or carries on.

// The build is fresh when its oldest artifact is at least as new as its newest source.
struct Freshness {
  bool checked = false;  // false: the sweep file gives no freshness rule
  bool fresh = true;
  std::string message;  // the refusal, with both files and both timestamps; or why nothing matched
};
Freshness CheckBuildFreshness(const BuildSpec& build, const std::filesystem::path& workdir,
                              FileTimes& files);

// GPU utilisation at start against the limit.
struct GpuIdleness {
  bool refuse = false;   // busier than the limit and --allow-busy-gpu not given
  bool quotable = true;  // false when busy but allowed: the rows are marked not quotable
  std::string message;   // refusal or warning; "" when idle
  std::string note;      // "no GPU information: ..." when nothing could be asked
};
GpuIdleness CheckGpuIdle(const GpuStatus& gpus, double max_utilisation_pct, bool allow_busy);

// A run shorter than the minimum is not quotable (clocks may never have ramped up).
// Returns the warning, or "" when the run is long enough or no minimum is set.
std::string CheckMinimumUnits(std::optional<int64_t> units, int64_t min_units,
                              const std::string& unit_name);

// How a process ended, after its name in a message: "exited with status 3", or for 129..192 (the
// runner's 128 + N of a process killed by signal N) "was killed by signal 9 (Killed; exit status
// 137)".
std::string DescribeExit(int exit_code);

}  // namespace gpuroof
