#pragma once

#include <string>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// One analysed trace of a per-device report: the trace (for its source, metadata, diagnostics and
// clock origin) and the analysis result of each of its devices.
template <typename DeviceResult>
struct DevicesOfTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceResult> devices;
};

// A per-device report over one --window and nothing else to say (copies, contention).
template <typename DeviceResult>
struct WindowedReport {
  std::vector<DevicesOfTrace<DeviceResult>> traces;
  std::string window_text;  // the --window value as given
  std::string tool_version;
};

}  // namespace gpuroof
