#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// One analysed trace of a per-device report: the trace (for its source, metadata, diagnostics and
// clock origin) and the analysis result of each of its devices.
template <typename DeviceResult>
struct DevicesOfTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceResult> devices;
};

// The window a device's result was analysed in, or nullptr for a result without one (gaps span
// the whole trace): the per-device writers print it first when there is one.
template <typename DeviceResult>
const Window* WindowOfDevice(const DeviceResult& device) {
  if constexpr (requires { device.window; }) {
    return &device.window;
  } else {
    return nullptr;
  }
}

// One analysed trace of a per-trace report: the trace and its analysis result.
template <typename Result>
struct ResultOfTrace {
  const Trace* trace = nullptr;
  Result result;
};

// A report over one --window and nothing else to say: its analysed traces (DevicesOfTrace or
// ResultOfTrace entries), the --window value as given, and the tool's version.
template <typename Entry>
struct WindowedTracesReport {
  std::vector<Entry> traces;
  std::string window_text;  // the --window value as given
  std::string tool_version;
};

// A per-device report over one --window (copies, contention).
template <typename DeviceResult>
using WindowedReport = WindowedTracesReport<DevicesOfTrace<DeviceResult>>;

}  // namespace gpuroof
