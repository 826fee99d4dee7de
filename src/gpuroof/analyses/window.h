#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/range_attribution.h"
#include "gpuroof/analyses/range_selection.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// Where the per-unit time series of the steady-state window comes from (docs/metrics.md,
// "Steady state"): fixed slices of the processing window, the intervals between consecutive
// launches of a kernel, or the instances of an NVTX range.
struct UnitSeriesSpec {
  enum class Kind { kSlices, kKernelLaunches, kNvtxRanges };
  Kind kind = Kind::kSlices;
  std::string name;  // kKernelLaunches / kNvtxRanges: short or demangled kernel name, range name
  int slices = 50;   // kSlices
  RangeScope scope = RangeScope::kProcess;  // kNvtxRanges: whose launches are an instance's work
};

// How the interval that the figures describe is chosen (docs/metrics.md, "Window").
struct WindowSpec {
  enum class Kind {
    kProcessing,  // first kernel start -> later of last kernel end and last D2H end (per device)
    kAll,         // first GPU op start -> last GPU op end (per device)
    kRange,       // explicit [start, end), ns relative to the trace's first GPU op
    kNvtx,        // the GPU work of NVTX range instances (a work window; see Window::work)
    kSteady,      // the processing window after its warm-up (MSER-5 over steady_units)
  };
  Kind kind = Kind::kProcessing;
  int64_t start_ns = 0;   // kRange
  int64_t end_ns = 0;     // kRange
  std::string nvtx_name;  // kNvtx: the range text after "nvtx:" (see SelectRanges)
  // kNvtx, and the units window of --units-from nvtx: whose launches count (an iteration range:
  // any thread of the process, unless --attribute thread).
  RangeScope nvtx_scope = RangeScope::kProcess;
  std::string text;  // as the user wrote it, for reports
  // kSteady: the unit series, set by the command from --units-from (else fixed slices).
  UnitSeriesSpec steady_units;
};

// Parses "processing", "all", "START:END" (numbers in ns or with a us/ms/s suffix) or
// "nvtx:TEXT" (a range name, NAME@N or NAME@*; resolved against each trace by SelectRanges), or
// "steady". Throws InputError (source "--window") when the text is none of these.
WindowSpec ParseWindowSpec(std::string_view text);

// "12 ns", "1.500 us", "2.000 ms", "1.250 s": a duration for notes and messages.
std::string FormatDurationNs(int64_t ns);

// Parses a duration such as "1500", "1.5us", "2ms", "0.25s" into ns. Throws InputError naming
// `source` when it is not one.
int64_t ParseDurationNs(std::string_view text, std::string_view source);

// The resolved window of one device.
struct Window {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  std::string policy;  // "processing", "all", "range", "nvtx"
  std::string text;    // the spec as written, e.g. "nvtx:epoch@2"
  std::string note;    // set when a fallback was taken, e.g. no kernel -> `all`
  // "nvtx": which range and instance(s) the window is, e.g. "'ProfilerStep#7' (1 instance)".
  std::string resolved;
  // A work window (NVTX ranges attributed through launches): only these ops count, whatever
  // else runs in [start_ns, end_ns), which is their span on the device. Shared by every device's
  // window of one trace. Null: every op in the interval counts.
  std::shared_ptr<const OpSelection> work;
  int64_t length_ns() const { return end_ns - start_ns; }
};

// Whether the op [start_ns, end_ns) counts in `window` (docs/metrics.md, "Which ops count"): it
// overlaps the window for a positive time, or it has zero length and lies inside the closed
// window. Every analysis uses this one rule, so their counts agree.
inline bool OpCountsInWindow(int64_t start_ns, int64_t end_ns, const Window& window) {
  if (start_ns == end_ns) return start_ns >= window.start_ns && start_ns <= window.end_ns;
  return start_ns < window.end_ns && end_ns > window.start_ns;
}

// The same rule for op `row` of `block` (one of trace.blocks), which also honours a work window:
// an op that is not the range's work does not count. Analyses that scan blocks use this one.
inline bool OpCountsInWindow(const Trace& trace, const ActivityBlock& block, size_t row,
                             const Window& window) {
  if (!OpCountsInWindow(block.start_ns[row], block.end_ns[row], window)) return false;
  return window.work == nullptr ||
         window.work->Contains(static_cast<size_t>(&block - trace.blocks.data()), row);
}

// The first and last GPU op times of a device, as the window policies need them.
struct DeviceSpan {
  int32_t device_id = 0;  // whose ops these are (the steady window scans them again)
  int64_t first_start_ns = 0;
  int64_t last_end_ns = 0;
  bool has_ops = false;
  int64_t first_kernel_start_ns = 0;
  int64_t last_kernel_end_ns = 0;
  bool has_kernels = false;
  int64_t last_d2h_end_ns = 0;
  bool has_d2h = false;
};

// The work window of `selection` on one device: the span of the GPU work attributed to its
// instances (`attribution`, from AttributeGpuWork on selection.ranges), counting only that work.
// Ranges attributed by time overlap (GPU-timeline ranges, traces without API calls) give their
// interval instead, with the reason in the note. A device where the ranges launched nothing gets
// their CPU interval and no op, with a note.
Window RangeWorkWindow(const Trace& trace, const RangeSelection& selection,
                       const RangeAttribution& attribution, int32_t device_id);

// Resolves `spec` for one device. `trace_first_start_ns` is the first GPU op of the whole trace
// (the origin of explicit ranges). Throws InputError naming the trace when an NVTX range does
// not exist, or an explicit or NVTX window does not intersect the trace's GPU activity. The
// steady window scans the device's ops once more (ComputeSteadyState) and throws what it throws.
Window ResolveWindow(const Trace& trace, const WindowSpec& spec, const DeviceSpan& device,
                     int64_t trace_first_start_ns, int64_t trace_last_end_ns);

}  // namespace gpuroof
