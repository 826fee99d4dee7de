#pragma once

#include <string>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/analyses/roofline.h"
#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/format/table.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

// One analysed trace: the trace (for its source, metadata and diagnostics) and its devices.
struct AnalyzedTrace {
  const Trace* trace = nullptr;
  std::vector<DeviceLoad> devices;
  std::vector<EngineOverlap> overlaps;  // parallel to devices; empty unless --overlap
};

struct AnalyzeReport : WindowedTracesReport<AnalyzedTrace> {
  std::string units_text;  // "--units 2000", "--units-from kernel:k" or ""
  // Parallel to traces, one comparison per device, with --steady-report or --window steady;
  // else empty.
  std::vector<std::vector<SteadyComparison>> steady;
};

// One device's engines on the table model, one row per engine with ops, then "any GPU op": the
// table `analyze` prints and the HTML report shows (docs/formats.md, "Tables").
Table EngineTable(const DeviceLoad& device);

// What the GB/s of the device's engines leave out: one ZeroDurationRateNote per engine with
// copies of zero duration, in engine order (docs/metrics.md, "Bandwidth").
std::vector<std::string> RateNotes(const DeviceLoad& device);

// Human table: per device the engine table, the bottleneck, headroom and the reading line.
std::string RenderAnalyzeText(const AnalyzeReport& report);
// One row per trace and device; the columns of docs/formats.md (a `trace` column leads when
// there is more than one trace). Numbers at full precision.
std::string RenderAnalyzeCsv(const AnalyzeReport& report);
// The same figures long/tidy (--format csv-long): trace, device, stream, window_range, engine,
// metric, value, unit; one row per defined figure, in base units (docs/formats.md).
std::string RenderAnalyzeCsvLong(const AnalyzeReport& report);
// Schema "gpuroof.analyze/1" (docs/formats.md): inputs, window, diagnostics, unrounded numbers.
std::string RenderAnalyzeJson(const AnalyzeReport& report);

// The plain-language sentence that says which engine binds and what that means for the others,
// e.g. "H2D binds at 16.34 us/frame; the kernel (5.64 us/frame) is invisible end to end until it
// grows past that."
std::string ReadingLine(const DeviceLoad& device, const Roofline& roofline);

// A headroom factor as text and the page show it: "2.90x", or "unbounded" when the engine's busy
// time is 0 (docs/metrics.md, "Roofline").
std::string HeadroomFactorText(const Headroom& headroom);

// "frames" for "frame", "batches" for "batch".
std::string PluralUnit(const std::string& unit);

}  // namespace gpuroof
