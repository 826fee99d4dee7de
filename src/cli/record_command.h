#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// Registers `gpuroof record [-o trace.sqlite] [--nvtx] -- COMMAND ARGS...`: runs COMMAND with
// the CUPTI recorder injected and keeps the trace it writes.
void AddRecordCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
