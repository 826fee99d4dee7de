#pragma once

#include <string>

namespace gpuroof::recorder {

// Whether this machine can run CUDA: libcuda.so.1 ($GPUROOF_CUDA_DRIVER_LIBRARY names another
// file) loads with dlopen, cuInit(0) succeeds and cuDeviceGetCount finds a device. The driver is
// loaded at run time, so gpuroof builds and runs without CUDA. Returns an empty string when
// usable, else one sentence saying what is missing.
std::string ProbeCudaDriver();

}  // namespace gpuroof::recorder
