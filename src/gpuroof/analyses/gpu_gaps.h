#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// The op on one side of a gap.
struct GapNeighbor {
  Engine engine = Engine::kKernel;
  std::string label;  // "kernel saxpy", "H2D Pageable->Device", "memset Device", "graph"
  uint32_t stream_id = 0;
};

// One idle interval of a device: no engine busy (docs/metrics.md, "Gaps").
struct Gap {
  int64_t start_ns = 0;  // on the trace clock
  int64_t end_ns = 0;
  GapNeighbor before;  // the op that ended last before the gap
  GapNeighbor after;   // the op that started first after it
  int64_t duration_ns() const { return end_ns - start_ns; }
};

struct DeviceGaps {
  int32_t device_id = 0;
  std::string device_name;
  int64_t span_start_ns = 0;  // first start of an op that takes time
  int64_t span_end_ns = 0;    // last end of such an op
  std::vector<Gap> gaps;      // longer than the threshold; longest first, then by start
  int64_t gap_total_ns = 0;   // sum of their durations
  int64_t span_ns() const { return span_end_ns - span_start_ns; }
};

struct GapOptions {
  int64_t min_ns = 1'000'000;  // a gap is listed when strictly longer than this (> 0)
};

// Idle gaps of every device of `trace` (ascending id): the holes between the union segments of
// all the device's ops, longer than `options.min_ns`. Zero-length ops occupy no engine and are
// ignored. One ordered pass; memory O(devices + listed gaps). Throws InputError naming the trace
// when it has no GPU op that takes time, and (source "--min") when min_ns <= 0.
std::vector<DeviceGaps> ComputeGaps(const Trace& trace, const GapOptions& options);

}  // namespace gpuroof
