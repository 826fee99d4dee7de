#include "gpuroof/recorder/recorder_launch.h"

#include <algorithm>
#include <cstdlib>
#include <system_error>
#include <tuple>

#include <fmt/format.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/process/process_runner.h"
#include "gpuroof/recorder/driver_probe.h"

namespace gpuroof::recorder {

namespace fs = std::filesystem;

namespace {
constexpr char kLibraryName[] = "libgpuroof_recorder.so";
}  // namespace

std::optional<fs::path> FindRecorderLibrary() {
  if (const char* custom = std::getenv(kLibraryEnv); custom && *custom) {
    if (!fs::is_regular_file(custom)) {
      throw InputError(custom, fmt::format("{} names no such file", kLibraryEnv));
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

fs::path RequireRecorder(const std::string& source, std::string_view what) {
  std::optional<fs::path> library = FindRecorderLibrary();
  if (!library) {
    throw InputError(
        source, fmt::format("{}this gpuroof was built without the CUDA recorder "
                            "({}; CMake found no CUDA toolkit with CUPTI), so it cannot record",
                            what, kLibraryName));
  }
  if (std::string problem = ProbeCudaDriver(); !problem.empty()) {
    throw InputError(source, fmt::format("{}{}; nothing was run", what, problem));
  }
  return *library;
}

std::vector<std::pair<std::string, std::string>> RecorderEnvironment(const fs::path& library,
                                                                     const fs::path& output_pattern,
                                                                     bool nvtx) {
  std::vector<std::pair<std::string, std::string>> env = {
      {"CUDA_INJECTION64_PATH", library.string()}, {kOutputEnv, output_pattern.string()}};
  if (nvtx) {
    env.emplace_back("NVTX_INJECTION64_PATH", library.string());
    env.emplace_back(kNvtxEnv, "1");
  }
  return env;
}

RecordScratch::RecordScratch(const fs::path& output) {
  const fs::path folder = output.has_parent_path() ? output.parent_path() : fs::path(".");
  path_ = folder / fmt::format(".{}.record-{}", output.filename().string(), ProcessTag());
  std::error_code error;
  fs::remove_all(path_, error);
  if (!fs::create_directory(path_, error) || error) {
    throw InputError(output.string(), fmt::format("cannot create the scratch folder {}: {}",
                                                  path_.string(), error.message()));
  }
}

RecordScratch::~RecordScratch() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

namespace {

// A file the recorder writes into a scratch folder: "<pid>.sqlite" and what follows that name
// (".tmp", ".status", SQLite's "-journal").
bool IsRecorderFileName(const std::string& name) {
  const size_t digits = name.find_first_not_of("0123456789");
  return digits > 0 && digits != std::string::npos && name.compare(digits, 7, ".sqlite") == 0;
}

}  // namespace

std::vector<std::string> RemoveStaleRecordScratch(
    const fs::path& folder, const std::function<void(const std::string&)>& say,
    const std::function<bool(std::string_view)>& accept_name) {
  constexpr std::string_view kMarker = ".record-";
  std::vector<std::string> removed;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    std::error_code type_ec;
    if (!entry.is_directory(type_ec) || entry.is_symlink(type_ec)) continue;
    const std::string name = entry.path().filename().string();
    const size_t marker = name.rfind(kMarker);
    if (name.size() < 2 || name[0] != '.' || marker == std::string::npos || marker < 2) continue;
    const std::string_view tag = std::string_view(name).substr(marker + kMarker.size());
    if (tag.find('-') == std::string_view::npos || DeadProcessOfTag(tag) == 0) continue;
    if (accept_name && !accept_name(std::string_view(name).substr(1, marker - 1))) continue;
    // Only the recorder's files (at least one): a user's folder that merely looks alike, or an
    // empty one, is left alone.
    size_t recorder_files = 0;
    bool other_files = false;
    std::error_code list_ec;
    for (const fs::directory_entry& file : fs::directory_iterator(entry.path(), list_ec)) {
      std::error_code link_ec;
      if (IsRecorderFileName(file.path().filename().string()) && !file.is_symlink(link_ec)) {
        ++recorder_files;
      } else {
        other_files = true;
      }
    }
    if (list_ec || other_files || recorder_files == 0) continue;
    std::error_code remove_ec;
    if (fs::remove_all(entry.path(), remove_ec) != static_cast<std::uintmax_t>(-1) && !remove_ec)
      removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  for (const std::string& name : removed) {
    say(fmt::format("note: removed {} (the scratch folder of a record that was killed)",
                    (folder / name).string()));
  }
  return removed;
}

fs::path RecordScratch::OutputPattern() const {
  return fs::absolute(path_ / "%p.sqlite");
}

std::vector<RecordedTrace> CollectRecordedTraces(const fs::path& scratch, pid_t command_pid) {
  std::vector<RecordedTrace> traces;
  std::vector<fs::path> unfinished;  // "<pid>.sqlite.tmp" files
  for (const fs::directory_entry& entry : fs::directory_iterator(scratch)) {
    const fs::path& path = entry.path();
    if (path.extension() == ".tmp") unfinished.push_back(path);
    if (path.extension() != ".status") continue;
    RecordedTrace trace;
    fs::path trace_file = path;
    trace_file.replace_extension();  // "<pid>.sqlite"
    trace.pid = static_cast<pid_t>(std::atol(trace_file.stem().c_str()));
    trace.status = ReadRecorderStatus(path).value_or(RecorderStatus{});
    if (trace.status.error.empty() && fs::is_regular_file(trace_file)) trace.file = trace_file;
    traces.push_back(std::move(trace));
  }
  // A recorder that started writes "<pid>.sqlite.tmp"; one that finished (or failed) writes the
  // status file. A temporary file without a status is a process that never ran its exit handler
  // (killed by a signal, _exit): its rows were never committed, so the file holds no usable trace.
  for (const fs::path& temp : unfinished) {
    fs::path trace_file = temp;
    trace_file.replace_extension();  // "<pid>.sqlite"
    if (fs::exists(StatusPath(trace_file))) continue;
    RecordedTrace trace;
    trace.pid = static_cast<pid_t>(std::atol(trace_file.stem().c_str()));
    trace.lost = true;
    trace.status.error = kLostTraceText;
    std::error_code ignored;
    fs::remove(temp, ignored);
    traces.push_back(std::move(trace));
  }
  // Written traces first, the most records first (a launcher process that only counted devices
  // must not take the output name from the workers), the command's own process breaking ties.
  auto key = [command_pid](const RecordedTrace& t) {
    return std::make_tuple(t.file.empty(), -t.status.records, t.pid != command_pid, t.pid);
  };
  std::sort(traces.begin(), traces.end(),
            [&key](const RecordedTrace& a, const RecordedTrace& b) { return key(a) < key(b); });
  return traces;
}

fs::path SiblingTracePath(const fs::path& output, pid_t pid) {
  fs::path sibling = output;
  sibling.replace_filename(
      fmt::format("{}.{}{}", output.stem().string(), pid, output.extension().string()));
  return sibling;
}

}  // namespace gpuroof::recorder
