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
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct CopiesOptions : BreakdownOptions {
  std::string window = "processing";
  bool contention = false;
  std::string attribute;
};

int RunCopies(const CopiesOptions& options) {
  const WindowSpec window = ParseWindowOptions(options.window, options.attribute);
  // Either analysis, run the same way: its options over the window, each trace read at `detail`.
  auto run = [&](auto report, ReadDetail detail, auto analysis_options, auto compute,
                 auto formats) {
    report.window_text = options.window;
    report.tool_version = GPUROOF_VERSION;
    analysis_options.window = window;
    return RunWindowedBreakdown(
        options, BreakdownReadOptions(window, detail, options.threads), report,
        [&](const Trace& trace) { return compute(trace, analysis_options); }, formats);
  };
  if (options.contention) {
    // Per copy direction, bandwidth with the opposite direction busy versus idle: busy times
    // only, the engine-load detail.
    return run(ContentionReport{}, ReadDetail::kEngineLoad, CopyContentionOptions{},
               ComputeCopyContention,
               ReportFormats<ContentionReport>{ContentionDocument, RenderContentionJson});
  }
  // Copy classes need the memory kinds: the breakdown detail has them.
  return run(CopyReport{}, ReadDetail::kBreakdown, CopySummaryOptions{}, ComputeCopySummary,
             ReportFormats<CopyReport>{CopyDocument, RenderCopyJson});
}

}  // namespace

void AddCopiesCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(
      app, "copies", exit_code, RunCopies, [](CLI::App& command, CopiesOptions& options) {
        AddWindowOption(command, options.window, WindowKinds::kWithSteady);
        command.add_flag("--contention", options.contention,
                         "Instead: per copy direction, the bandwidth while the opposite direction "
                         "is busy versus idle");
        AddAttributeOption(command, options.attribute);
      });
}

}  // namespace gpuroof
