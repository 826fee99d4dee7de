#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof gaps`: idle intervals of each device longer than --min.
void AddGapsCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
