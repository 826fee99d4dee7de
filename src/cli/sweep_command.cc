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
  // SIGTERM/SIGINT/SIGHUP reach the profiled command's process group; the sweep then stops,
  // its partial files removed and its finished rows kept.
  TerminationScope termination;
  SweepSpec spec = LoadSweepSpec(options.file);
  // A dry run still shows the plan on a machine without the profiler (no nsys, no GPU).
  if (!options.campaign.dry_run) CheckProfilerAvailable(spec);
  LiveCampaignSystem live;
  CampaignSession session;
  if (int stopped = OpenCampaignUnlessStopped(spec, options.campaign, live.get(), session)) {
    return stopped;
  }
  if (options.campaign.dry_run) {
    CheckSweepResultsFiles(session);  // the real run's refusals, before the plan is shown
    fmt::print("{}", RenderSweepPlan(session));
    return kExitOk;
  }
  return RunCampaignAndPrint(
      session, [&] { return RunSweep(session, options.resume, live.get()); },
      [](const SweepOutcome& outcome) { return RenderSweepTable(outcome); });
}

}  // namespace

int ReportInterrupted(const Interrupted& stop, const std::filesystem::path& results) {
  if (results.empty()) {
    fmt::print(stderr, "gpuroof: {}: stopped before anything ran\n", stop.what());
  } else {
    fmt::print(stderr,
               "gpuroof: {}: stopped; the configuration that was running is not recorded, "
               "finished rows are kept in {}\n",
               stop.what(), results.string());
  }
  return 128 + stop.signal_number();
}

int OpenCampaignUnlessStopped(const SweepSpec& spec, CampaignOptions options,
                              CampaignSystem& system, CampaignSession& session) {
  options.gpuroof_version = GPUROOF_VERSION;
  options.check_program = true;
  try {
    session = OpenCampaign(spec, options, system);
    ThrowIfTerminated();
  } catch (const Interrupted& stop) {
    return ReportInterrupted(stop, {});
  } catch (const std::exception&) {
    // A signal kills the git or nvidia-smi OpenCampaign asks; what fails then is the signal.
    if (int signal_number = TerminationSignal(); signal_number != 0) {
      return ReportInterrupted(Interrupted(signal_number), {});
    }
    throw;
  }
  return 0;
}

void AddCampaignOptions(CLI::App& command, CampaignOptions& options) {
  command.add_option("--only", options.only, "Run only these labels");
  command.add_option("--tag", options.tag, "Suffix of the results folder");
  command.add_option("--set", options.overrides,
                     "Override a parameter in every configuration: name=value");
  command
      .add_option("--results", options.results_root,
                  "Where results folders go (relative to the current folder)")
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
                    "Skip configurations whose rows exist for the same build and parameters");
  command->callback([options, &exit_code]() { exit_code = RunSweepCommand(*options); });
}

}  // namespace gpuroof
