#include "gpuroof/analyses/copy_contention.h"

#include <algorithm>
#include <array>
#include <map>
#include <queue>

#include <fmt/format.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/ordered_scan.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/time_limits.h"

namespace gpuroof {

namespace {

constexpr std::array<Engine, 2> kDirections = {Engine::kH2D, Engine::kD2H};

// A copy whose end the sweep has not reached yet.
struct RunningCopy {
  int64_t end_ns = 0;
  int64_t start_ns = 0;
  int64_t full_ns = 0;  // unclipped duration, the denominator of the byte split
  uint64_t bytes = 0;
  size_t direction = 0;
  int64_t opposite_busy_at_start_ns = 0;  // the opposite's cumulative busy time at start_ns
  bool operator>(const RunningCopy& other) const { return end_ns > other.end_ns; }
};

// A sweep over one device's H2D and D2H copies in start order. busy_ns[d] is the length of
// direction d's busy union before `now_ns`, so the time a copy [s, e) spends while the
// opposite direction is busy is busy_ns[opposite](e) - busy_ns[opposite](s): exact integers,
// and memory only for the copies running at once.
class ContentionSweep {
 public:
  void Add(int64_t start_ns, int64_t end_ns, int64_t full_ns, uint64_t bytes, size_t direction) {
    FinishUpTo(start_ns);
    AdvanceTo(start_ns);
    running_.push({end_ns, start_ns, full_ns, bytes, direction, busy_ns_[1 - direction]});
    ++active_[direction];
    ++result_[direction].ops;
  }

  // Ends every running copy; call once after the last Add().
  void Finish() {
    while (!running_.empty()) {
      AdvanceTo(running_.top().end_ns);
      Retire();
    }
  }

  const DirectionContention& result(size_t direction) const { return result_[direction]; }

 private:
  void FinishUpTo(int64_t time_ns) {
    while (!running_.empty() && running_.top().end_ns <= time_ns) {
      AdvanceTo(running_.top().end_ns);
      Retire();
    }
  }

  void AdvanceTo(int64_t time_ns) {
    if (started_) {
      for (size_t d = 0; d < 2; ++d) {
        if (active_[d] > 0) busy_ns_[d] += time_ns - now_ns_;
      }
    }
    started_ = true;
    now_ns_ = time_ns;
  }

  // The earliest-ending copy ends at now_ns_: split its time and bytes.
  void Retire() {
    const RunningCopy copy = running_.top();
    running_.pop();
    --active_[copy.direction];
    const int64_t time_ns = copy.end_ns - copy.start_ns;
    const int64_t busy_ns = busy_ns_[1 - copy.direction] - copy.opposite_busy_at_start_ns;
    const double bytes_per_ns = static_cast<double>(copy.bytes) / static_cast<double>(copy.full_ns);
    DirectionContention& out = result_[copy.direction];
    out.opposite_busy.time_ns += busy_ns;
    out.opposite_busy.bytes += bytes_per_ns * static_cast<double>(busy_ns);
    out.opposite_idle.time_ns += time_ns - busy_ns;
    out.opposite_idle.bytes += bytes_per_ns * static_cast<double>(time_ns - busy_ns);
  }

