#pragma once

#include <filesystem>

#include <fmt/format.h>

#include "gpuroof/campaign/campaign_session.h"
#include "gpuroof/process/process_runner.h"

#include "exit_codes.h"

namespace CLI {
class App;
}

namespace gpuroof {

// `gpuroof sweep FILE`: run a sweep file's configurations under a profiler (docs/cli.md).
void AddSweepCommand(CLI::App& app, int& exit_code);

// --only, --tag, --set, --results and --allow-busy-gpu, shared by sweep and bench.
void AddCampaignOptions(CLI::App& command, CampaignOptions& options);

// Says on stderr that a sweep or bench stopped for a signal and where its finished rows are;
// returns the exit status, 128 + the signal's number.
// An empty `results`: stopped before the campaign opened.
int ReportInterrupted(const Interrupted& stop, const std::filesystem::path& results);

// OpenCampaign() into `session`, as the CLI opens campaigns: stamped with this build's version,
// argv[0] checked (CampaignOptions::check_program). Returns 0, or, when a termination signal
// arrived meanwhile, the exit status after saying so (ReportInterrupted). Other errors propagate.
int OpenCampaignUnlessStopped(const SweepSpec& spec, CampaignOptions options,
                              CampaignSystem& system, CampaignSession& session);

// Runs the opened campaign (`run()`: RunSweep or RunBench) and prints `render(outcome)`, the same
// for sweep and bench; returns the exit status: 128 + N when signal N stopped it
// (ReportInterrupted; finished rows are kept), kExitCheckFailed when a configuration failed, else
// kExitOk.
template <typename RunCampaign, typename RenderOutcome>
int RunCampaignAndPrint(const CampaignSession& session, RunCampaign run, RenderOutcome render) {
  decltype(run()) outcome;
  try {
    outcome = run();
  } catch (const Interrupted& stop) {
    return ReportInterrupted(stop, session.results);
  }
  fmt::print("{}", render(outcome));
  return outcome.failed > 0 ? kExitCheckFailed : kExitOk;
}

}  // namespace gpuroof
