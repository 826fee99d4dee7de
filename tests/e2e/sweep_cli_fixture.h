#pragma once

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.h"
#include "sweep_workload.h"

namespace gpuroof::testing {

// A temporary folder with the fake workload, an idle fake nvidia-smi first on PATH, and helpers
// to write sweep files and read results.
class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir.path() / "bin");
    WriteFakeNvidiaSmi(dir.path() / "bin", 0);
    UseFakeGpuTools(dir.path() / "bin");
    workload = WriteWorkloadScript(dir.path());
  }

  // A sweep over the workload: parameters kernel = 5000 and frames = 10 plus `parameters`, argv
  // plus `extra_argv`, configurations k5 and k4 (kernel 4000) unless given, build "b1".
  std::filesystem::path WriteSpec(const std::string& parameters = "",
                                  const std::vector<std::string>& extra_argv = {},
                                  const std::string& configurations = "",
                                  const std::string& build = "",
                                  const std::string& profiler = "command") {
    std::string argv = "\"" + workload.string() +
                       "\", \"--kernel-ns\", \"{kernel}\", \"--frames\", \"{frames}\", \"-o\", "
                       "\"{trace}\"";
    for (const std::string& arg : extra_argv)
      argv += ", \"" + arg + "\"";
    std::string text =
        "[command]\nargv = [" + argv + "]\nworkdir = \"" + dir.path().string() +
        "\"\nenv = { GPUROOF_TRACE_BUILDER = \"" GPUROOF_TRACE_BUILDER "\" }\n" +
        "[parameters]\nkernel = 5000\nframes = 10\n" + parameters +
        (configurations.empty() ? "[[configurations]]\nlabel = \"k5\"\n"
                                  "[[configurations]]\nlabel = \"k4\"\nkernel = 4000\n"
                                : configurations) +
        "[run]\nprofiler = \"" + profiler + "\"\nunits = \"{frames}\"\n" +
        (build.empty() ? "[build]\nidentity_command = [\"echo\", \"b1\"]\n" : build);
    std::filesystem::path path = dir.path() / "sweep.toml";
    WriteFile(path, text);
    return path;
  }

  // A sweep over the workload with configurations "first" (sleep 0) and "slow" (sleeps 300 s),
  // each writing its workload's pid to <label>.pid in the folder.
  std::filesystem::path WriteSpecWithASlowSecondConfiguration() {
    return WriteSpec("sleep = 0\n", {"--touch", "--pid-file", "{label}.pid", "--sleep", "{sleep}"},
                     "[[configurations]]\nlabel = \"first\"\n[[configurations]]\nlabel = "
                     "\"slow\"\nsleep = 300\n");
  }

  // Waits up to 60 s for `path` to exist; whether it does.
  static bool WaitForFile(const std::filesystem::path& path) {
    for (int i = 0; i < 600 && !std::filesystem::exists(path); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return std::filesystem::exists(path);
  }

  std::filesystem::path Results() const { return dir.path() / "results"; }

  // The one folder a sweep made under Results().
  std::filesystem::path OnlyResultsFolder() const {
    std::vector<std::filesystem::path> folders;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(Results(), ec))
      folders.push_back(entry.path());
    EXPECT_EQ(folders.size(), 1u);
    return folders.empty() ? Results() : folders[0];
  }

  // A CSV file as rows of column -> cell (quoted cells with commas, quotes and newlines handled).
  static std::vector<std::map<std::string, std::string>> Csv(const std::filesystem::path& path) {
    std::string text = ReadFile(path);
    std::vector<std::vector<std::string>> records(1);
    std::string cell;
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && c == ',') {
        records.back().push_back(cell);
        cell.clear();
      } else if (!quoted && c == '\n') {
        records.back().push_back(cell);
        cell.clear();
        records.emplace_back();
      } else {
        cell += c;
      }
    }
    records.pop_back();  // after the final newline
    std::vector<std::map<std::string, std::string>> rows;
    for (size_t r = 1; r < records.size(); ++r) {
      EXPECT_EQ(records[r].size(), records[0].size()) << path << " record " << r;
      std::map<std::string, std::string> row;
      for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c)
        row[records[0][c]] = records[r][c];
      rows.push_back(row);
    }
    return rows;
  }

  TempDir dir;
  std::filesystem::path workload;
};

}  // namespace gpuroof::testing
