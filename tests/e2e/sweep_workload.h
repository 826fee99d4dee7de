#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <sys/types.h>

namespace gpuroof::testing {

// A fake GPU workload for sweep tests: a shell script that writes an nsys-schema trace through
// gpuroof-trace-builder ($GPUROOF_TRACE_BUILDER). Flags: --kernel-ns K (default 5000), --frames N
// (10), --streams S (1), --sleep SECONDS, --fail CODE, --note TEXT --note-file PATH (writes TEXT
// there verbatim), -o TRACE, --touch (creates TRACE now, as a profiler that is still writing it),
// --pid-file PATH (writes the script's pid there, whole, when it gets to that flag). Each frame
// occupies 20 us: H2D [0, 3 us), kernel [3 us, 3 us + K), D2H [3 us + K, 5 us + K), on stream 1 +
// frame % S.
std::filesystem::path WriteWorkloadScript(const std::filesystem::path& folder);

// An executable `nvidia-smi` in `folder` that reports one GPU at `utilisation_pct`.
void WriteFakeNvidiaSmi(const std::filesystem::path& folder, int utilisation_pct);

// Puts `folder` first on PATH and makes NVML unloadable, so GPU answers come from the fake.
void UseFakeGpuTools(const std::filesystem::path& folder);

// The gpuroof binary started in its own process group with stdout and stderr to files in
// `folder`; returns the pid (which is also the group id).
pid_t StartGpuroof(const std::vector<std::string>& args, const std::filesystem::path& folder,
                   const std::string& name);

// Waits for `pid`; returns its exit code (128 + signal when killed).
int WaitFor(pid_t pid);

}  // namespace gpuroof::testing
