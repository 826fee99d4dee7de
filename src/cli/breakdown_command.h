#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "gpuroof/readers/reader_registry.h"

#include "command_help.h"
#include "exit_codes.h"
#include "output_options.h"
#include "trace_loading.h"

namespace gpuroof {

// The body the breakdown commands share (kernels, copies, copies --contention, gaps, ranges, api,
// launches, findings): read each trace, turn it into the report's entry with
// `analyse(trace, path)`, then render the report in the chosen --format. The traces live until the
// report is rendered, since the entries point into them.
template <typename Report, typename Analyse>
int RunBreakdown(const BreakdownOptions& options, const ReadOptions& read_options, Report& report,
                 Analyse analyse, const ReportFormats<Report>& formats) {
  auto traces = LoadEachTrace(options.traces, read_options, options.output,
                              [&](const Trace& trace, const std::string& path) {
                                report.traces.push_back(analyse(trace, path));
                              });
  RenderAndEmit(options.output, report, formats);
  return kExitOk;
}

// RunBreakdown for the reports whose entry is a trace and one result per device in a window
// (kernels, copies, copies --contention, launches): `compute(trace)` gives the devices; their
// window notes are printed.
template <typename Report, typename Compute>
int RunWindowedBreakdown(const BreakdownOptions& options, const ReadOptions& read_options,
                         Report& report, Compute compute, const ReportFormats<Report>& formats) {
  using Entry = typename decltype(report.traces)::value_type;
  return RunBreakdown(
      options, read_options, report,
      [&](const Trace& trace, const std::string& path) {
        Entry entry{&trace, compute(trace)};
        PrintWindowNotes(options.output, path, entry.devices);
        return entry;
      },
      formats);
}

// The formats every breakdown command offers.
inline const std::vector<std::string> kBreakdownFormats = {"table", "csv", "json", "markdown"};

// Registers the breakdown command `name`: its trace files, then what `add_own(command, options)`
// adds, then --threads and the output options; `run(options)` runs when the command is chosen,
// its exit code kept in `exit_code`. `Options` derives from BreakdownOptions.
template <typename Options, typename AddOwn>
void AddBreakdownCommand(CLI::App& app, const char* name, int& exit_code,
                         int (*run)(const Options&), AddOwn add_own) {
  auto options = std::make_shared<Options>();
  CLI::App* command = AddCommand(app, name);
  AddTracesArgument(*command, options->traces);
  add_own(*command, *options);
  AddThreadsOption(*command, options->threads);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code, run]() { exit_code = run(*options); });
}

}  // namespace gpuroof
