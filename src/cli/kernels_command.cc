#include "kernels_command.h"

#include <charconv>
#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/kernel_report.h"

#include "breakdown_command.h"
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct KernelsOptions : BreakdownOptions {
  std::string key = "name";
  std::string top;  // empty: every kernel
  std::string window = "processing";
  std::string attribute;
};

int RunKernels(const KernelsOptions& options) {
  // Every flag is checked before any trace is read.
  KernelSummaryOptions summary_options;
  summary_options.window = ParseWindowOptions(options.window, options.attribute);
  summary_options.key = ParseKernelKey(options.key);
  if (!options.top.empty()) summary_options.top = ParsePositiveCount(options.top, "--top");

  KernelReport report;
  report.window_text = options.window;
  report.key = summary_options.key;
  report.top = summary_options.top;
  report.tool_version = GPUROOF_VERSION;
  // Full detail: keys need demangled names and launch shapes.
  return RunWindowedBreakdown(
      options, BreakdownReadOptions(summary_options.window, ReadDetail::kFull, options.threads),
      report,
      // CSV rows are kernels only: what no row lists (whole-graph launches, rows after --top)
      // reaches stderr through the report's left-out notes (RenderAndEmit).
      [&](const Trace& trace) { return ComputeKernelSummary(trace, summary_options); },
      {KernelDocument, RenderKernelJson});
}

}  // namespace

void AddKernelsCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(
      app, "kernels", exit_code, RunKernels, [](CLI::App& command, KernelsOptions& options) {
        AddKernelKeyOption(command, options.key);
        command.add_option("--top", options.top, "Show only the N kernels with the largest total");
        AddWindowOption(command, options.window, WindowKinds::kWithSteady);
        AddAttributeOption(command, options.attribute);
      });
}

}  // namespace gpuroof
