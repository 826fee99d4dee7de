#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gpuroof {

// One program to run: argv[0] is looked up on PATH and started with exec (never a shell).
struct ProcessRequest {
  std::vector<std::string> argv;
  std::filesystem::path workdir;                         // empty: the current directory
  std::vector<std::pair<std::string, std::string>> env;  // set on top of our environment
};

struct ProcessResult {
  int exit_code = 0;  // 127: could not start; 128 + N: killed by signal N
  std::string out;    // stdout
  std::string err;    // the last 64 KiB of stderr
  int64_t wall_ns = 0;
  int pid = 0;  // the process started, 0 when none was: tells its files from its children's
};

// Runs programs for the campaign layer. An interface so tests run sweeps with scripted results.
class ProcessRunner {
 public:
  virtual ~ProcessRunner() = default;
  virtual ProcessResult Run(const ProcessRequest& request) = 0;
};

// posix_spawnp with stdin from /dev/null and both outputs captured through pipes.
class PosixProcessRunner : public ProcessRunner {
 public:
  ProcessResult Run(const ProcessRequest& request) override;
};

// The last `count` non-empty lines of `text`, joined by " | " (for one-line CSV cells).
std::string LastLines(const std::string& text, int count);

}  // namespace gpuroof
