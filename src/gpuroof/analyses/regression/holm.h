// Holm-Bonferroni step-down adjustment (docs/metrics.md, "compare").
#pragma once

#include <span>
#include <vector>

namespace gpuroof {

// Adjusted p-values, in the order of `p_values`: sorted ascending, p~(i) = max_{j<=i}
// min(1, (m - j + 1) p(j)). A hypothesis may be rejected where p~ <= alpha.
std::vector<double> HolmAdjust(std::span<const double> p_values);

}  // namespace gpuroof
