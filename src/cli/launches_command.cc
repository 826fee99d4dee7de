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

struct LaunchesOptions {
  std::vector<std::string> traces;
  std::string key = "name";
  std::string window = "all";
  bool per_launch = false;
  int threads = 0;
  OutputOptions output;
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
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;  // correlation ids, kernel names and shapes
  read_options.api_calls = true;
  ReadForRanges(latency_options.window, UnitsSpec{}, read_options);
  return RunBreakdown(
      options.traces, read_options, options.output, report,
      [&](const Trace& trace, const std::string&) {
        return LaunchesOfTrace{&trace, ComputeLaunchLatency(trace, latency_options)};
      },
      {LaunchesDocument, RenderLaunchesJson});
}

}  // namespace

void AddLaunchesCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LaunchesOptions>();
  CLI::App* command = AddCommand(app, "launches");
  AddTracesArgument(*command, options->traces);
  command->add_option("--key", options->key, "name | demangled | launch")->capture_default_str();
  command->add_flag("--per-launch", options->per_launch,
                    "One row per launch (nsys kernexectrace's columns) instead of per key");
  command
      ->add_option("--window", options->window, "all | processing | START:END | nvtx:NAME[@N|@*]")
      ->capture_default_str();
  AddThreadsOption(*command, options->threads);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunLaunches(*options); });
}

}  // namespace gpuroof
