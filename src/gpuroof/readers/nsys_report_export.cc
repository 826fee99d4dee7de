#include "gpuroof/readers/nsys_report_export.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

namespace {

// The temporary export while it exists: removed on every way out of ResolveNsysReport, by an
// exception of any type (the destructor) and by SIGINT, SIGTERM or SIGHUP. Inside a
// TerminationScope (sweep, bench) those signals are the scope's: it defers them, and the
// ThrowIfTerminated() after the read throws Interrupted, which the destructor follows.
// Elsewhere they would kill the process with the file left behind (its name carries the pid, so
// no later run removes it): while one exists, a handler removes the registered files and dies by
// the signal, as it would have (async-signal-safe: fixed slots, unlink and raise only). One
// mechanism per signal disposition: installed only over the default one.
constexpr int kCleanupSignals[] = {SIGINT, SIGTERM, SIGHUP};
constexpr size_t kPartialSlots = 64;  // exports made at once (ranks reads traces in parallel)
constexpr size_t kPartialNameBytes = 4096;
std::array<std::array<char, kPartialNameBytes>, kPartialSlots> g_partial_names{};
std::array<std::atomic<int>, kPartialSlots> g_partial_state{};  // 0 free, 1 writing, 2 set
std::mutex g_handler_mutex;
size_t g_handler_users = 0;
std::array<bool, std::size(kCleanupSignals)> g_handler_installed{};

void RemovePartialsAndDie(int signal_number) {
  for (size_t i = 0; i < kPartialSlots; ++i) {
    if (g_partial_state[i].load() == 2) unlink(g_partial_names[i].data());
  }
  // SA_RESETHAND gave the signal its default action back: it ends the process on return.
  raise(signal_number);
}

class PartialExport : NonCopyable {
 public:
  explicit PartialExport(const std::filesystem::path& path) : path_(path) {
    const std::string name = path.string();
    for (size_t i = 0; i < kPartialSlots && slot_ == kPartialSlots; ++i) {
      int free = 0;
      if (name.size() < kPartialNameBytes && g_partial_state[i].compare_exchange_strong(free, 1)) {
        std::memcpy(g_partial_names[i].data(), name.c_str(), name.size() + 1);
        g_partial_state[i].store(2);
        slot_ = i;
      }
    }
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    if (g_handler_users++ > 0) return;
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      struct sigaction current {};
      sigaction(kCleanupSignals[i], nullptr, &current);
      g_handler_installed[i] = current.sa_handler == SIG_DFL;
      if (!g_handler_installed[i]) continue;  // ignored, or a TerminationScope's
      struct sigaction action {};
      action.sa_handler = RemovePartialsAndDie;
      action.sa_flags = SA_RESETHAND;
      sigemptyset(&action.sa_mask);
      sigaction(kCleanupSignals[i], &action, nullptr);
    }
  }
  ~PartialExport() {
    if (!kept_) {
      std::error_code ec;
      std::filesystem::remove(path_, ec);
    }
    if (slot_ < kPartialSlots) g_partial_state[slot_].store(0);
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    if (--g_handler_users > 0) return;
    for (size_t i = 0; i < std::size(kCleanupSignals); ++i) {
      if (!g_handler_installed[i]) continue;
      struct sigaction current {};
      sigaction(kCleanupSignals[i], nullptr, &current);
      if (current.sa_handler != RemovePartialsAndDie) continue;  // someone else's since
      struct sigaction defaults {};
      defaults.sa_handler = SIG_DFL;
      sigemptyset(&defaults.sa_mask);
      sigaction(kCleanupSignals[i], &defaults, nullptr);
    }
  }
  // Renamed into place: nothing left to remove.
  void Kept() { kept_ = true; }

 private:
  std::filesystem::path path_;
  size_t slot_ = kPartialSlots;
  bool kept_ = false;
};

