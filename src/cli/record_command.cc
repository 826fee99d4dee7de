#include "record_command.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/recorder/driver_probe.h"
#include "gpuroof/recorder/recorder_env.h"

#include "exit_codes.h"

extern char** environ;

namespace gpuroof {
namespace {

namespace fs = std::filesystem;

constexpr char kLibraryName[] = "libgpuroof_recorder.so";

struct RecordOptions {
  std::string output = "trace.sqlite";
  bool nvtx = false;
  std::vector<std::string> command;
};

// $GPUROOF_RECORDER_LIBRARY, else beside the gpuroof binary (installed: ../lib), else the build
// tree this binary came from. Nothing when this gpuroof was built without CUDA.
std::optional<fs::path> FindRecorderLibrary() {
  if (const char* custom = std::getenv("GPUROOF_RECORDER_LIBRARY"); custom && *custom) {
    if (!fs::is_regular_file(custom)) {
      throw InputError(custom, "GPUROOF_RECORDER_LIBRARY names no such file");
    }
    return fs::absolute(custom);
  }
  std::error_code error;
  const fs::path exe_dir = fs::read_symlink("/proc/self/exe", error).parent_path();
  if (!error) {
    for (const fs::path& candidate :
         {exe_dir / kLibraryName, exe_dir / ".." / "lib" / kLibraryName}) {
      if (fs::is_regular_file(candidate)) return fs::canonical(candidate);
    }
  }
#ifdef GPUROOF_RECORDER_BUILD_PATH
  if (fs::is_regular_file(GPUROOF_RECORDER_BUILD_PATH))
    return fs::path(GPUROOF_RECORDER_BUILD_PATH);
#endif
  return std::nullopt;
}

// Refuses an output the run could not end in, before anything runs.
void CheckOutput(const fs::path& output) {
  const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
  if (!fs::is_directory(folder)) {
    throw InputError(output.string(), "the output folder " + folder.string() + " does not exist");
  }
  if (fs::is_directory(output)) throw InputError(output.string(), "is a folder");
  if (access(folder.c_str(), W_OK) != 0) {
    throw InputError(output.string(), "the output folder " + folder.string() + " is not writable");
  }
}

// A private folder beside the output for the recorder's files: the final rename then stays on
// one file system, and a failed run leaves nothing behind (the destructor removes the folder).
class ScratchFolder {
 public:
  explicit ScratchFolder(const fs::path& output) {
    const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
    path_ = folder / fmt::format(".{}.record-{}", output.filename().string(), getpid());
    std::error_code error;
    fs::remove_all(path_, error);
    if (!fs::create_directory(path_, error) || error) {
      throw InputError(output.string(), "cannot create the scratch folder " + path_.string() +
                                            ": " + error.message());
    }
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

struct ChildResult {
  int exit_code = 0;
  pid_t pid = 0;
  int64_t wall_ns = 0;
};

// Runs the command with exec (no shell), our stdio, and `extra` added to the environment.
// Ctrl-C goes to the command; we wait for it and still clean up, as system() does.
ChildResult RunCommand(const std::vector<std::string>& command,
                       const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced =
        std::any_of(extra.begin(), extra.end(), [&](const auto& kv) { return kv.first == name; });
    if (!replaced) env_strings.push_back(std::move(entry));
  }
  for (const auto& [name, value] : extra)
    env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env_strings)
    envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  for (std::string& s : args)
    argv.push_back(s.data());
  argv.push_back(nullptr);

  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  struct sigaction old_int {};
  struct sigaction old_quit {};
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);

