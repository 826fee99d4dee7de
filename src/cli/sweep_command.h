#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

struct CampaignOptions;

// `gpuroof sweep FILE`: run a sweep file's configurations under a profiler (docs/cli.md).
void AddSweepCommand(CLI::App& app, int& exit_code);

// --only, --tag, --set, --results and --allow-busy-gpu, shared by sweep and bench.
void AddCampaignOptions(CLI::App& command, CampaignOptions& options);

}  // namespace gpuroof
