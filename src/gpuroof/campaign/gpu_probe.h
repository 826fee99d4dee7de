#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuroof/process/process_runner.h"

namespace gpuroof {

struct GpuInfo {
  std::string name;
  std::optional<double> utilisation_pct;  // busy share of the last sample period (NVML's "gpu")
};

// What the machine says about its GPUs right now.
struct GpuStatus {
  std::string source;  // "nvml", "nvidia-smi" or "none"
  std::vector<GpuInfo> gpus;
  std::string driver;
  std::string note;  // why there is no GPU information, when source is "none"

  // The busiest GPU's utilisation; unset when no GPU reported one.
  std::optional<double> MaxUtilisationPct() const;
};

// Asks NVML (libnvidia-ml.so.1, loaded with dlopen at run time so gpuroof builds and runs without
// CUDA; $GPUROOF_NVML_LIBRARY names another file), falling back to `nvidia-smi` through
// `runner`. Never throws: a machine without a GPU gets source "none" and a note.
GpuStatus ProbeGpus(ProcessRunner& runner);

// Parses `nvidia-smi --query-gpu=name,driver_version,utilization.gpu
// --format=csv,noheader,nounits` output. Visible for testing.
GpuStatus ParseNvidiaSmi(const std::string& out);

}  // namespace gpuroof
