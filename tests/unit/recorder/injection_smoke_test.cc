// The real libgpuroof_recorder.so on a machine without a driver: loaded with dlopen and started
// as the CUDA driver would start it, it must return 1 (never stop the program), go inert because
// CUPTI cannot subscribe, leave no trace or temporary file, say why in its status file, and let
// the process exit cleanly. Exit 0: passed, 1: failed, 77: skipped (a driver is present, so
// CUPTI would really record).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <dlfcn.h>
#include <unistd.h>

namespace fs = std::filesystem;

int Fail(const std::string& what) {
  std::fprintf(stderr, "injection smoke test FAILED: %s\n", what.c_str());
  return 1;
}

int main() {
  if (void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
    dlclose(driver);
    std::printf("skipped: libcuda.so.1 loads here, so the recorder would really record\n");
    return 77;
  }
  const fs::path dir = fs::temp_directory_path() / ("gpuroof_inject_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  setenv("GPUROOF_RECORD_OUTPUT", (dir / "%p.sqlite").c_str(), 1);
  void* recorder = dlopen(GPUROOF_RECORDER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (recorder == nullptr) return Fail(std::string("dlopen: ") + dlerror());
  auto init = reinterpret_cast<int (*)()>(dlsym(recorder, "InitializeInjection"));
  if (init == nullptr) return Fail("InitializeInjection is not exported");
  if (dlsym(recorder, "InitializeInjectionNvtx2") == nullptr) {
    return Fail("InitializeInjectionNvtx2 is not exported");
  }
  if (dlsym(recorder, "_ZN7gpuroof8recorder14NsysMemoryKindEi") != nullptr) {
    return Fail("internal symbols are exported");
  }
  if (init() != 1 || init() != 1) return Fail("InitializeInjection did not return 1");
  const fs::path trace = dir / (std::to_string(getpid()) + ".sqlite");
  std::ifstream status_file(trace.string() + ".status");
  std::stringstream status;
  status << status_file.rdbuf();
  if (status.str().find("error cannot subscribe to CUPTI") != 0) {
    return Fail("status file says '" + status.str() + "'");
  }
  if (fs::exists(trace) || fs::exists(trace.string() + ".tmp")) return Fail("a trace was left");
  fs::remove_all(dir);
  std::printf("passed: inert without a driver (%s)", status.str().c_str());
  return 0;  // the recorder's exit handler must not run or crash (it never started)
}
