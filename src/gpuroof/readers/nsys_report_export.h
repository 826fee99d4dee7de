#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace gpuroof {

// Runs a program and waits for it; returns its exit status (127 when it could not start).
// Behind an interface so tests need no real nsys.
class ProcessLauncher {
 public:
  virtual ~ProcessLauncher() = default;
  virtual int Run(const std::vector<std::string>& argv) = 0;
};

// Starts the program with posix_spawnp (no shell), stdout sent to stderr so data output stays
// clean.
class SpawnProcessLauncher : public ProcessLauncher {
 public:
  int Run(const std::vector<std::string>& argv) override;
};

// Finds the SQLite export of an `.nsys-rep` report: the sibling `<stem>.sqlite` when it is newer
// than the report, else exports it with `$NSYS` or `nsys` on PATH (`nsys export --type sqlite`).
// Throws InputError when the report is missing, nsys cannot be found (saying how to export by
// hand), or the export fails.
std::filesystem::path ResolveNsysReport(const std::filesystem::path& report,
                                        ProcessLauncher& launcher);

// The nsys program to use: $NSYS when set, else `nsys` found on PATH; empty when neither.
std::string FindNsysProgram();

}  // namespace gpuroof
