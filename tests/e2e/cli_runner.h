#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace gpuroof::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs the gpuroof binary under test with `args` (no shell), capturing both streams.
CliResult RunGpuroof(const std::vector<std::string>& args);

// Runs any program (argv[0] looked up on PATH) the same way.
CliResult RunProgram(const std::vector<std::string>& argv);

// A fresh, empty temporary folder for one test, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

std::string ReadFile(const std::filesystem::path& path);
void WriteFile(const std::filesystem::path& path, const std::string& content);

// The rows of an RFC 4180 CSV (one header line; quoted fields may hold commas, quotes and line
// breaks) as header name -> cell; a trailing comma is an empty last cell.
std::vector<std::map<std::string, std::string>> ParseCsv(const std::string& text);

// Path of the bundled example trace and of the repository root.
std::filesystem::path SourceDir();

// Compares `out` with tests/golden/<name> after replacing every occurrence of `path` (a trace's
// absolute path, which differs between clones) by `<placeholder>`. UPDATE_GOLDEN=1 rewrites the
// golden file instead; review the diff before committing.
void ExpectGoldenOutput(const std::string& name, std::string out, const std::string& path,
                        const std::string& placeholder);

}  // namespace gpuroof::testing
