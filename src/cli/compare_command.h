#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof compare`: the CI regression gate (statistical, simple per-epoch ratio, and
// A/A calibration). Exit 0 pass, 1 regression, 2 invalid or incomparable input.
void AddCompareCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
