#pragma once

#include <cstdint>
#include <vector>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// The stretch of one device's clock to bin (usually its first to last op, widened to the window).
struct TimelineRange {
  int32_t device_id = 0;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};

// Busy time of one engine in each bin: the length of the union of the engine's op intervals
// that falls inside the bin (docs/metrics.md, "Timeline bins"), so it never exceeds the bin.
struct EngineBins {
  Engine engine = Engine::kKernel;
  std::vector<int64_t> busy_ns;  // one entry per bin
  int64_t total_busy_ns = 0;     // sum over the bins: the engine's busy time in the range
};

// A time-binned summary of one device: what a timeline draws instead of every op, so its size
// does not grow with the trace.
struct DeviceTimeline {
  int32_t device_id = 0;
  int64_t start_ns = 0;  // the range binned, on the trace clock
  int64_t end_ns = 0;
  int64_t bin_ns = 1;               // width of every bin; the last one may be cut short by end_ns
  std::vector<EngineBins> engines;  // engines busy for a positive time in the range, display order

  size_t bin_count() const;
  int64_t BinStartNs(size_t bin) const { return start_ns + static_cast<int64_t>(bin) * bin_ns; }
  // The bin's length inside the range (bin_ns except for a short last bin).
  int64_t BinLengthNs(size_t bin) const;
};

// Bins every range of `ranges` (one per device; devices not named are ignored) into at most
// `max_bins` equal bins of whole nanoseconds (bin_ns = ceil(length / max_bins); max_bins < 1
// counts as 1). Ops are clipped to the range; zero-length ops occupy nothing. One ordered pass
// over the trace; memory O(ranges x engines x bins), independent of the number of ops. Result
// parallel to `ranges`. A range of zero or negative length has no bins.
std::vector<DeviceTimeline> ComputeTimelineBins(const Trace& trace,
                                                const std::vector<TimelineRange>& ranges,
                                                int max_bins);

}  // namespace gpuroof
