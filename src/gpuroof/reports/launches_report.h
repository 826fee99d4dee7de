#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/launch_latency.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

struct LaunchesOfTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceLaunches> devices;
};

struct LaunchesReport {
  std::vector<LaunchesOfTrace> traces;
  std::string window_text;  // the --window value as given
  KernelKey key = KernelKey::kName;
  bool per_launch = false;  // one row per launch (kernexectrace) instead of per key
  std::string tool_version;
};

// Per device one table: a row per kernel key (launch overhead, queue time, launch-to-start
// latency), or with per_launch a row per launch.
std::string RenderLaunchesText(const LaunchesReport& report);
std::string RenderLaunchesMarkdown(const LaunchesReport& report);
// Rows at full precision in ns (docs/cli.md, "gpuroof launches").
std::string RenderLaunchesCsv(const LaunchesReport& report);
// Schema "gpuroof.launches/1" (docs/cli.md, "gpuroof launches").
std::string RenderLaunchesJson(const LaunchesReport& report);

}  // namespace gpuroof
