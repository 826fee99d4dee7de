#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof findings`: what to fix, costliest first (docs/findings.md).
void AddFindingsCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
