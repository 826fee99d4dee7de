#include "launches_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/launch_latency.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/launches_report.h"

#include "breakdown_command.h"
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct LaunchesOptions : BreakdownOptions {
  std::string key = "name";
  std::string window = "all";
  bool per_launch = false;
};

int RunLaunches(const LaunchesOptions& options) {
  LaunchLatencyOptions latency_options;
  latency_options.window = ParseWindowSpec(options.window);
  latency_options.key = ParseKernelKey(options.key);
  latency_options.keep_records = options.per_launch;
  LaunchesReport report;
  report.window_text = options.window;
  report.key = latency_options.key;
  report.per_launch = options.per_launch;
  report.tool_version = GPUROOF_VERSION;
  // Correlation ids, kernel names and shapes, and the launching calls.
  const ReadOptions read_options =
      ApiCallReadOptions(latency_options.window, options.threads, false);
  return RunWindowedBreakdown(
      options, read_options, report,
      [&](const Trace& trace) { return ComputeLaunchLatency(trace, latency_options); },
      {LaunchesDocument, RenderLaunchesJson});
}

}  // namespace

void AddLaunchesCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(
      app, "launches", exit_code, RunLaunches, [](CLI::App& command, LaunchesOptions& options) {
        AddKernelKeyOption(command, options.key);
        command.add_flag("--per-launch", options.per_launch,
                         "One row per launch (nsys kernexectrace's columns) instead of per key");
        AddWindowOption(command, options.window, WindowKinds::kWithSteady);
      });
}

}  // namespace gpuroof
