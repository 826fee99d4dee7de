#pragma once

#include <string>
#include <vector>

#include "gpuroof/readers/reader_registry.h"

#include "exit_codes.h"
#include "output_options.h"
#include "trace_loading.h"

namespace gpuroof {

// The body the breakdown commands share (kernels, copies, copies --contention, gaps, ranges):
// read each trace, turn it into the report's entry with `analyse(trace, path)`, then render the
// report in the chosen --format. The traces live until the report is rendered, since the
// entries point into them.
template <typename Report, typename Analyse>
int RunBreakdown(const std::vector<std::string>& paths, const ReadOptions& read_options,
                 const OutputOptions& output, Report& report, Analyse analyse,
                 const ReportFormats<Report>& formats) {
  auto traces =
      LoadEachTrace(paths, read_options, output, [&](const Trace& trace, const std::string& path) {
        report.traces.push_back(analyse(trace, path));
      });
  RenderAndEmit(output, report, formats);
  return kExitOk;
}

// RunBreakdown for the reports whose entry is a trace and one result per device in a window
// (kernels, copies, copies --contention): `compute(trace)` gives the devices; their window notes
// are printed.
template <typename Report, typename Compute>
int RunWindowedBreakdown(const std::vector<std::string>& paths, const ReadOptions& read_options,
                         const OutputOptions& output, Report& report, Compute compute,
                         const ReportFormats<Report>& formats) {
  using Entry = typename decltype(report.traces)::value_type;
  return RunBreakdown(
      paths, read_options, output, report,
      [&](const Trace& trace, const std::string& path) {
        Entry entry{&trace, compute(trace)};
        PrintWindowNotes(output, path, entry.devices);
        return entry;
      },
      formats);
}

// The formats every breakdown command offers.
inline const std::vector<std::string> kBreakdownFormats = {"table", "csv", "json", "markdown"};

}  // namespace gpuroof
