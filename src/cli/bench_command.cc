#include "bench_command.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/campaign/bench_runner.h"
#include "gpuroof/campaign/live_system.h"

#include "exit_codes.h"
#include "sweep_command.h"

namespace gpuroof {

namespace {

struct BenchCommandOptions {
  std::string file;
  CampaignOptions campaign;
  BenchOptions bench;
};

int RunBenchCommand(BenchCommandOptions& options) {
  SweepSpec spec = LoadSweepSpec(options.file);
  options.campaign.gpuroof_version = GPUROOF_VERSION;
  LiveCampaignSystem live;
  CampaignSession session = OpenCampaign(spec, options.campaign, live.get());
  BenchOutcome outcome = RunBench(session, options.bench, live.get());
  fmt::print("{}", RenderBenchTable(outcome, spec.unit_name));
  return outcome.failed > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<BenchCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "bench", "Sustained throughput of a sweep file's configurations, without a profiler");
  command->footer(
      "Examples:\n"
      "  gpuroof bench examples/sweeps/clusterfinder.toml --reps 5\n"
      "  gpuroof bench sweep.toml --only cap1700 --metric-regex 'fps: ([0-9.]+)'\n"
      "Each rep is a fresh process. cold = rep 1, warm = best of the rest, spread = (max - min) /\n"
      "min of the rest; joined with probes.csv of the same build and key for % of roofline.\n"
      "Results: ladder.csv and a manifest row in the sweep's results folder (docs/formats.md).");
  command->add_option("file", options->file, "Sweep file (TOML)")->required();
  command->add_option("--reps", options->bench.reps, "Runs per configuration")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("--metric-regex", options->bench.metric_regex,
                      "Take units/s from the command's stdout: group 1 of this regex");
  AddCampaignOptions(*command, options->campaign);
  command->callback([options, &exit_code]() { exit_code = RunBenchCommand(*options); });
}

}  // namespace gpuroof
