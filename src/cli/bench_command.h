#pragma once

namespace CLI {
class App;
}

namespace gpuroof {

// `gpuroof bench FILE`: sustained throughput of a sweep file's configurations (docs/cli.md).
void AddBenchCommand(CLI::App& app, int& exit_code);

}  // namespace gpuroof
