#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/window.h"
#include "gpuroof/model/engine.h"
#include "gpuroof/model/time_limits.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// What one unit of work is and how many there are (docs/metrics.md, "Units").
struct UnitsSpec {
  enum class Kind {
    kNone,            // no units: busy times and per-second figures only
    kFixed,           // --units N
    kKernelLaunches,  // --units-from kernel:NAME — launches of NAME starting in the window
    kNvtxRanges,      // --units-from nvtx:NAME — instances of range NAME whose work is counted
  };
  Kind kind = Kind::kNone;
  int64_t count = 0;  // kFixed
  std::string name;   // kKernelLaunches / kNvtxRanges (a range text, see SelectRanges)
  // kNvtxRanges: whose launches are a range's work (an iteration range: the whole process).
  RangeScope scope = RangeScope::kProcess;
  std::string unit_name = "frame";
};

// Parses the value of --units-from ("kernel:NAME" or "nvtx:NAME"). Throws InputError.
UnitsSpec ParseUnitsFrom(std::string_view text);

// What an aggregate copy rate (GB/s) stands on (docs/metrics.md, "Bandwidth"): the bytes of the
// copies that take time over their summed duration. A copy of zero duration moved its bytes in no
// measured time: it is counted apart (zero_duration_ops/_bytes), left out of the rate, and said
// wherever the rate is printed. The one place the aggregate GB/s is computed.
struct ByteRate {
  uint64_t timed_bytes = 0;          // bytes of the copies with a duration
  int64_t time_ns = 0;               // their summed (unclipped) durations
  int64_t zero_duration_ops = 0;     // copies of zero duration, left out of the rate
  uint64_t zero_duration_bytes = 0;  // their bytes
  // timed_bytes and time_ns exact (those clamp at the int64 maximum): gbps() reads these.
  WideSum exact_bytes = 0;
  WideSum exact_time_ns = 0;

  void Add(uint64_t bytes, int64_t duration_ns);
  // timed_bytes / time_ns (B/ns = GB/s); unset when no copy took time.
  std::optional<double> gbps() const;
};

// Time one engine of one device spent in the window. Ops that intersect the window count, and
// their intervals are clipped to it.
struct EngineLoad {
  Engine engine = Engine::kKernel;
  int64_t ops = 0;         // ops intersecting the window
  int64_t sum_ns = 0;      // sum of clipped op durations
  int64_t busy_ns = 0;     // length of the union of clipped op intervals
  uint64_t bytes = 0;      // bytes of the counted ops (whole ops, not clipped)
  int64_t op_time_ns = 0;  // unclipped duration of the counted ops
  ByteRate rate;           // the bandwidth's bytes and time (ByteRate)
  // sum_ns, bytes and op_time_ns exact: those clamp at the int64 maximum (the window note says
  // so), the overlap factor reads exact_sum_ns.
  WideSum exact_sum_ns = 0;
  WideSum exact_bytes = 0;
  WideSum exact_op_time_ns = 0;
};

// How much an engine could grow before it binds.
struct Headroom {
  Engine engine = Engine::kKernel;
  double per_unit_gap_us = 0;  // roofline per unit minus this engine's busy per unit (us)
  // Bottleneck busy / this engine's busy (x); unset when this engine's busy is 0 (its ops in the
  // window all have zero length): it could grow without bound before it binds.
  std::optional<double> factor;
};

// The tallest engine bar of a device: the bottleneck and the throughput it allows.
struct Roofline {
  bool has_bottleneck = false;  // false when no engine was busy for a positive time
  Engine bottleneck = Engine::kKernel;
  int64_t bottleneck_busy_ns = 0;
  std::optional<double> per_unit_us;  // bottleneck busy per unit (us/unit)
  std::optional<double> units_per_s;  // units / bottleneck busy (s)
  std::vector<Headroom> headroom;     // every other engine present, in engine order
};

