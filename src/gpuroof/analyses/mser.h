// MSER-5 warm-up truncation (White 1997; docs/metrics.md "Steady state"): where a per-unit time
// series stops drifting. Shared by the steady-state window and the regression gate.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace gpuroof {

struct MserResult {
  std::vector<double> batch_means;  // z_1..z_B, one per complete batch
  std::vector<double> statistic;    // MSER(d) for d = 0..floor(B/2)
  size_t truncated_batches = 0;     // d*, the first minimum of MSER(d)
  // Iterations to drop from the front: batch_size * d*, but at least 1 when the series has any
  // complete batch (the first iteration carries one-off costs even in a flat series).
  size_t dropped = 0;
  // d* reached floor(B/2): the series never settled, the trace is too short to be in steady state.
  bool hit_cap = false;
};

// Batch means of `batch_size` consecutive values (the incomplete tail batch is ignored), then
// MSER(d) = sum_{i>d} (z_i - mean_d)^2 / (B - d)^2 for d = 0..floor(B/2). With fewer than two
// complete batches there is nothing to compare: dropped = 0, hit_cap = true.
// `min_kept_batches` > 0 also keeps the candidates to d <= B - min_kept_batches: a cut must leave
// that many batches (MSER(d) of one batch left is 0 and always wins; the regression gate asks for
// 3). When that leaves only d = 0 there is no search: d* = 0 and hit_cap is false.
MserResult MserTruncation(std::span<const double> series, size_t batch_size = 5,
                          size_t min_kept_batches = 0);

}  // namespace gpuroof
