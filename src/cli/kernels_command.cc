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
  summary_options.window = ParseWindowSpec(options.window);
  if (auto scope = ParseAttribute(options.attribute)) summary_options.window.nvtx_scope = *scope;
  summary_options.key = ParseKernelKey(options.key);
  if (!options.top.empty()) summary_options.top = ParseTop(options.top);

  KernelReport report;
  report.window_text = options.window;
  report.key = summary_options.key;
  report.top = summary_options.top;
  report.tool_version = GPUROOF_VERSION;
  // Full detail: keys need demangled names and launch shapes.
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;
  read_options.api_calls = false;  // no range attribution here
  ReadForRanges(summary_options.window, UnitsSpec{}, read_options);
  return RunBreakdown(
      options.traces, read_options, options.output, report,
      [&](const Trace& trace, const std::string& path) {
        SummarizedTrace summarized{&trace, ComputeKernelSummary(trace, summary_options)};
        PrintWindowNotes(options.output, path, summarized.devices);
        return summarized;
      },
      {RenderKernelText, RenderKernelCsv, RenderKernelJson, RenderKernelMarkdown});
}

}  // namespace

void AddKernelsCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<KernelsOptions>();
  CLI::App* command = app.add_subcommand(
      "kernels", "Per-kernel launch counts, duration statistics and shares of kernel time");
  command->footer(
      "Examples:\n"
      "  gpuroof kernels run.sqlite\n"
      "  gpuroof kernels run.sqlite --key launch --top 10\n"
      "  gpuroof kernels a.sqlite b.sqlite --window all --format csv -o kernels.csv\n"
      "Keys: name (short name, default), demangled, launch (name + grid + block).\n"
      "Windows: processing (default), all, START:END, nvtx:NAME[@N|@*], as for analyze.\n"
      "Every figure is defined in docs/metrics.md.");
  command->add_option("traces", options->traces, kTraceFilesHelp)->required();
  command->add_option("--key", options->key, "name | demangled | launch")->capture_default_str();
  command->add_option("--top", options->top, "Show only the N kernels with the largest total");
  command
      ->add_option("--window", options->window, "processing | all | START:END | nvtx:NAME[@N|@*]")
      ->capture_default_str();
  command->add_option("--threads", options->threads, "Reader threads (0 = automatic)")
      ->check(CLI::Range(0, 64));
  AddAttributeOption(*command, options->attribute);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunKernels(*options); });
}

}  // namespace gpuroof
