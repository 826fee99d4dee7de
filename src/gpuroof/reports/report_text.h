#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/format/report_document.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/reports/devices_of_trace.h"

namespace gpuroof {

// Lines every text report shares, so a device or a window reads the same in all of them.

// "device 0 (NVIDIA A100)", or "device 0" when the trace does not name it.
std::string DeviceTitle(int32_t device_id, std::string_view device_name);

// A time on the trace clock as text reports print it: relative to the trace's first GPU op
// (`origin_ns`, Trace::FirstGpuOpNs), so epoch-based clocks (Kineto) read as "1.234 s", not
// "1683564901.554 s". JSON and CSV keep the absolute ns.
std::string RelativeTime(int64_t ns, int64_t origin_ns);

// "window processing: 12.000 ms to 1.234 s after the first GPU op, 1.222 s long".
std::string WindowLine(const Window& window, int64_t origin_ns);

// A section for one device of a trace: its heading ("PATH · device 0 (NAME)"), and, given a
// window, the window line and its note.
ReportSection DeviceSection(const Trace& trace, int32_t device_id, std::string_view device_name,
                            const Window* window);

// The document of a per-device breakdown: `columns` for the CSV header, one section per
// (trace, device), started by DeviceSection() (with the window lines of WindowOfDevice()) and
// completed by `complete(section, trace, device)`. `Report` has `traces`, each with `trace` and
// `devices`.
template <typename Report, typename CompleteSection>
ReportDocument PerDeviceDocument(const Report& report, std::vector<TableColumn> columns,
                                 CompleteSection complete) {
  ReportDocument document;
  document.columns = std::move(columns);
  document.trace_count = report.traces.size();
  for (const auto& traced : report.traces) {
    for (const auto& device : traced.devices) {
      ReportSection section = DeviceSection(*traced.trace, device.device_id, device.device_name,
                                            WindowOfDevice(device));
      complete(section, *traced.trace, device);
      document.sections.push_back(std::move(section));
    }
  }
  return document;
}

// The document of a per-trace breakdown: `columns` for the CSV header (no device column), one
// section per trace, started with the trace's source and completed by `complete(section,
// traced)`. `Report` has `traces`, each with a `trace` pointer.
template <typename Report, typename CompleteSection>
ReportDocument PerTraceDocument(const Report& report, std::vector<TableColumn> columns,
                                CompleteSection complete) {
  ReportDocument document;
  document.columns = std::move(columns);
  document.per_device = false;
  document.trace_count = report.traces.size();
  for (const auto& traced : report.traces) {
    ReportSection section;
    section.trace = traced.trace->source;
    complete(section, traced);
    document.sections.push_back(std::move(section));
  }
  return document;
}

// "1 launch" / "3 launches": `count` and the word, plural as English writes it.
std::string CountOf(int64_t count, std::string_view one, std::string_view many);

// What an aggregate GB/s of `what` (an engine, a copy class) leaves out (ByteRate): "H2D GB/s
// leaves out 1 copy of zero duration (1.00 MB): its bytes moved in no measured time"; "" when
// every copy took time; memsets (`engine`) are called memsets. Said wherever the rate is printed
// (docs/metrics.md, "Bandwidth").
std::string ZeroDurationRateNote(std::string_view what, Engine engine, const ByteRate& rate);

}  // namespace gpuroof
