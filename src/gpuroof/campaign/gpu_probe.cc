#include "gpuroof/campaign/gpu_probe.h"

#include <algorithm>
#include <cstdlib>

#include <dlfcn.h>

namespace gpuroof {

namespace {

// The few NVML entry points used, declared here because nvml.h ships only with CUDA.
using NvmlReturn = int;
using NvmlDevice = void*;
struct NvmlUtilization {
  unsigned int gpu;
  unsigned int memory;
};
constexpr NvmlReturn kNvmlSuccess = 0;

std::string Trim(std::string text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  size_t last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

template <typename Function>
Function Symbol(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

std::optional<GpuStatus> ProbeNvml(std::string& why_not) {
  const char* override_path = std::getenv("GPUROOF_NVML_LIBRARY");
  const char* path =
      override_path != nullptr && *override_path != '\0' ? override_path : "libnvidia-ml.so.1";
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    why_not = std::string("NVML not loadable (") + path + ")";
    return std::nullopt;
  }
  auto init = Symbol<NvmlReturn (*)()>(library, "nvmlInit_v2");
  auto shutdown = Symbol<NvmlReturn (*)()>(library, "nvmlShutdown");
  auto count = Symbol<NvmlReturn (*)(unsigned int*)>(library, "nvmlDeviceGetCount_v2");
  auto handle =
      Symbol<NvmlReturn (*)(unsigned int, NvmlDevice*)>(library, "nvmlDeviceGetHandleByIndex_v2");
  auto name = Symbol<NvmlReturn (*)(NvmlDevice, char*, unsigned int)>(library, "nvmlDeviceGetName");
  auto utilisation = Symbol<NvmlReturn (*)(NvmlDevice, NvmlUtilization*)>(
      library, "nvmlDeviceGetUtilizationRates");
  auto driver = Symbol<NvmlReturn (*)(char*, unsigned int)>(library, "nvmlSystemGetDriverVersion");
  std::optional<GpuStatus> status;
  unsigned int devices = 0;
  if (init == nullptr || shutdown == nullptr || count == nullptr || handle == nullptr ||
      name == nullptr || utilisation == nullptr || driver == nullptr) {
    why_not = "NVML lacks the expected functions";
  } else if (init() != kNvmlSuccess) {
    why_not = "NVML did not initialise (no driver?)";
  } else {
    if (count(&devices) == kNvmlSuccess) {
      status = GpuStatus{};
      status->source = "nvml";
      char text[256] = {};
      if (driver(text, sizeof text) == kNvmlSuccess) status->driver = text;
      for (unsigned int i = 0; i < devices; ++i) {
        NvmlDevice device = nullptr;
        if (handle(i, &device) != kNvmlSuccess) continue;
        GpuInfo info;
        char device_name[256] = {};
        if (name(device, device_name, sizeof device_name) == kNvmlSuccess) info.name = device_name;
        NvmlUtilization rates{};
        if (utilisation(device, &rates) == kNvmlSuccess) info.utilisation_pct = rates.gpu;
        status->gpus.push_back(info);
      }
    } else {
      why_not = "NVML could not count devices";
    }
    shutdown();
  }
  dlclose(library);
  return status;
}

}  // namespace

std::optional<double> GpuStatus::MaxUtilisationPct() const {
  std::optional<double> busiest;
  for (const GpuInfo& gpu : gpus) {
    if (gpu.utilisation_pct && (!busiest || *gpu.utilisation_pct > *busiest)) {
      busiest = gpu.utilisation_pct;
    }
  }
  return busiest;
}

GpuStatus ParseNvidiaSmi(const std::string& out) {
  GpuStatus status;
  status.source = "nvidia-smi";
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    start = end + 1;
    if (Trim(line).empty()) continue;
    // The name may not contain a comma, but be safe: the last two fields are fixed.
    size_t last = line.rfind(',');
    size_t middle = last == std::string::npos ? std::string::npos : line.rfind(',', last - 1);
    if (middle == std::string::npos) continue;
    GpuInfo info;
    info.name = Trim(line.substr(0, middle));
    status.driver = Trim(line.substr(middle + 1, last - middle - 1));
    std::string value = Trim(line.substr(last + 1));
    char* parse_end = nullptr;
    double pct = std::strtod(value.c_str(), &parse_end);
    if (!value.empty() && parse_end == value.c_str() + value.size()) info.utilisation_pct = pct;
    status.gpus.push_back(info);
  }
  return status;
}

GpuStatus ProbeGpus(ProcessRunner& runner) {
  std::string why_not_nvml;
  if (std::optional<GpuStatus> nvml = ProbeNvml(why_not_nvml)) return *nvml;
  ProcessResult smi = runner.Run({{"nvidia-smi", "--query-gpu=name,driver_version,utilization.gpu",
                                   "--format=csv,noheader,nounits"},
                                  {},
                                  {}});
  if (smi.exit_code == 0) {
    GpuStatus status = ParseNvidiaSmi(smi.out);
    if (!status.gpus.empty()) return status;
  }
  GpuStatus none;
  none.source = "none";
  none.note =
      why_not_nvml + "; " +
      (smi.exit_code == 127 ? "nvidia-smi not found"
       : smi.exit_code == 0 ? "nvidia-smi listed no GPU"
                            : "nvidia-smi failed (exit " + std::to_string(smi.exit_code) + ")");
  return none;
}

}  // namespace gpuroof
