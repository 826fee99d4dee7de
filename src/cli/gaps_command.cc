#include "gaps_command.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/gaps_report.h"

#include "breakdown_command.h"
#include "command_help.h"

namespace gpuroof {

namespace {

struct GapsOptions {
  std::vector<std::string> traces;
  std::string min = "1ms";
  int threads = 0;
  OutputOptions output;
};

int RunGaps(const GapsOptions& options) {
  GapOptions gap_options;
  gap_options.min_ns = ParseDurationNs(options.min, "--min");
  if (gap_options.min_ns <= 0) {
    throw InputError("--min", fmt::format("must be longer than 0, got '{}'", options.min));
  }
  GapsReport report;
  report.min_ns = gap_options.min_ns;
  report.min_text = options.min;
  report.tool_version = GPUROOF_VERSION;
  // Labels of the ops around a gap need kernel names and memory kinds: the breakdown detail.
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kBreakdown;
  read_options.api_calls = false;  // no range attribution here
  return RunBreakdown(options.traces, read_options, options.output, report,
                      [&](const Trace& trace, const std::string&) {
                        return GappedTrace{&trace, ComputeGaps(trace, gap_options)};
                      },
                      {GapsDocument, RenderGapsJson});
}

}  // namespace

void AddGapsCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<GapsOptions>();
  CLI::App* command = AddCommand(app, "gaps");
  AddTracesArgument(*command, options->traces);
  command
      ->add_option("--min", options->min,
                   "List gaps longer than this (ns, or with us/ms/s, e.g. 1ms)")
      ->capture_default_str();
  AddThreadsOption(*command, options->threads);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunGaps(*options); });
}

}  // namespace gpuroof
