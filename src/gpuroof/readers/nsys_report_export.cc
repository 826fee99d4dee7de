#include "gpuroof/readers/nsys_report_export.h"

#include <cstdlib>
#include <system_error>

#include <unistd.h>

#include "gpuroof/model/errors.h"

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

std::filesystem::path ResolveNsysReport(const std::filesystem::path& report, ProcessRunner& runner,
                                        bool* exported) {
  if (exported != nullptr) *exported = false;
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
  ProcessRequest request;
  request.argv = {nsys,   "export",   "--type",         "sqlite", "--force-overwrite",
                  "true", "--output", partial.string(), source};
  request.stdout_to = ChildOutput::kToStderr;
  request.stderr_to = ChildOutput::kInherit;
  int status = runner.Run(request).exit_code;
  if (status != 0 || !std::filesystem::is_regular_file(partial, ec)) {
    std::filesystem::remove(partial, ec);
    throw InputError(source, "`" + nsys + " export --type sqlite` failed (exit status " +
                                 std::to_string(status) + ")");
  }
  std::filesystem::rename(partial, sqlite, ec);
  if (ec) throw InputError(sqlite.string(), "cannot write the export: " + ec.message());
  if (exported != nullptr) *exported = true;
  return sqlite;
}

}  // namespace gpuroof
