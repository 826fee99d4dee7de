#include "ranges_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/ranges_report.h"

#include "exit_codes.h"
#include "output_options.h"
#include "trace_loading.h"

namespace gpuroof {

int RunRanges(const RangesOptions& options) {
  std::vector<std::unique_ptr<Trace>> traces;
  RangesReport report;
  report.name = options.name;
  report.tool_version = GPUROOF_VERSION;
  RangeSummaryOptions summary_options;
  summary_options.name = options.name;
  // Full detail: attribution needs the API calls and the ops' correlation ids.
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;
  traces = LoadEachTrace(options.traces, read_options, options.output,
                         [&](const Trace& trace, const std::string& path) {
                           RangesOfTrace ranges;
                           ranges.trace = &trace;
                           ranges.summary = SummarizeRanges(trace, summary_options);
                           PrintNote(options.output, path, "ranges", ranges.summary.method_note);
                           report.traces.push_back(std::move(ranges));
                         });
  RenderAndEmit(options.output, report, RenderRangesText, RenderRangesCsv, RenderRangesJson);
  return kExitOk;
}

void AddRangesCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RangesOptions>();
  CLI::App* command = app.add_subcommand(
      "ranges", "Per NVTX range: CPU durations and the GPU work each instance launched");
  command->footer(
      "Examples:\n"
      "  gpuroof ranges run.sqlite\n"
      "  gpuroof ranges run.sqlite --name epoch            # one row per epoch\n"
      "  gpuroof ranges run.sqlite --format csv -o ranges.csv\n"
      "GPU work belongs to a range instance when the CUDA call that launched it was made on the\n"
      "range's thread while the range was open (as nsys's GPU projection does); without API calls\n"
      "in the trace, GPU work running during the range counts instead, and a note says so.\n"
      "Every range instance is its own window, so there is no --window here.\n"
      "Every figure is defined in docs/metrics.md.");
  command->add_option("traces", options->traces, "Trace files (nsys .sqlite or .nsys-rep)")
      ->required();
  command->add_option("--name", options->name,
                      "Only this range (\"Domain:name\" or name), one row per instance");
  command->add_option("--threads", options->threads, "Reader threads (0 = automatic)")
      ->check(CLI::Range(0, 64));
  AddOutputOptions(*command, options->output, {"table", "csv", "json"});
  command->callback([options, &exit_code]() { exit_code = RunRanges(*options); });
}

}  // namespace gpuroof
