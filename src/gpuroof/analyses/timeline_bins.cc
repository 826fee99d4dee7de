#include "gpuroof/analyses/timeline_bins.h"

#include <algorithm>
#include <array>
#include <map>

#include "gpuroof/analyses/ordered_scan.h"

namespace gpuroof {

namespace {

// One engine of one range while the scan runs: the open busy segment (the union of the ops so
// far that reach past the last flush) and the bins the closed segments were credited to. Ops
// arrive in start order, so a segment is final once an op of its engine starts after its end.
struct EngineSweep {
  bool open = false;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::vector<int64_t> busy_ns;
};

struct RangeSweep {
  const DeviceTimeline* timeline = nullptr;
  std::array<EngineSweep, kEngineCount> engines;

  // Credits [start, end) to the bins it covers; O(bins covered).
  void Credit(EngineSweep& engine, int64_t start, int64_t end) const {
    const DeviceTimeline& t = *timeline;
    if (engine.busy_ns.empty()) engine.busy_ns.assign(t.bin_count(), 0);
    auto bin = static_cast<size_t>((start - t.start_ns) / t.bin_ns);
    while (start < end && bin < engine.busy_ns.size()) {
      int64_t bin_end = std::min(t.BinStartNs(bin) + t.bin_ns, t.end_ns);
      int64_t piece_end = std::min(end, bin_end);
      engine.busy_ns[bin] += piece_end - start;
      start = piece_end;
      ++bin;
    }
  }

  void Add(size_t e, int64_t start, int64_t end) {
    EngineSweep& engine = engines[e];
    if (engine.open && start <= engine.end_ns) {
      engine.end_ns = std::max(engine.end_ns, end);
      return;
    }
    if (engine.open) Credit(engine, engine.start_ns, engine.end_ns);
    engine.open = true;
    engine.start_ns = start;
    engine.end_ns = end;
  }

  void Finish() {
    for (EngineSweep& engine : engines) {
      if (engine.open) Credit(engine, engine.start_ns, engine.end_ns);
      engine.open = false;
    }
  }
};

}  // namespace

size_t DeviceTimeline::bin_count() const {
  if (end_ns <= start_ns) return 0;
  return static_cast<size_t>((end_ns - start_ns + bin_ns - 1) / bin_ns);
}

int64_t DeviceTimeline::BinLengthNs(size_t bin) const {
  return std::min(bin_ns, end_ns - BinStartNs(bin));
}

std::vector<DeviceTimeline> ComputeTimelineBins(const Trace& trace,
                                                const std::vector<TimelineRange>& ranges,
                                                int max_bins) {
  const int64_t bins = std::max(max_bins, 1);
  std::vector<DeviceTimeline> timelines(ranges.size());
  std::vector<RangeSweep> sweeps(ranges.size());
  std::map<int32_t, size_t> range_of_device;
  for (size_t r = 0; r < ranges.size(); ++r) {
    DeviceTimeline& timeline = timelines[r];
    timeline.device_id = ranges[r].device_id;
    timeline.start_ns = ranges[r].start_ns;
    timeline.end_ns = ranges[r].end_ns;
    int64_t length = timeline.end_ns - timeline.start_ns;
    // Whole-ns bins: the bins tile the range exactly, so busy time is neither lost nor invented.
    timeline.bin_ns = length > 0 ? std::max<int64_t>(1, (length + bins - 1) / bins) : 1;
    sweeps[r].timeline = &timeline;
    range_of_device.emplace(ranges[r].device_id, r);
  }
  constexpr size_t kNoRange = static_cast<size_t>(-1);
  std::vector<size_t> stream_range(trace.streams.size(), kNoRange);
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    auto it = range_of_device.find(trace.streams[s].device_id);
    if (it != range_of_device.end()) stream_range[s] = it->second;
  }
  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    size_t r = stream_range[block.stream[i]];
    if (r == kNoRange) return;
    const DeviceTimeline& timeline = timelines[r];
    int64_t start = std::max(block.start_ns[i], timeline.start_ns);
    int64_t end = std::min(block.end_ns[i], timeline.end_ns);
    if (end <= start) return;  // outside the range, or no time
    sweeps[r].Add(static_cast<size_t>(EngineIndex(block.engine[i])), start, end);
  });
  for (size_t r = 0; r < ranges.size(); ++r) {
    sweeps[r].Finish();
    for (Engine engine : kAllEngines) {
      EngineSweep& sweep = sweeps[r].engines[static_cast<size_t>(EngineIndex(engine))];
      if (sweep.busy_ns.empty()) continue;
      EngineBins bins_of_engine;
      bins_of_engine.engine = engine;
      bins_of_engine.busy_ns = std::move(sweep.busy_ns);
      for (int64_t busy : bins_of_engine.busy_ns)
        bins_of_engine.total_busy_ns += busy;
      timelines[r].engines.push_back(std::move(bins_of_engine));
    }
  }
  return timelines;
}

}  // namespace gpuroof
