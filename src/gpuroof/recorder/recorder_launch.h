// The launching side of the recorder: what `gpuroof record` and `gpuroof sweep` (profiler
// "record") do around a command they run under libgpuroof_recorder.so. Find the library, check
// the driver, build the environment that injects it, give it a private folder to write into and
// collect what each CUDA process of the command wrote. Not part of the injection library.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "gpuroof/model/non_copyable.h"
#include "gpuroof/recorder/recorder_env.h"

namespace gpuroof::recorder {

// Names the injection library to use instead of the one found beside gpuroof.
inline constexpr char kLibraryEnv[] = "GPUROOF_RECORDER_LIBRARY";

// $GPUROOF_RECORDER_LIBRARY, else beside the running executable (installed: ../lib), else the
// build tree this gpuroof was built in. Nothing when this gpuroof was built without CUDA.
// Throws InputError when $GPUROOF_RECORDER_LIBRARY names no file.
std::optional<std::filesystem::path> FindRecorderLibrary();

// The library to inject, after checking that it exists and that the CUDA driver can run a
// command (ProbeCudaDriver). Throws InputError(source, what + problem + "; nothing was run"),
// one line, otherwise; `what` prefixes the problem, e.g. "profiler \"record\": ".
std::filesystem::path RequireRecorder(const std::string& source, std::string_view what = "");

// The variables to add to the command's environment: CUDA_INJECTION64_PATH and where to write
// (`output_pattern`, "%p" standing for each process's pid); with `nvtx` also
// NVTX_INJECTION64_PATH and GPUROOF_RECORD_NVTX=1.
std::vector<std::pair<std::string, std::string>> RecorderEnvironment(
    const std::filesystem::path& library, const std::filesystem::path& output_pattern, bool nvtx);

// A private folder ".<output name>.record-<tag>" (tag: ProcessTag(), our pid and host) beside
// `output` for the recorder's files: the final rename then stays on one file system, and a failed
// or interrupted run leaves nothing behind (the destructor removes the folder; one killed by
// SIGKILL leaves it to RemoveStaleRecordScratch). Throws InputError naming `output` when it
// cannot be created.
class RecordScratch : NonCopyable {
 public:
  explicit RecordScratch(const std::filesystem::path& output);
  ~RecordScratch();
  const std::filesystem::path& path() const { return path_; }
  // Where each process writes: "<scratch>/%p.sqlite", absolute, as the command may run elsewhere.
  std::filesystem::path OutputPattern() const;

 private:
  std::filesystem::path path_;
};

// Removes the scratch folders (".<name>.record-<pid>-<host>", holding one or more of the
// recorder's "<pid>.sqlite…" files and nothing else; never a symbolic link) in `folder` that a
// record of this machine left when it was killed: only those whose process is gone
// (DeadProcessOfTag; a pid-only name, which another machine's record may have written, is kept)
// and, when `accept_name` is given, whose <name> it accepts. Each removal is said through `say`.
// Returns the names removed.
std::vector<std::string> RemoveStaleRecordScratch(
    const std::filesystem::path& folder, const std::function<void(const std::string&)>& say,
    const std::function<bool(std::string_view)>& accept_name = {});

// What a process that started recording but never finished left: why its trace is missing.
inline constexpr char kLostTraceText[] =
    "started recording but never finished (killed or _exit): its trace is lost";

struct RecordedTrace {
  pid_t pid = 0;
  std::filesystem::path file;  // empty when the recorder of that process wrote no trace
  RecorderStatus status;       // status.error says why `file` is empty
  // The process started recording (its temporary trace exists) but never wrote a status: it was
  // killed or left through _exit, so its exit handler never ran. The temporary file is removed.
  bool lost = false;
};

// One entry per process whose recorder started: those that wrote a trace first, the one with the
// most records first (the command's own process, then the lowest pid, breaking ties), then those
// that wrote none (failed, or `lost`), by pid.
std::vector<RecordedTrace> CollectRecordedTraces(const std::filesystem::path& scratch,
                                                 pid_t command_pid);

// "run.sqlite" -> "run.<pid>.sqlite", for the traces of the command's other CUDA processes.
std::filesystem::path SiblingTracePath(const std::filesystem::path& output, pid_t pid);

}  // namespace gpuroof::recorder
