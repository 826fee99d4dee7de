// The busy time of each device in its window as sorted, merged intervals per engine class, and
// its idle gaps with the op after each: what the findings rules measure against.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/segments.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// An idle interval of a device and the op that ended it.
struct IdleGap {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  const ActivityBlock* next_block = nullptr;  // the first op after the gap
  size_t next_row = 0;
  // Other ops starting when the gap ends (ties in start order are in the file's order, which
  // must not decide the gap's cause): usually none.
  std::vector<std::pair<const ActivityBlock*, size_t>> also_next;
  int64_t duration_ns() const { return end_ns - start_ns; }
};

// One op of a DeviceActivity's comm or copies, clipped to the window.
struct OpSpan {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  const ActivityBlock* block = nullptr;
  size_t row = 0;
};

struct DeviceActivity {
  int32_t device_id = 0;
  Window window;
  std::string devices_left_out_note;  // DeviceLoad's: other devices the engine load left out
  // The process whose calls are the device's: ComputeFindings sets it (DeviceCallsProcess in
  // findings.cc, the one rule: the process of the device's steps, else the one that launched
  // most of its ops).
  uint64_t process_id = 0;
  // Ops launched onto the device (window or not) per process with a stream on it.
  std::map<uint64_t, int64_t> ops_of_process;
  Segments any;      // every engine, ops clipped to the window (in a work window,
                     // other work too: the GPU was busy)
  Segments compute;  // IsComputeEngine: kernels, whole-graph launches (as `any`)
  Segments comm;     // Engine::kComm, of the window's work only
  Segments copies;   // H2D, D2H, D2D, P2P, H2H copies, of the window's work only
  // The ops that make `comm` and `copies`, in start order: which op ran when, so a stretch of
  // their time can be charged to the step that launched it.
  std::vector<OpSpan> comm_ops;
  std::vector<OpSpan> copy_ops;
  std::vector<IdleGap> gaps;  // idle gaps longer than the threshold, in time order
  // The idle interval that contains `t_ns` (no engine busy), or false when the device is busy at
  // `t_ns` or no op follows it. `*start_ns` is the end of the last op before.
  bool IdleAt(int64_t t_ns, int64_t* start_ns, int64_t* end_ns) const;
};

// The timelines of every device with ops in its window under `spec` (ComputeEngineLoad's
// windows), ascending id. Gaps are those strictly longer than `gap_min_ns` between the first and
// last op of the window. One ordered pass. Throws what ComputeEngineLoad() throws. `engine_load`,
// when given, is ComputeEngineLoad's result under `spec` (the report has it): its windows are
// used instead of computing them again. `windows`, when given, gets every device's window, also
// of a device with no op in it.
std::vector<DeviceActivity> BuildDeviceActivity(
    const Trace& trace, const WindowSpec& spec, const std::vector<DeviceLoad>* engine_load,
    int64_t gap_min_ns, std::vector<std::pair<int32_t, Window>>* windows = nullptr);

}  // namespace gpuroof
