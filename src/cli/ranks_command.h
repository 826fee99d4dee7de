#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof ranks`: the traces of a distributed job compared rank by rank.
void AddRanksCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