  ChildResult result;
  const auto started = std::chrono::steady_clock::now();
  int rc = posix_spawnp(&result.pid, argv[0], nullptr, &attr, argv.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  int status = 0;
  if (rc == 0) {
    while (waitpid(result.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  result.wall_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  if (rc != 0) throw InputError(command[0], fmt::format("cannot run: {}", std::strerror(rc)));
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

struct RecordedTrace {
  pid_t pid = 0;
  fs::path file;  // empty when the recorder of that process wrote no trace
  recorder::RecorderStatus status;
};

// One entry per process whose recorder finished (or reported failing), the command's own
// process first.
std::vector<RecordedTrace> CollectTraces(const fs::path& scratch, pid_t child) {
  std::vector<RecordedTrace> traces;
  for (const fs::directory_entry& entry : fs::directory_iterator(scratch)) {
    const fs::path& path = entry.path();
    if (path.extension() != ".status") continue;
    RecordedTrace trace;
    fs::path trace_file = path;
    trace_file.replace_extension();  // "<pid>.sqlite"
    trace.pid = static_cast<pid_t>(std::atol(trace_file.stem().c_str()));
    trace.status = recorder::ReadRecorderStatus(path).value_or(recorder::RecorderStatus{});
    if (trace.status.error.empty() && fs::is_regular_file(trace_file)) trace.file = trace_file;
    traces.push_back(std::move(trace));
  }
  std::sort(traces.begin(), traces.end(), [child](const RecordedTrace& a, const RecordedTrace& b) {
    return std::make_pair(a.pid != child, a.pid) < std::make_pair(b.pid != child, b.pid);
  });
  return traces;
}

// "run.sqlite" -> "run.<pid>.sqlite", for the traces of the command's CUDA child processes.
fs::path SiblingPath(const fs::path& output, pid_t pid) {
  fs::path sibling = output;
  sibling.replace_filename(
      fmt::format("{}.{}{}", output.stem().string(), pid, output.extension().string()));
  return sibling;
}

int RunRecord(const RecordOptions& options) {
  if (options.command.empty()) {
    throw InputError("record",
                     "no command given; usage: gpuroof record [-o trace.sqlite] "
                     "[--nvtx] -- COMMAND ARGS...");
  }
  const fs::path output = options.output;
  CheckOutput(output);
  std::optional<fs::path> library = FindRecorderLibrary();
  if (!library) {
    throw InputError("record",
                     "this gpuroof was built without the CUDA recorder (libgpuroof_recorder.so; "
                     "CMake found no CUDA toolkit with CUPTI), so it cannot record");
  }
  if (std::string problem = recorder::ProbeCudaDriver(); !problem.empty()) {
    throw InputError("record", problem + "; nothing was run");
  }

  ScratchFolder scratch(output);
  std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", library->string()},
      {recorder::kOutputEnv, (scratch.path() / "%p.sqlite").string()}};
  if (options.nvtx) {
    env.emplace_back("NVTX_INJECTION64_PATH", library->string());
    env.emplace_back(recorder::kNvtxEnv, "1");
  }
  const ChildResult child = RunCommand(options.command, env);
  const std::vector<RecordedTrace> traces = CollectTraces(scratch.path(), child.pid);

  int64_t finish_ns = 0;
  std::vector<std::string> kept;
  for (const RecordedTrace& trace : traces) {
    if (trace.file.empty()) {
      fmt::print(stderr, "gpuroof record: the recorder in process {} wrote no trace: {}\n",
                 trace.pid, trace.status.error.empty() ? "no status" : trace.status.error);
      continue;
    }
    const fs::path target = kept.empty() ? output : SiblingPath(output, trace.pid);
    std::error_code error;
    fs::rename(trace.file, target, error);
    if (error) {
      throw InputError(target.string(), "cannot move the trace into place: " + error.message());
    }
    if (kept.empty()) finish_ns = trace.status.finish_ns;
    kept.push_back(fmt::format("{} records written to {} ({} dropped)", trace.status.records,
                               target.string(), trace.status.dropped));
    if (trace.status.dropped > 0) {
      fmt::print(stderr,
                 "gpuroof record: warning: {} records were DROPPED in process {}; the trace "
                 "undercounts GPU work\n",
                 trace.status.dropped, trace.pid);
    }
  }
  fmt::print(stderr, "gpuroof record: {} exited with code {} after {:.3f} s wall time",
             options.command[0], child.exit_code, static_cast<double>(child.wall_ns) * 1e-9);
  if (finish_ns > 0) {
    fmt::print(stderr, " ({:.3f} s of it writing the trace at exit)",
               static_cast<double>(finish_ns) * 1e-9);
  }
  fmt::print(stderr, "\n");
  for (const std::string& line : kept)
    fmt::print(stderr, "gpuroof record: {}\n", line);
  if (kept.empty()) {
    fmt::print(stderr,
               "gpuroof: error: record: no trace recorded (did {} use CUDA?); {} was not "
               "written\n",
               options.command[0], output.string());
    return child.exit_code != 0 ? child.exit_code : kExitBadInput;
  }
  return child.exit_code;
}

}  // namespace

void AddRecordCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RecordOptions>();
  CLI::App* command = app.add_subcommand(
      "record", "Run a CUDA program with gpuroof's low-overhead CUPTI recorder; write a trace");
  command->footer(
      "Examples:\n"
      "  gpuroof record -o run.sqlite -- ./pipeline --frames 2000\n"
      "  gpuroof record --nvtx -o train.sqlite -- python train.py\n"
      "  gpuroof analyze run.sqlite\n"
      "Records kernels, copies and memsets (and NVTX ranges with --nvtx) from the GPU side only,\n"
      "without API tracing. Needs an NVIDIA GPU and driver; cannot run under nsys or ncu.\n"
      "The exit code is the command's. See docs/cli.md.");
  command->add_option("-o,--output", options->output, "Trace file to write (nsys-schema SQLite)")
      ->capture_default_str();
  command->add_flag("--nvtx", options->nvtx, "Also record NVTX ranges and marks");
  command->add_option("command", options->command, "The program and its arguments, after --");
  command->callback([options, &exit_code]() { exit_code = RunRecord(*options); });
}

}  // namespace gpuroof