// Engine figures of one device.
struct DeviceLoad {
  int32_t device_id = 0;
  std::string device_name;
  Window window;
  std::array<EngineLoad, kEngineCount> engines{};  // indexed by EngineIndex(); ops == 0: absent
  int64_t any_busy_ns = 0;                         // union over every engine
  int64_t any_ops = 0;
  std::optional<int64_t> units;  // unset without units
  // What a reader of the per-unit figures must know, else "": which kernel a --units-from name
  // not taken exactly was taken to mean, why a device has no units although they were counted.
  std::string units_note;
  std::string unit_name = "frame";
  std::optional<StreamInfo> stream;  // set for the rows of EngineLoadOptions::by_stream
  // EngineLoadOptions::by_stream: the row of the device's UVM migrations (engines uvm_h2d,
  // uvm_d2h, uvm_d2d), which run on no stream; `stream` is unset (kNoStreamUvmLabel).
  bool uvm_no_stream = false;
  // What the window leaves out on this device: ops that do not count in it (outside its
  // interval, or in a work window not the range's work), and the busy time (union) of those.
  int64_t outside_ops = 0;
  int64_t outside_busy_ns = 0;
  int64_t outside_in_span_ops = 0;  // work windows: of outside_ops, those running in the span
  // Work windows: the busy time (union) of those ops clipped to the window, and of every op of
  // the device in the window, the range's work or not (what the GPU really did meanwhile).
  int64_t outside_in_span_busy_ns = 0;
  int64_t span_all_busy_ns = 0;
  std::string outside_note;  // says so, when outside_ops > 0
  // Devices of the trace left out because every op of theirs takes no time (ComputeEngineLoad),
  // said on every device analysed: also in the window note.
  std::string devices_left_out_note;
  Roofline roofline;  // ComputeRoofline() of the figures above, set once

  const EngineLoad& engine(Engine e) const { return engines[static_cast<size_t>(EngineIndex(e))]; }
};

// How the reports name the --by-stream row of UVM migrations (DeviceLoad::uvm_no_stream).
inline constexpr const char* kNoStreamUvmLabel = "no stream (UVM)";

struct EngineLoadOptions {
  WindowSpec window;
  UnitsSpec units;
  // One DeviceLoad per stream instead of per device (each in its device's window), and one
  // (uvm_no_stream) for the device's UVM migrations, after its streams: they have no stream,
  // whatever stream id the file gives them. Stream identity needs the trace read with
  // ReadDetail::kFull.
  bool by_stream = false;
};

// Per-device (or, with by_stream, per-stream) engine load of `trace`, in ascending id order. One
// ordered pass over the activities; memory is O(devices x engines). With --units-from nvtx:NAME
// and the processing window, the window is NAME's work (every instance, RangeWorkWindow) and the
// units are the instances with work on the device, so per-unit figures are that work / its
// instances (docs/metrics.md, "Units"). A device whose ops all take no time beside devices whose
// ops take time has no window: it is left out, and each device's window note says so. Throws
// InputError naming the trace when it has no GPU activity, when the window is outside it or has
// zero length, or when counted units come to zero.
std::vector<DeviceLoad> ComputeEngineLoad(const Trace& trace, const EngineLoadOptions& options);

// The processing window of each device with GPU ops (docs/metrics.md, "Window"), what
// ComputeEngineLoad gives with default options, without the pass over the engines: the devices
// it leaves out have none. Throws as it does.
std::map<int32_t, Window> ProcessingWindows(const Trace& trace);

// `given` when the caller has the engine load already (for the same window), else the engine
// load of `trace` in `window`, kept in `storage`. Kernels and copies take their windows from it,
// so every command describes the same stretch of time with the same numbers.
const std::vector<DeviceLoad>& GivenOrComputedEngineLoad(const Trace& trace,
                                                         const WindowSpec& window,
                                                         const std::vector<DeviceLoad>* given,
                                                         std::vector<DeviceLoad>& storage);

}  // namespace gpuroof
