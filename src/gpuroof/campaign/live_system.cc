#include "gpuroof/campaign/live_system.h"

#include <fmt/format.h>
#include <unistd.h>

namespace gpuroof {

LiveCampaignSystem::LiveCampaignSystem()
    : system_{runner_,
              clock_,
              files_,
              [this]() { return ProbeGpus(runner_); },
              [](const std::string& line) { fmt::print(stderr, "{}\n", line); },
              isatty(STDERR_FILENO) == 1} {}

}  // namespace gpuroof
