// Which step ranges are a device's in a capture that holds several processes (one nsys capture
// of a node): the rule `gpuroof ranks` and `gpuroof findings` share (docs/metrics.md, "Steps").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// The steps of the process that drives `device_id`, in the order given: another process's steps
// are another rank's (on another device, on its own clock offset). GPU-drawn ranges count when
// drawn on the device. When several processes launch onto the device and more than one has
// steps, the steps of the one that launched most of the device's ops are kept (the lowest
// process key on a tie). When no step is the device's process's (a format whose GPU ops carry
// no process, or another rank's steps only), every step is kept, and `note` says so. `note`
// (cleared first) says what was left out, with the count, and why.
std::vector<const NvtxRange*> DeviceProcessSteps(const Trace& trace, int32_t device_id,
                                                 const std::vector<const NvtxRange*>& steps,
                                                 std::string* note);

// The N of a range named NAME#N (N >= 0, fits an int64); unset otherwise.
std::optional<int64_t> RangeNumber(std::string_view name);

}  // namespace gpuroof
