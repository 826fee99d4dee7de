#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof copies`: per device, copy direction and memory kinds: count, bytes, time
// and bandwidth, with pageable host memory flagged.
void AddCopiesCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