  std::priority_queue<RunningCopy, std::vector<RunningCopy>, std::greater<>> running_;
  std::array<int64_t, 2> busy_ns_{};
  std::array<int64_t, 2> active_{};
  int64_t now_ns_ = 0;
  bool started_ = false;
  std::array<DirectionContention, 2> result_ = {
      DirectionContention{Engine::kH2D, Engine::kD2H, 0, {}, {}},
      DirectionContention{Engine::kD2H, Engine::kH2D, 0, {}, {}}};
};

}  // namespace

std::optional<double> ContentionClass::bandwidth_gbps() const {
  if (time_ns <= 0) return std::nullopt;
  return bytes / static_cast<double>(time_ns);
}

std::optional<double> DirectionContention::busy_share_pct() const {
  if (time_ns() <= 0) return std::nullopt;
  return 100.0 * static_cast<double>(opposite_busy.time_ns) / static_cast<double>(time_ns());
}

std::optional<double> DirectionContention::loss_pct() const {
  std::optional<double> busy = opposite_busy.bandwidth_gbps();
  std::optional<double> idle = opposite_idle.bandwidth_gbps();
  if (!busy || !idle || *idle <= 0) return std::nullopt;
  return 100.0 * (1.0 - *busy / *idle);
}

std::vector<DeviceContention> ComputeCopyContention(const Trace& trace,
                                                    const CopyContentionOptions& options) {
  bool any_copy = false;
  for (const ActivityBlock& block : trace.blocks) {
    any_copy = any_copy || std::any_of(block.engine.begin(), block.engine.end(), [](Engine e) {
                 return e == Engine::kH2D || e == Engine::kD2H;
               });
  }
  if (!any_copy) {
    throw InputError(trace.source,
                     "no H2D or D2H copies in the trace: there is no copy direction to compare "
                     "against the other (was CUDA memcpy tracing on?)");
  }
  // Windows come from the engine load, so the contention table describes the same stretch as
  // `analyze` and the copy classes.
  EngineLoadOptions load_options;
  load_options.window = options.window;
  std::vector<DeviceContention> devices;
  std::map<int32_t, size_t> device_index;
  for (const DeviceLoad& load : ComputeEngineLoad(trace, load_options)) {
    device_index[load.device_id] = devices.size();
    devices.push_back({load.device_id, load.device_name, load.window, {}});
  }
  std::vector<size_t> stream_device(trace.streams.size());
  for (size_t s = 0; s < trace.streams.size(); ++s) {
    stream_device[s] = device_index[trace.streams[s].device_id];
  }
  std::vector<ContentionSweep> sweeps(devices.size());

  ForEachInStartOrder(trace, [&](const ActivityBlock& block, size_t i) {
    const Engine engine = block.engine[i];
    if (engine != Engine::kH2D && engine != Engine::kD2H) return;
    const size_t d = stream_device[block.stream[i]];
    const Window& window = devices[d].window;
    const int64_t start = block.start_ns[i];
    const int64_t end = block.end_ns[i];
    if (!OpCountsInWindow(trace, block, i, window)) return;
    const int64_t clipped_start = std::max(start, window.start_ns);
    const int64_t clipped_end = std::min(end, window.end_ns);
    // A copy that takes no time has no bandwidth and occupies no engine: counted apart.
    if (clipped_end <= clipped_start) {
      ++devices[d].zero_time_copies;
      devices[d].zero_time_bytes = SaturatingAddBytes(devices[d].zero_time_bytes, block.bytes[i]);
      return;
    }
    sweeps[d].Add(clipped_start, clipped_end, end - start, block.bytes[i],
                  engine == Engine::kH2D ? 0 : 1);
  });

  std::vector<DeviceContention> result;
  bool any_timed = false;
  int64_t zero_time_copies = 0;
  for (size_t d = 0; d < devices.size(); ++d) {
    sweeps[d].Finish();
    for (size_t direction = 0; direction < kDirections.size(); ++direction) {
      const DirectionContention& figures = sweeps[d].result(direction);
      if (figures.ops > 0) devices[d].directions.push_back(figures);
    }
    any_timed = any_timed || !devices[d].directions.empty();
    zero_time_copies += devices[d].zero_time_copies;
    if (!devices[d].directions.empty() || devices[d].zero_time_copies > 0)
      result.push_back(std::move(devices[d]));
  }
  if (!any_timed) {
    const std::string why =
        zero_time_copies > 0
            ? fmt::format("the {} counted in it take no time (zero duration: no bandwidth)",
                          zero_time_copies)
            : std::string("none runs in it");
    throw InputError(trace.source,
                     fmt::format("no H2D or D2H copy takes time in the '{}' window: {}{}",
                                 options.window.text, why,
                                 options.window.kind == WindowSpec::Kind::kAll
                                     ? ""
                                     : " (--window all covers every op)"));
  }
  return result;
}

}  // namespace gpuroof
