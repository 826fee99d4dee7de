// Every shared fixture trace through every breakdown command: each run ends with exit 0, or with
// exit 2 and one clear error line (e.g. `kernels` on an export without kernels) — never an
// internal error, a crash or a half-written output.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path FixturesDir() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR);
}

// nsys exports, and Kineto traces once a reader for them exists in this build.
std::vector<std::filesystem::path> FixtureTraces() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const char* folder : {"nsys", "kineto"}) {
    for (const auto& entry : std::filesystem::directory_iterator(FixturesDir() / folder, ec)) {
      const std::string name = entry.path().filename().string();
      const bool nsys = entry.path().extension() == ".sqlite";
      const bool kineto = name.ends_with(".json.gz") ||
                          (name.ends_with(".json") && name != "reference_metrics.json");
      if (nsys || kineto) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Text output fits 160 columns (names shortened, docs/formats.md "Tables"). Lines that hold the
// trace's path are the user's own width and are left out.
void ExpectFitsInColumns(const std::string& out, const std::string& path,
                         const std::string& shown) {
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(start, end - start);
    start = end + 1;
    if (line.find(path) != std::string::npos) continue;
    const auto width = std::count_if(line.begin(), line.end(), [](char c) {
      return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    });
    EXPECT_LE(width, 160) << shown << "\n" << line;
  }
}

TEST(FixtureCommands, EveryFixtureThroughEveryCommand) {
  if (!std::filesystem::is_directory(FixturesDir() / "nsys")) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared fixtures not found at " << FixturesDir();
  }
  const std::vector<std::vector<std::string>> commands = {{"analyze"},
                                                          {"analyze", "--overlap"},
                                                          {"analyze", "--by-stream"},
                                                          {"kernels"},
                                                          {"kernels", "--key", "launch"},
                                                          {"copies"},
                                                          {"copies", "--contention"},
                                                          {"gaps", "--min", "1us"},
                                                          {"ranges"}};
  int successes = 0;
  for (const std::filesystem::path& trace : FixtureTraces()) {
    for (std::vector<std::string> args : commands) {
      args.push_back(trace.string());
      // JSON once per trace (it shares the analyses with the table; the writers are unit-tested).
      const bool with_json = args.size() == 2 && (args[0] == "analyze" || args[0] == "ranges");
      for (const char* format : {"table", "json"}) {
        if (std::string(format) == "json" && !with_json) continue;
        std::vector<std::string> run = args;
        run.insert(run.end(), {"--format", format, "--quiet"});
        const CliResult result = RunGpuroof(run);
        std::string shown;
        for (const std::string& arg : run)
          shown += arg + " ";
        if (result.exit_code == 0) {
          ++successes;
          EXPECT_FALSE(result.out.empty()) << shown;
          if (std::string(format) == "table")
            ExpectFitsInColumns(result.out, trace.string(), shown);
          continue;
        }
        EXPECT_EQ(result.exit_code, 2) << shown << "\n" << result.err;
        EXPECT_EQ(result.err.rfind("gpuroof: error: ", 0), 0u) << shown << "\n" << result.err;
        EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << shown << result.err;
        EXPECT_TRUE(result.out.empty()) << shown;
      }
    }
  }
  // Most runs succeed: only traces without kernels, copies or NVTX ranges refuse a command.
  EXPECT_GT(successes, 60);
}

}  // namespace
}  // namespace gpuroof::testing
