#include "launches_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/launch_latency.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/launches_report.h"

#include "breakdown_command.h"
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
      {RenderLaunchesText, RenderLaunchesCsv, RenderLaunchesJson, RenderLaunchesMarkdown});
}

}  // namespace

void AddLaunchesCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<LaunchesOptions>();
  CLI::App* command = app.add_subcommand(
      "launches", "Per kernel: launch overhead, queue time and launch-to-start latency");
  command->footer(
      "Examples:\n"
      "  gpuroof launches run.sqlite\n"
      "  gpuroof launches run.sqlite --per-launch --key demangled --format csv\n"
      "Overhead: the launching call's duration. Queue: call end to kernel start, when the\n"
      "kernel started after the call returned. Latency: call start to kernel start.\n"
      "Window all (default) covers every kernel, as nsys's kernexectrace does. Every figure is\n"
      "defined in docs/metrics.md.");
  command->add_option("traces", options->traces, kTraceFilesHelp)->required();
  command->add_option("--key", options->key, "name | demangled | launch")->capture_default_str();
  command->add_flag("--per-launch", options->per_launch,
                    "One row per launch (nsys kernexectrace's columns) instead of per key");
  command
      ->add_option("--window", options->window, "all | processing | START:END | nvtx:NAME[@N|@*]")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "Reader threads (0 = automatic)")
      ->check(CLI::Range(0, 64));
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunLaunches(*options); });
}

}  // namespace gpuroof
