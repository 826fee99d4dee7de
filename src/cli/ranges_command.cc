#include "ranges_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/ranges_report.h"

#include "breakdown_command.h"
#include "unit_options.h"

namespace gpuroof {

std::vector<std::pair<std::string, std::string>> RangesNotes(const RangeSummary& summary) {
  std::vector<std::pair<std::string, std::string>> notes;
  if (!summary.method_note.empty()) notes.emplace_back("ranges", summary.method_note);
  for (const RangeGroup& group : summary.groups) {
    if (group.other_thread_ops == 0) continue;
    notes.emplace_back("range '" + group.name + "'", OtherThreadNote(group.other_thread_ops));
  }
  return notes;
}

int RunRanges(const RangesOptions& options) {
  RangesReport report;
  report.name = options.name;
  report.tool_version = GPUROOF_VERSION;
  RangeSummaryOptions summary_options;
  summary_options.name = options.name;
  summary_options.scope = ParseAttribute(options.attribute);
  // Full detail: attribution needs the API calls and the ops' correlation ids.
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;
  return RunBreakdown(options.traces, read_options, options.output, report,
                      [&](const Trace& trace, const std::string& path) {
                        RangesOfTrace ranges{&trace, SummarizeRanges(trace, summary_options)};
                        for (const auto& [where, note] : RangesNotes(ranges.summary))
                          PrintNote(options.output, path, where, note);
                        return ranges;
                      },
                      {RenderRangesText, RenderRangesCsv, RenderRangesJson, RenderRangesMarkdown});
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
      "GPU work belongs to a range instance when the CUDA call that launched it was made while\n"
      "the range was open: by any thread of its process for iteration ranges (the range --name\n"
      "names, and numbered families such as ProfilerStep#*), on the range's own thread for the\n"
      "others (nsys's GPU projection); --attribute thread|process sets it for all. Without API\n"
      "calls in the trace, GPU work running during the range counts instead, and a note says so.\n"
      "Every range instance is its own window, so there is no --window here.\n"
      "Every figure is defined in docs/metrics.md.");
  command->add_option("traces", options->traces, kTraceFilesHelp)->required();
  command->add_option("--name", options->name,
                      "Only this range (\"Domain:name\", name, NAME@N or NAME@*), one row per "
                      "instance");
  AddAttributeOption(*command, options->attribute);
  command->add_option("--threads", options->threads, "Reader threads (0 = automatic)")
      ->check(CLI::Range(0, 64));
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunRanges(*options); });
}

}  // namespace gpuroof
