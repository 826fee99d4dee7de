#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof launches`: launch overhead, queue time and launch-to-start latency per
// kernel key, or per launch.
void AddLaunchesCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
