#include "kernels_command.h"

#include <charconv>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/kernel_report.h"

#include "breakdown_command.h"
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct KernelsOptions {
  std::vector<std::string> traces;
  std::string key = "name";
  std::string top;  // empty: every kernel
  std::string window = "processing";
  int threads = 0;
  std::string attribute;
  OutputOptions output;
};

int64_t ParseTop(const std::string& text) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) {
    throw InputError("--top", fmt::format("must be a positive whole number, got '{}'", text));
  }
  return value;
}

int RunKernels(const KernelsOptions& options) {
  // Every flag is checked before any trace is read.
  KernelSummaryOptions summary_options;
  summary_options.window = ParseWindowOptions(options.window, options.attribute);
  summary_options.key = ParseKernelKey(options.key);
  if (!options.top.empty()) summary_options.top = ParseTop(options.top);

  KernelReport report;
  report.window_text = options.window;
  report.key = summary_options.key;
  report.top = summary_options.top;
  report.tool_version = GPUROOF_VERSION;
  // Full detail: keys need demangled names and launch shapes.
  return RunWindowedBreakdown(
      options.traces,
      BreakdownReadOptions(summary_options.window, ReadDetail::kFull, options.threads),
      options.output, report,
      [&](const Trace& trace) { return ComputeKernelSummary(trace, summary_options); },
      {KernelDocument, RenderKernelJson});
}

}  // namespace

void AddKernelsCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<KernelsOptions>();
  CLI::App* command = AddCommand(app, "kernels");
  AddTracesArgument(*command, options->traces);
  command->add_option("--key", options->key, "name | demangled | launch")->capture_default_str();
  command->add_option("--top", options->top, "Show only the N kernels with the largest total");
  AddWindowOption(*command, options->window, WindowKinds::kWithoutSteady);
  AddThreadsOption(*command, options->threads);
  AddAttributeOption(*command, options->attribute);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunKernels(*options); });
}

}  // namespace gpuroof
