#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof api`: per CUDA runtime/driver function, call counts and durations.
void AddApiCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
