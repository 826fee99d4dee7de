#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

class RankSetSpread;

// Registers `gpuroof ranks`: the traces of a distributed job compared rank by rank. With
// `spread` (under mpirun, ranks_mpi.h), the traces are read by several processes; it must
// outlive the command's run.
void AddRanksCommand(CLI::App& app, int& exit_code, RankSetSpread* spread = nullptr);

}  // namespace gpuroof
