// `gpuroof compare --baseline DIR --current DIR`: two runs of a distributed job compared at the
// job level (docs/metrics.md, "Job-level compare").
#pragma once

#include <string>

#include "output_options.h"

namespace gpuroof {

struct JobCompareOptions {
  std::string baseline_dir;
  std::string current_dir;
  std::string iteration_range;
  double threshold = 1.20;  // fail when current / baseline is above it
  int jobs = 0;             // traces read at once; 0: one per core
};

// True when both sides are one directory each: the job-level compare applies.
bool AreJobDirectories(const std::vector<std::string>& baseline,
                       const std::vector<std::string>& current);

// Reads both rank sets (rank_set_loading.h), prints the job-level figures side by side with a
// PASS/FAIL per figure, and returns kExitCheckFailed when one is above the threshold (or, under
// --strict, when a trace lost records), else kExitOk. Throws InputError as LoadRankSet, and when
// a trace of either directory cannot be read or the runs' GPU models differ (exit 2).
int RunJobCompare(const JobCompareOptions& options, const OutputOptions& output);

}  // namespace gpuroof
