// The simple gate (`gpuroof compare BASE CURRENT --epochs N --threshold R`): total kernel time
// per epoch, current over baseline, against a ratio threshold (docs/metrics.md, "compare").
#pragma once

#include <cstdint>
#include <string>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// Sum of the durations of every compute op in the trace (IsComputeEngine: kernels, whole-graph
// launches; not collectives), ns, overlaps counted twice: the GPU time the kernels took, as the
// scripts this mode replaces measured it.
int64_t TotalKernelTimeNs(const Trace& trace);

struct EpochRatio {
  double baseline_ns_per_epoch = 0;
  double current_ns_per_epoch = 0;
  double ratio = 0;  // current / baseline
  bool pass = true;  // ratio <= threshold
};

// Throws InputError naming the file when either side has no kernel time (a current run without
// kernels is not "infinitely faster": it is not a run of the same work). `epochs` and
// `threshold` are validated by the caller (>= 1, >= 1.0).
EpochRatio CompareKernelTimePerEpoch(int64_t baseline_ns, int64_t current_ns, int64_t epochs,
                                     double threshold, const std::string& baseline_source,
                                     const std::string& current_source);

}  // namespace gpuroof
