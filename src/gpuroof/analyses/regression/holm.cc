#include "gpuroof/analyses/regression/holm.h"

#include <algorithm>
#include <numeric>

namespace gpuroof {

std::vector<double> HolmAdjust(std::span<const double> p_values) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  // Stable, so equal p-values keep their input order and the output is deterministic.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t l, size_t r) { return p_values[l] < p_values[r]; });
  std::vector<double> adjusted(m, 1.0);
  double running = 0.0;
  for (size_t rank = 0; rank < m; ++rank) {
    const double scaled = std::min(1.0, static_cast<double>(m - rank) * p_values[order[rank]]);
    running = std::max(running, scaled);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace gpuroof
