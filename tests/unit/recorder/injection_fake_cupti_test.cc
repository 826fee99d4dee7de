// The real libgpuroof_recorder.so over a fake libcupti.so.13 (fake_cupti.cc, found first through
// LD_LIBRARY_PATH): a child process starts the recorder as the driver would and drives CUPTI's
// side, then exits; the parent checks the status file and the trace its exit handler wrote.
//   * optional activity kinds CUPTI refuses (MEMCPY2, MARKER) leave the recorder recording the
//     rest, and the status names them;
//   * dropped records: the per-buffer counts plus what only the global queue holds after the last
//     buffer (read again at exit), and no failed buffer requests added to them;
//   * the writer thread blocks every signal the program might get;
//   * on cudaDeviceReset the recorder flushes and waits for the writer before returning, so a
//     kernel name freed right after the reset (its module torn down) was already copied.
// Exit 0: passed, 1: failed.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <cupti.h>
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

int Fail(const std::string& what) {
  std::fprintf(stderr, "injection fake-CUPTI test FAILED: %s\n", what.c_str());
  return 1;
}

std::string Contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

CUpti_ActivityKernel10 Kernel(uint64_t start, uint64_t end, const char* name) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.name = name;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = k.blockY = k.blockZ = 1;
  return k;
}

// The SigBlk mask of every thread of this process but the calling one.
std::vector<unsigned long long> OtherThreadMasks() {
  std::vector<unsigned long long> masks;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return masks;
  while (dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == gettid()) continue;
    std::istringstream status(Contents(fs::path("/proc/self/task") / entry->d_name / "status"));
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("SigBlk:", 0) == 0) masks.push_back(std::stoull(line.substr(7), nullptr, 16));
    }
  }
  closedir(tasks);
  return masks;
}

bool Blocked(unsigned long long mask, int signal) {
  return (mask >> (signal - 1)) & 1;
}

// The child: everything a CUDA program and CUPTI would do, then exit() runs the recorder's Stop.
[[noreturn]] void RecordInChild(const fs::path& dir) {
  setenv("GPUROOF_RECORD_OUTPUT", (dir / "%p.sqlite").c_str(), 1);
  setenv("GPUROOF_RECORD_NVTX", "1", 1);
  const std::string refused = std::to_string(CUPTI_ACTIVITY_KIND_MEMCPY2) + "," +
                              std::to_string(CUPTI_ACTIVITY_KIND_MARKER);
  setenv("GPUROOF_FAKE_CUPTI_NOT_COMPATIBLE", refused.c_str(), 1);
  // $GPUROOF_RECORDER_LIBRARY: another build of the library (to see this test fail without a fix).
  const char* library = std::getenv("GPUROOF_RECORDER_LIBRARY");
  void* recorder =
      dlopen(library != nullptr ? library : GPUROOF_RECORDER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  void* cupti = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (recorder == nullptr || cupti == nullptr) _exit(10);
  auto complete = reinterpret_cast<void (*)(const CUpti_ActivityKernel10*, size_t, size_t)>(
      dlsym(cupti, "fakeCuptiCompleteBuffer"));
  auto on_flush = reinterpret_cast<void (*)(const CUpti_ActivityKernel10*, size_t)>(
      dlsym(cupti, "fakeCuptiOnNextFlush"));
  auto drop_late = reinterpret_cast<void (*)(size_t)>(dlsym(cupti, "fakeCuptiDropLate"));
  auto reset = reinterpret_cast<void (*)()>(dlsym(cupti, "fakeCuptiDeviceReset"));
  auto init = reinterpret_cast<int (*)()>(dlsym(recorder, "InitializeInjection"));
  if (complete == nullptr || init == nullptr) _exit(11);  // not the fake: a real libcupti
  // The program's threads take SIGINT, SIGTERM and SIGUSR1; the writer must not.
  sigset_t none;
  sigemptyset(&none);
  pthread_sigmask(SIG_SETMASK, &none, nullptr);
  if (init() != 1) _exit(12);

  const uint64_t t0 = 1'700'000'000'000'000'000;
  const CUpti_ActivityKernel10 first[] = {Kernel(t0, t0 + 100, "_Z5firstv"),
                                          Kernel(t0 + 200, t0 + 300, "_Z5firstv"),
                                          Kernel(t0 + 400, 0, "_Z5firstv")};  // no end
  complete(first, 3, 3);  // CUPTI dropped 3 records on that context

  // A kernel whose name lives in its module: freed as soon as cudaDeviceReset tears it down.
  char* module_name = strdup("_Z12before_resetv");
  const CUpti_ActivityKernel10 in_flight[] = {Kernel(t0 + 500, t0 + 600, module_name)};
  on_flush(in_flight, 1);
  reset();
  std::memset(module_name, 'X', std::strlen(module_name));  // the module is gone
  free(module_name);
  // After the reset, which waits for the writer to drain, the writer has run past its start
  // (pthread_create blocks every signal until the new thread sets its own mask).
  const std::vector<unsigned long long> masks = OtherThreadMasks();
  if (masks.size() != 1) _exit(13);  // the writer is the recorder's only thread
  for (int signal : {SIGINT, SIGTERM, SIGUSR1, SIGCHLD}) {
    if (!Blocked(masks[0], signal)) _exit(14);
  }

  drop_late(4);  // after the last completed buffer: only the global queue counts them
  std::exit(0);  // runs the recorder's exit handler
}

}  // namespace

int main() {
  const fs::path dir =
      fs::temp_directory_path() / ("gpuroof_fake_cupti_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const pid_t child = fork();
  if (child < 0) return Fail("fork failed");
  if (child == 0) RecordInChild(dir);
  int wait_status = 0;
  waitpid(child, &wait_status, 0);
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
    return Fail(
        "the recording child failed with status " +
        std::to_string(WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1) +
        " (10: no recorder or fake CUPTI, 11: not the fake, 12: InitializeInjection, 13: no "
        "writer thread (the recorder went inert), 14: the writer takes signals)");
  }
  const fs::path trace = dir / (std::to_string(child) + ".sqlite");
  const std::string status = Contents(trace.string() + ".status");
  for (const char* line :
       {"records 3\n", "dropped 7\n", "failed_buffer_requests 0\n", "zero_timestamps 1\n",
        "unrecorded MEMCPY2: CUPTI_ERROR_NOT_COMPATIBLE\n",
        "unrecorded MARKER (NVTX): CUPTI_ERROR_NOT_COMPATIBLE\n"}) {
    if (status.find(line) == std::string::npos) {
      return Fail("status lacks '" + std::string(line, std::strlen(line) - 1) + "': " + status);
    }
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(trace.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    return Fail("cannot open the trace " + trace.string());
  }
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s "
                     "ON k.mangledName = s.id WHERE s.value = '_Z12before_resetv'",
                     -1, &stmt, nullptr);
  const int found =
      stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : -1;
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  if (found != 1) {
    return Fail("the kernel flushed at cudaDeviceReset was not written under its name (" +
                std::to_string(found) + " rows)");
  }
  fs::remove_all(dir);
  std::printf("passed: %s", status.c_str());
  return 0;
}
