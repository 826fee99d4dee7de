// A stand-in for libcuda.so.1 with the two calls `gpuroof record` probes, so its paths past the
// driver check are tested on machines without a GPU. GPUROOF_FAKE_CUDA_INIT sets cuInit's
// result (default 0), GPUROOF_FAKE_CUDA_DEVICES the device count (default 1).
#include <cstdlib>

extern "C" __attribute__((visibility("default"))) int cuInit(unsigned int) {
  const char* result = std::getenv("GPUROOF_FAKE_CUDA_INIT");
  return result != nullptr ? std::atoi(result) : 0;
}

extern "C" __attribute__((visibility("default"))) int cuDeviceGetCount(int* count) {
  const char* devices = std::getenv("GPUROOF_FAKE_CUDA_DEVICES");
  *count = devices != nullptr ? std::atoi(devices) : 1;
  return 0;
}
