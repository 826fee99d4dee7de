#include "gpuroof/analyses/mser.h"

#include <algorithm>

namespace gpuroof {

MserResult MserTruncation(std::span<const double> series, size_t batch_size,
                          size_t min_kept_batches) {
  MserResult result;
  if (batch_size == 0) batch_size = 1;
  const size_t batches = series.size() / batch_size;
  result.batch_means.reserve(batches);
  for (size_t b = 0; b < batches; ++b) {
    double sum = 0;
    for (size_t i = 0; i < batch_size; ++i)
      sum += series[b * batch_size + i];
    result.batch_means.push_back(sum / static_cast<double>(batch_size));
  }
  if (batches < 2) {
    result.hit_cap = true;
    return result;
  }
  // Suffix sums of squared deviations, accumulated backwards with Welford's update: O(B) and as
  // accurate as the two-pass form (a million launches make B = 200000 batches).
  size_t cap = batches / 2;
  if (min_kept_batches > 0)
    cap = std::min(cap, batches > min_kept_batches ? batches - min_kept_batches : 0);
  result.statistic.assign(cap + 1, 0.0);
  double mean = 0;
  double squares = 0;
  for (size_t d = batches; d-- > 0;) {
    const double kept = static_cast<double>(batches - d);
    const double delta = result.batch_means[d] - mean;
    mean += delta / kept;
    squares += delta * (result.batch_means[d] - mean);
    if (d <= cap) result.statistic[d] = squares / (kept * kept);
  }
  // First minimum on ties: min_element returns the first of equal smallest values.
  const auto best = std::min_element(result.statistic.begin(), result.statistic.end());
  result.truncated_batches = static_cast<size_t>(best - result.statistic.begin());
  result.dropped = std::max<size_t>(1, result.truncated_batches * batch_size);
  result.hit_cap = cap > 0 && result.truncated_batches == cap;
  return result;
}

}  // namespace gpuroof
