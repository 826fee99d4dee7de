#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof ranges`: per NVTX range name, CPU durations and the GPU work its instances
// launched, per engine, with the roofline per instance.
void AddRangesCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
