#include "sweep_command.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/campaign/live_system.h"
#include "gpuroof/campaign/profiler.h"
#include "gpuroof/campaign/sweep_runner.h"

#include "command_help.h"
#include "exit_codes.h"

namespace gpuroof {

namespace {

struct SweepCommandOptions {
  std::string file;
  CampaignOptions campaign;
  bool resume = false;
};

int RunSweepCommand(SweepCommandOptions& options) {
  SweepSpec spec = LoadSweepSpec(options.file);
  // A dry run still shows the plan on a machine without the profiler (no nsys, no GPU).
  if (!options.campaign.dry_run) CheckProfilerAvailable(spec);
  options.campaign.gpuroof_version = GPUROOF_VERSION;
  LiveCampaignSystem live;
  CampaignSession session = OpenCampaign(spec, options.campaign, live.get());
  if (options.campaign.dry_run) {
    fmt::print("{}", RenderSweepPlan(session));
    return kExitOk;
  }
  SweepOutcome outcome = RunSweep(session, options.resume, live.get());
  fmt::print("{}", RenderSweepTable(outcome));
  return outcome.failed > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void AddCampaignOptions(CLI::App& command, CampaignOptions& options) {
  command.add_option("--only", options.only, "Run only these labels");
  command.add_option("--tag", options.tag, "Suffix of the results folder");
  command.add_option("--set", options.overrides,
                     "Override a parameter in every configuration: name=value");
  command.add_option("--results", options.results_root, "Where results folders go")
      ->capture_default_str();
  command.add_flag("--allow-busy-gpu", options.allow_busy_gpu,
                   "Run on a busy GPU, marking every row not quotable");
}

void AddSweepCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<SweepCommandOptions>();
  CLI::App* command = AddCommand(app, "sweep");
  command->add_option("file", options->file, "Sweep file (TOML)")->required();
  AddCampaignOptions(*command, options->campaign);
  command->add_flag("--dry-run", options->campaign.dry_run,
                    "Print the plan and the guards' verdicts; run and write nothing");
  command->add_flag("--resume", options->resume,
                    "Skip configurations whose rows exist for the same build");
  command->callback([options, &exit_code]() { exit_code = RunSweepCommand(*options); });
}

}  // namespace gpuroof
