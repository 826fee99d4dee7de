#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/statistics.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// What makes two kernel launches "the same kernel" in the summary (docs/metrics.md, "Kernel
// summary").
enum class KernelKey {
  kName,       // short name, e.g. "Fan2"
  kDemangled,  // demangled name; the short name when the trace has none
  kLaunch,     // short name + grid + block, e.g. "Fan2 <<<(1024,1,1),(4,1,1)>>>"
};

// Parses "name", "demangled" or "launch". Throws InputError (source "--key") otherwise.
KernelKey ParseKernelKey(std::string_view text);
std::string_view KernelKeyName(KernelKey key);

// "NAME <<<(gx,gy,gz),(bx,by,bz)>>>", the key of a launch shape.
std::string LaunchKey(std::string_view name, const std::array<uint32_t, 3>& grid,
                      const std::array<uint32_t, 3>& block);

// The short name of a kernel (docs/metrics.md, "Kernel summary"): ShortKernelName() of its
// demangled name, or of its name when the trace has none (a Kineto kernel's name is its
// demangled signature). One rule for nsys and Kineto traces and for every command (kernels,
// launches, gaps, findings, compare --kernel-key name); on nsys it is the export's shortName.
std::string KernelShortName(const Trace& trace, const OpSignature& signature);

// The key of a kernel with `signature` under `key`: its short name, demangled name (the short
// name when the trace has none) or launch key ("NAME <<<shape not in trace>>>" when the trace
// gives no grid and block: a launch has at least one block, so all zeros means unknown).
std::string KernelKeyText(const Trace& trace, const OpSignature& signature, KernelKey key);

// Throws InputError naming the trace when it has no kernel (compute or collective), saying when
// it has whole-graph launches only (CUDA graphs traced at graph level).
void RequireKernels(const Trace& trace);
// Throws InputError naming the trace: no kernel counts in the `policy` window of any device.
[[noreturn]] void ThrowNoKernelInWindow(const Trace& trace, std::string_view policy);

// One kernel key on one device: statistics of the clipped durations (ns) of its launches that
// count in the window.
struct KernelRow {
  Engine engine = Engine::kKernel;  // kComm for collective kernels (IsCollectiveKernelName)
  std::string key;
  std::string name;  // short name (of the first launch seen with this key)
  // Launch shape; set only for KernelKey::kLaunch.
  std::optional<std::array<uint32_t, 3>> grid;
  std::optional<std::array<uint32_t, 3>> block;
  DurationStats stats;
  // Shares of the device's sum and busy time of the row's own engine (compute or comm); unset
  // when that is 0.
  std::optional<double> sum_share_pct;   // 100 * total / engine sum
  std::optional<double> busy_share_pct;  // 100 * total / engine busy
};

// The kernels of one device, sorted by total desc, then instances desc, then key.
struct DeviceKernels {
  int32_t device_id = 0;
  std::string device_name;
  Window window;
  int64_t kernel_ops = 0;      // compute kernel launches that count in the window
  int64_t kernel_sum_ns = 0;   // sum of their clipped durations
  int64_t kernel_busy_ns = 0;  // length of the union of their clipped intervals
  int64_t comm_ops = 0;        // the same for collective (comm) kernels
  int64_t comm_sum_ns = 0;
  int64_t comm_busy_ns = 0;
  // Whole-graph launches (engine "graph") that count in the window: their kernels were not traced
  // one by one, so no row lists them; the report says how many and how long instead.
  int64_t graph_ops = 0;
  int64_t graph_sum_ns = 0;
  int64_t graph_busy_ns = 0;
  int64_t key_count = 0;        // distinct keys before --top
  std::vector<KernelRow> rows;  // at most `top` rows when top > 0
  // What --top left out.
  int64_t omitted_keys = 0;
  int64_t omitted_ops = 0;
  int64_t omitted_total_ns = 0;
};

struct KernelSummaryOptions {
  WindowSpec window;
  KernelKey key = KernelKey::kName;
  int64_t top = 0;  // 0 = every key
  // The engine load of `window`, when the caller has it already: one pass over the trace saved.
  const std::vector<DeviceLoad>* engine_load = nullptr;
};

// Per-device kernel summary of `trace`, devices in ascending id order; a device with no kernel is
// left out, one whose kernels all lie outside the window is kept without rows (its window note
// counts them). Windows, the rule for which ops count and the clipping are
// those of ComputeEngineLoad() (docs/metrics.md, "Window").
// Throws InputError naming the trace when it has no kernels, when no kernel counts in the window
// of any device, or when the window cannot be resolved (as ComputeEngineLoad()).
std::vector<DeviceKernels> ComputeKernelSummary(const Trace& trace,
                                                const KernelSummaryOptions& options);

}  // namespace gpuroof
