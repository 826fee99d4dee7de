#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof analyze`: per-device engine busy time, duty cycle and the roofline.
void AddAnalyzeCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
