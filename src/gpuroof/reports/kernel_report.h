#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// One summarised trace: the trace (for its source, metadata and diagnostics) and its devices.
struct SummarizedTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceKernels> devices;
};

struct KernelReport {
  std::vector<SummarizedTrace> traces;
  std::string window_text;  // the --window value as given
  KernelKey key = KernelKey::kName;
  int64_t top = 0;  // 0 = all
  std::string tool_version;
};

// Human table per device: one row per key, durations rescaled per column, shares in %.
std::string RenderKernelText(const KernelReport& report);
// The same tables in Markdown (for PR comments and notebooks).
std::string RenderKernelMarkdown(const KernelReport& report);
// One row per (trace, device, key), durations in ns at full precision (a `trace` column leads
// when there is more than one trace). Columns in docs/cli.md, "gpuroof kernels".
std::string RenderKernelCsv(const KernelReport& report);
// Schema "gpuroof.kernels/1" (docs/cli.md, "gpuroof kernels"): inputs, windows, unrounded
// numbers.
std::string RenderKernelJson(const KernelReport& report);

}  // namespace gpuroof
