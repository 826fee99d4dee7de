#include "cli_runner.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gpuroof::testing {

CliResult RunProgram(const std::vector<std::string>& argv) {
  TempDir temp;
  std::string out_path = (temp / "stdout").string();
  std::string err_path = (temp / "stderr").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + argv[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  CliResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

CliResult RunGpuroof(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {GPUROOF_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProgram(argv);
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "gpuroof_test_XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::filesystem::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
}

std::filesystem::path SourceDir() {
  return GPUROOF_SOURCE_DIR;
}

void ExpectGoldenOutput(const std::string& name, std::string out, const std::string& path,
                        const std::string& placeholder) {
  for (size_t at = out.find(path); at != std::string::npos; at = out.find(path, at)) {
    out.replace(at, path.size(), placeholder);
  }
  const std::filesystem::path golden = SourceDir() / "tests" / "golden" / name;
  if (std::getenv("UPDATE_GOLDEN") != nullptr) WriteFile(golden, out);
  EXPECT_EQ(out, ReadFile(golden)) << "golden file " << golden << " differs (UPDATE_GOLDEN=1 to "
                                   << "rewrite it after checking the change)";
}

std::vector<std::map<std::string, std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      record.push_back(cell);
      cell.clear();
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(cell);
      cell.clear();
      records.push_back(record);
      record.clear();
    } else {
      cell += c;
    }
  }
  if (!cell.empty() || !record.empty()) {
    record.push_back(cell);
    records.push_back(record);
  }
  std::vector<std::map<std::string, std::string>> rows;
  for (size_t r = 1; r < records.size(); ++r) {
    std::map<std::string, std::string> row;
    for (size_t c = 0; c < records[0].size() && c < records[r].size(); ++c)
      row[records[0][c]] = records[r][c];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace gpuroof::testing