bool IsExecutable(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

bool IsNsysReportName(const std::filesystem::path& path) {
  return path.extension() == ".nsys-rep" || path.extension() == ".qdrep";
}

std::filesystem::path NsysExportPath(const std::filesystem::path& report) {
  std::filesystem::path sqlite = report;
  sqlite.replace_extension(".sqlite");
  return sqlite;
}

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

namespace {

// A run killed while its nsys still wrote (SIGKILL, or an orphaned nsys finishing after the signal
// handler removed the name) leaves `<stem>.gpuroof-partial-<pid>.sqlite`. Removed here when no
// process has that pid any more and the file has not been written for an hour: a pid tells
// whether a run is alive only in its own PID namespace and host, and a folder can be shared by
// containers or machines, while a live run's file is written by nsys, then read, within minutes.
// A live run's file (or one of another user's, EPERM) is kept.
constexpr auto kPartialLeftOverAge = std::chrono::hours(1);

void RemoveDeadRunsPartials(const std::filesystem::path& sqlite) {
  const std::string prefix = sqlite.stem().string() + ".gpuroof-partial-";
  constexpr std::string_view kSuffix = ".sqlite";
  std::filesystem::path folder = sqlite.parent_path();
  if (folder.empty()) folder = ".";
  std::error_code ec;
  std::filesystem::directory_iterator it(folder, ec);
  if (ec) return;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return;
    const std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !name.ends_with(kSuffix)) continue;
    const std::string_view digits =
        std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - kSuffix.size());
    if (digits.empty() || digits.size() > 9 || digits[0] == '0' ||
        digits.find_first_not_of("0123456789") != std::string_view::npos) {
      continue;
    }
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(digits)));
    if (pid == getpid()) continue;
    std::error_code regular_ec;
    if (!it->is_regular_file(regular_ec)) continue;
    std::error_code time_ec;
    const auto written = std::filesystem::last_write_time(it->path(), time_ec);
    if (time_ec || std::filesystem::file_time_type::clock::now() - written < kPartialLeftOverAge) {
      continue;
    }
    if (kill(pid, 0) == -1 && errno == ESRCH) {
      std::error_code remove_ec;
      std::filesystem::remove(it->path(), remove_ec);
    }
  }
}

}  // namespace

std::filesystem::path ResolveNsysReport(
    const std::filesystem::path& report, ProcessRunner& runner, bool* exported,
    const std::function<void(const std::filesystem::path&)>& check, std::string* note) {
  if (exported != nullptr) *exported = false;
  if (note != nullptr) note->clear();
  const std::string source = report.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(report, ec)) {
    throw InputError(
        source, std::filesystem::exists(report, ec) ? "is not a regular file" : "no such file");
  }
  // Said as for any other empty file, before nsys is looked for (it could not export it anyway).
  if (std::filesystem::file_size(report, ec) == 0 && !ec) throw InputError(source, "file is empty");
  const std::filesystem::path sqlite = NsysExportPath(report);
  auto report_time = std::filesystem::last_write_time(report, ec);
  const bool had_export = std::filesystem::is_regular_file(sqlite, ec);
  if (had_export) {
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
  RemoveDeadRunsPartials(sqlite);
  std::filesystem::remove(partial, ec);
  PartialExport guard(partial);
  ProcessRequest request;
  request.argv = {nsys,   "export",   "--type",         "sqlite", "--force-overwrite",
                  "true", "--output", partial.string(), source};
  request.stdout_to = ChildOutput::kToStderr;
  request.stderr_to = ChildOutput::kInherit;
  int status = runner.Run(request).exit_code;
  ThrowIfTerminated();
  if (status != 0 || !std::filesystem::is_regular_file(partial, ec)) {
    throw InputError(source, "`" + nsys + " export --type sqlite` failed (exit status " +
                                 std::to_string(status) + ")");
  }
  // Read before it replaces anything: an export nsys wrote badly (a crash, a full disk) must not
  // cost the user the older export they had.
  if (check) {
    try {
      check(partial);
    } catch (const InputError& error) {
      ThrowIfTerminated();
      throw InputError(source,
                       "the new export cannot be read: " + error.problem() +
                           (had_export ? " (the existing " + sqlite.string() + " was kept)"
                                       : " (removed; the next run exports the report again)"));
    }
  }
  if (had_export) {
    // The old file's permissions go to its replacement (the export itself has nsys's defaults).
    const auto permissions = std::filesystem::status(sqlite, ec).permissions();
    if (!ec) std::filesystem::permissions(partial, permissions, ec);
  }
  ThrowIfTerminated();
  std::filesystem::rename(partial, sqlite, ec);
  if (ec) throw InputError(sqlite.string(), "cannot write the export: " + ec.message());
  guard.Kept();
  if (exported != nullptr) *exported = true;
  if (note != nullptr && had_export) {
    *note =
        sqlite.string() + " was older than " + source + " and was replaced by a new export of it";
  }
  return sqlite;
}

}  // namespace gpuroof
