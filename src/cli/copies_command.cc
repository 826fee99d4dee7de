#include "copies_command.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/copy_contention.h"
#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/contention_report.h"
#include "gpuroof/reports/copy_report.h"

#include "breakdown_command.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct CopiesOptions {
  std::vector<std::string> traces;
  std::string window = "processing";
  int threads = 0;
  bool contention = false;
  std::string attribute;
  OutputOptions output;
};

// --contention: per copy direction, bandwidth with the opposite direction busy versus idle.
int RunContention(const CopiesOptions& options) {
  CopyContentionOptions contention_options;
  contention_options.window = ParseWindowSpec(options.window);
  if (auto scope = ParseAttribute(options.attribute)) contention_options.window.nvtx_scope = *scope;
  ContentionReport report;
  report.window_text = options.window;
  report.tool_version = GPUROOF_VERSION;
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kEngineLoad;
  ReadForRanges(contention_options.window, UnitsSpec{}, read_options);
  return RunBreakdown(
      options.traces, read_options, options.output, report,
      [&](const Trace& trace, const std::string& path) {
        ContendedTrace contended{&trace, ComputeCopyContention(trace, contention_options)};
        PrintWindowNotes(options.output, path, contended.devices);
        return contended;
      },
      {RenderContentionText, RenderContentionCsv, RenderContentionJson, RenderContentionMarkdown});
}

int RunCopies(const CopiesOptions& options) {
  CopySummaryOptions summary_options;
  summary_options.window = ParseWindowSpec(options.window);
  if (auto scope = ParseAttribute(options.attribute)) summary_options.window.nvtx_scope = *scope;

  CopyReport report;
  report.window_text = options.window;
  report.tool_version = GPUROOF_VERSION;
  // Copy classes need the memory kinds: the breakdown detail has them.
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kBreakdown;
  read_options.api_calls = false;  // no range attribution here
  ReadForRanges(summary_options.window, UnitsSpec{}, read_options);
  return RunBreakdown(options.traces, read_options, options.output, report,
                      [&](const Trace& trace, const std::string& path) {
                        CopiedTrace copied{&trace, ComputeCopySummary(trace, summary_options)};
                        PrintWindowNotes(options.output, path, copied.devices);
                        return copied;
                      },
                      {RenderCopyText, RenderCopyCsv, RenderCopyJson, RenderCopyMarkdown});
}

}  // namespace

void AddCopiesCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CopiesOptions>();
  CLI::App* command = app.add_subcommand(
      "copies", "Copies and memsets by direction and memory kinds: count, bytes, time, bandwidth");
  command->footer(
      "Examples:\n"
      "  gpuroof copies run.sqlite\n"
      "  gpuroof copies run.sqlite --window all --format csv -o copies.csv\n"
      "  gpuroof copies run.sqlite --contention\n"
      "Copies between pageable host memory and the device are flagged: the driver stages them\n"
      "through a pinned buffer, so they cannot overlap with kernels.\n"
      "Windows: processing (default), all, START:END, nvtx:NAME[@N|@*], steady (as in\n"
      "analyze; steady uses 50 fixed slices here).\n"
      "Every figure is defined in docs/metrics.md.");
  command->add_option("traces", options->traces, kTraceFilesHelp)->required();
  command
      ->add_option("--window", options->window,
                   "processing | all | START:END | nvtx:NAME[@N|@*] | steady")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "Reader threads (0 = automatic)")
      ->check(CLI::Range(0, 64));
  command->add_flag("--contention", options->contention,
                    "Instead: per copy direction, the bandwidth while the opposite direction is "
                    "busy versus idle");
  AddAttributeOption(*command, options->attribute);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() {
    exit_code = options->contention ? RunContention(*options) : RunCopies(*options);
  });
}

}  // namespace gpuroof
