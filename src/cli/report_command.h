#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof report`: one self-contained HTML page with the engine bars and roofline,
// duty cycles and overlap, a timeline per device, and the top kernels and copies.
void AddReportCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
