#include "gpuroof/readers/nsys_report_export.h"

#include <cstdlib>
#include <system_error>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"

extern char** environ;

namespace gpuroof {

namespace {

bool IsExecutable(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string FindNsysProgram() {
  if (const char* nsys = std::getenv("NSYS"); nsys != nullptr && *nsys != '\0') return nsys;
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view dirs(path);
  while (!dirs.empty()) {
    size_t colon = dirs.find(':');
    std::string_view dir = dirs.substr(0, colon);
    if (!dir.empty() && IsExecutable(std::filesystem::path(dir) / "nsys")) {
      return (std::filesystem::path(dir) / "nsys").string();
    }
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return {};
}

int SpawnProcessLauncher::Run(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv)
    args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // nsys prints progress on stdout; keep our stdout for data.
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return 127;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 127;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::filesystem::path ResolveNsysReport(const std::filesystem::path& report,
                                        ProcessLauncher& launcher) {
  const std::string source = report.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(report, ec)) {
    throw InputError(
        source, std::filesystem::exists(report, ec) ? "is not a regular file" : "no such file");
  }
  std::filesystem::path sqlite = report;
  sqlite.replace_extension(".sqlite");
  auto report_time = std::filesystem::last_write_time(report, ec);
  if (std::filesystem::is_regular_file(sqlite, ec)) {
    auto export_time = std::filesystem::last_write_time(sqlite, ec);
    if (!ec && export_time >= report_time) return sqlite;
  }
  std::string nsys = FindNsysProgram();
  if (nsys.empty()) {
    throw InputError(source,
                     "is an nsys report and nsys is not on PATH (nor named by $NSYS); "
                     "export it first: nsys export --type sqlite --output " +
                         sqlite.string() + " " + source);
  }
  // Export next to the report under a temporary name, then rename: an interrupted export never
  // leaves a half-written .sqlite that a later run would trust.
  // The name ends in .sqlite (nsys may append the extension otherwise) and carries the pid, so two
  // runs exporting the same report never write one file.
  std::filesystem::path partial = sqlite;
  partial.replace_extension(".gpuroof-partial-" + std::to_string(getpid()) + ".sqlite");
  std::filesystem::remove(partial, ec);
  int status = launcher.Run({nsys, "export", "--type", "sqlite", "--force-overwrite", "true",
                             "--output", partial.string(), source});
  if (status != 0 || !std::filesystem::is_regular_file(partial, ec)) {
    std::filesystem::remove(partial, ec);
    throw InputError(source, "`" + nsys + " export --type sqlite` failed (exit status " +
                                 std::to_string(status) + ")");
  }
  std::filesystem::rename(partial, sqlite, ec);
  if (ec) throw InputError(sqlite.string(), "cannot write the export: " + ec.message());
  return sqlite;
}

}  // namespace gpuroof
