#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gpuroof {

// The hardware engines a GPU op occupies. The order is the display order of every report.
// Unified-memory migrations stay separate from application copies: they are driver work the
// application did not ask for, even though they occupy the same copy engines.
enum class Engine : uint8_t {
  kKernel,  // SMs: kernels (compute)
  kComm,    // SMs: collective-communication kernels (NCCL, RCCL; see IsCollectiveKernelName)
  kH2D,     // host-to-device copy engine (also host-to-array)
  kD2H,     // device-to-host copy engine (also array-to-host)
  kD2D,     // device-to-device / array copies within one device
  kP2P,     // peer-to-peer copies between devices
  kH2H,     // host-to-host copies driven by the device
  kMemset,  // memsets
  kUvmH2D,  // unified-memory migration host -> device
  kUvmD2H,  // unified-memory migration device -> host
  kUvmD2D,  // unified-memory migration device -> device
  kGraph,   // whole CUDA graph launches traced at graph level (engine mix unknown)
};

inline constexpr int kEngineCount = 12;

inline constexpr std::array<Engine, kEngineCount> kAllEngines = {
    Engine::kKernel, Engine::kComm,   Engine::kH2D,    Engine::kD2H,
    Engine::kD2D,    Engine::kP2P,    Engine::kH2H,    Engine::kMemset,
    Engine::kUvmH2D, Engine::kUvmD2H, Engine::kUvmD2D, Engine::kGraph};

// Short name used in tables and as the CSV column prefix ("kernel", "H2D", "memset", ...).
std::string_view EngineName(Engine engine);

// Inverse of EngineName(); accepts the names case-insensitively.
std::optional<Engine> EngineFromName(std::string_view name);

// True for the engines whose ops are kernels on the SMs: compute and communication.
inline bool IsKernelEngine(Engine engine) {
  return engine == Engine::kKernel || engine == Engine::kComm;
}

// True for the engines whose ops are compute: kernels and whole-graph launches (a CUDA graph traced
// at graph level runs mostly kernels). Collectives are communication, not compute.
inline bool IsComputeEngine(Engine engine) {
  return engine == Engine::kKernel || engine == Engine::kGraph;
}

// Whether a kernel name is a collective-communication kernel (docs/metrics.md, "Engines"): its
// name, less a leading "void ", starts with "nccl", "rccl" or "msccl" in any case (ncclKernel_*,
// ncclDevKernel_*, rcclKernel..., mscclKernel_...), or the function's own name has a collective
// operation as a word (multimem_all_reduce_kernel, cross_device_reduce_1stage,
// allReduceFusionKernel). The one place that rule lives.
bool IsCollectiveKernelName(std::string_view name);

// Whether `engine` is a UVM migration: the driver's own page moves, on no stream of the program.
inline bool IsUvmEngine(Engine engine) {
  return engine == Engine::kUvmH2D || engine == Engine::kUvmD2H || engine == Engine::kUvmD2D;
}

// True for engines that move bytes (copies and memsets), for which bandwidth is meaningful.
bool EngineMovesBytes(Engine engine);

inline int EngineIndex(Engine engine) {
  return static_cast<int>(engine);
}

}  // namespace gpuroof
