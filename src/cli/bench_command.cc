#include "bench_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/campaign/bench_runner.h"
#include "gpuroof/campaign/live_system.h"

#include "command_help.h"
#include "sweep_command.h"

namespace gpuroof {

namespace {

struct BenchCommandOptions {
  std::string file;
  CampaignOptions campaign;
  BenchOptions bench;
};

int RunBenchCommand(BenchCommandOptions& options) {
  TerminationScope termination;  // see RunSweepCommand
  SweepSpec spec = LoadSweepSpec(options.file);
  LiveCampaignSystem live;
  CampaignSession session;
  if (int stopped = OpenCampaignUnlessStopped(spec, options.campaign, live.get(), session)) {
    return stopped;
  }
  return RunCampaignAndPrint(
      session, [&] { return RunBench(session, options.bench, live.get()); },
      [&](const BenchOutcome& outcome) { return RenderBenchTable(outcome, spec.unit_name); });
}

}  // namespace

void AddBenchCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<BenchCommandOptions>();
  CLI::App* command = AddCommand(app, "bench");
  command->add_option("file", options->file, "Sweep file (TOML)")->required();
  command
      ->add_option("--reps", options->bench.reps, "Runs per configuration")
      // A word or a fraction is not a count: said as such, not as "not in range".
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
              return "'" + text + "' is not a whole number (1 to 1000)";
            return "";
          },
          "", "WHOLE_NUMBER"))
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("--metric-regex", options->bench.metric_regex,
                      "Take units/s from the command's stdout: group 1 of this regex");
  AddCampaignOptions(*command, options->campaign);
  command->callback([options, &exit_code]() { exit_code = RunBenchCommand(*options); });
}

}  // namespace gpuroof
