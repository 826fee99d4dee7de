#include "gpuroof/recorder/driver_probe.h"

#include <cstdlib>

#include <dlfcn.h>

namespace gpuroof::recorder {

std::string ProbeCudaDriver() {
  const char* custom = std::getenv("GPUROOF_CUDA_DRIVER_LIBRARY");
  const std::string library = custom != nullptr && *custom != '\0' ? custom : "libcuda.so.1";
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return "no NVIDIA driver: " + library + " cannot be loaded (" +
           (why != nullptr ? why : "unknown reason") + ")";
  }
  // CUresult is an int-sized enum; declaring the two calls here avoids needing cuda.h.
  using InitFn = int (*)(unsigned int);
  using CountFn = int (*)(int*);
  auto init = reinterpret_cast<InitFn>(dlsym(handle, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(handle, "cuDeviceGetCount"));
  std::string problem;
  int devices = 0;
  // Once cuInit has run, the driver may have threads and state pointing into the library.
  const bool initialised = init != nullptr && count != nullptr;
  if (!initialised) {
    problem = library + " lacks cuInit or cuDeviceGetCount";
  } else if (int rc = init(0); rc != 0) {
    problem = "cuInit failed with CUDA error " + std::to_string(rc) + " (no usable GPU or driver)";
  } else if (int rc2 = count(&devices); rc2 != 0) {
    problem = "cuDeviceGetCount failed with CUDA error " + std::to_string(rc2);
  } else if (devices <= 0) {
    problem = "the CUDA driver sees no GPU";
  }
  // Unloading the driver under its own threads is undefined: after cuInit the handle stays open
  // for the life of gpuroof.
  if (!initialised) dlclose(handle);
  return problem;
}

}  // namespace gpuroof::recorder
