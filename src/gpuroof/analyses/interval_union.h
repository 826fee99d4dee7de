#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "gpuroof/model/time_limits.h"

namespace gpuroof {

// Length of the union of intervals fed in nondecreasing start order: overlapping time is
// counted once. Streaming, O(1) memory: the engine-load pass feeds it clipped ops one by one.
class IntervalUnion {
 public:
  // Adds [start_ns, end_ns). Starts must not decrease between calls (ordered scans guarantee
  // it); zero-length intervals add nothing.
  void Add(int64_t start_ns, int64_t end_ns) {
    if (end_ns <= start_ns) return;
    if (!open_ || start_ns > current_end_) {
      closed_ns_ = SaturatingAdd(closed_ns_, SaturatingSub(current_end_, current_start_));
      current_start_ = start_ns;
      current_end_ = end_ns;
      open_ = true;
    } else if (end_ns > current_end_) {
      current_end_ = end_ns;
    }
  }
  // Total covered length so far, in ns.
  int64_t length_ns() const {
    return SaturatingAdd(closed_ns_, SaturatingSub(current_end_, current_start_));
  }

 private:
  int64_t closed_ns_ = 0;
  int64_t current_start_ = 0;
  int64_t current_end_ = 0;
  bool open_ = false;
};

// Length of the union of arbitrary [start, end) intervals (sorts a copy). For tests and small
// inputs; large traces use IntervalUnion over an ordered scan.
int64_t UnionLengthNs(std::vector<std::pair<int64_t, int64_t>> intervals);

}  // namespace gpuroof
