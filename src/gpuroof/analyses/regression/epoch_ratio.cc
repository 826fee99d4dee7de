#include "gpuroof/analyses/regression/epoch_ratio.h"

#include "gpuroof/model/errors.h"

namespace gpuroof {

int64_t TotalKernelTimeNs(const Trace& trace) {
  int64_t total = 0;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i)
      if (IsComputeEngine(block.engine[i])) total += block.end_ns[i] - block.start_ns[i];
  }
  return total;
}

EpochRatio CompareKernelTimePerEpoch(int64_t baseline_ns, int64_t current_ns, int64_t epochs,
                                     double threshold, const std::string& baseline_source,
                                     const std::string& current_source) {
  if (baseline_ns <= 0) {
    throw InputError(baseline_source, "no kernel time: the baseline has no kernel records");
  }
  if (current_ns <= 0) {
    throw InputError(current_source, "no kernel time: the current profile has no kernel records");
  }
  EpochRatio r;
  r.baseline_ns_per_epoch = static_cast<double>(baseline_ns) / static_cast<double>(epochs);
  r.current_ns_per_epoch = static_cast<double>(current_ns) / static_cast<double>(epochs);
  r.ratio = static_cast<double>(current_ns) / static_cast<double>(baseline_ns);
  r.pass = r.ratio <= threshold;
  return r;
}

}  // namespace gpuroof
