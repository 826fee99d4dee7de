#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof kernels`: per-device, per-kernel launch counts and duration statistics.
void AddKernelsCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
