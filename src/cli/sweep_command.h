#pragma once

#include <filesystem>

#include "gpuroof/campaign/campaign_session.h"

namespace CLI {
class App;
}

namespace gpuroof {

class Interrupted;

// `gpuroof sweep FILE`: run a sweep file's configurations under a profiler (docs/cli.md).
void AddSweepCommand(CLI::App& app, int& exit_code);

// --only, --tag, --set, --results and --allow-busy-gpu, shared by sweep and bench.
void AddCampaignOptions(CLI::App& command, CampaignOptions& options);

// Says on stderr that a sweep or bench stopped for a signal and where its finished rows are;
// returns the exit status, 128 + the signal's number.
// An empty `results`: stopped before the campaign opened.
int ReportInterrupted(const Interrupted& stop, const std::filesystem::path& results);

// OpenCampaign() into `session`; returns 0, or, when a termination signal arrived meanwhile, the
// exit status after saying so (ReportInterrupted). Other errors propagate.
int OpenCampaignUnlessStopped(const SweepSpec& spec, const CampaignOptions& options,
                              CampaignSystem& system, CampaignSession& session);

}  // namespace gpuroof
