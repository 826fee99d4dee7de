#include "gpuroof/analyses/interval_union.h"

#include <algorithm>

namespace gpuroof {

int64_t UnionLengthNs(std::vector<std::pair<int64_t, int64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  IntervalUnion total;
  for (const auto& [start, end] : intervals)
    total.Add(start, end);
  return total.length_ns();
}

}  // namespace gpuroof
