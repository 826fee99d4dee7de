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
#include "unit_options.h"

namespace gpuroof {

namespace {

struct GapsOptions : BreakdownOptions {
  std::string min = "1ms";
};

int RunGaps(const GapsOptions& options) {
  GapOptions gap_options;
  gap_options.min_ns = ParsePositiveDurationNs(options.min, "--min");
  GapsReport report;
  report.min_ns = gap_options.min_ns;
  report.min_text = options.min;
  report.tool_version = GPUROOF_VERSION;
  // Labels of the ops around a gap need kernel names and memory kinds: the breakdown detail.
  return RunBreakdown(
      options, BreakdownReadOptions(WindowSpec{}, ReadDetail::kBreakdown, options.threads), report,
      [&](const Trace& trace, const std::string& path) {
        NoteWhenNoKernels(trace, path, options.output,
                          "the gaps are between copies and memsets, and any time kernels ran "
                          "in counts as idle");
        return GappedTrace{&trace, ComputeGaps(trace, gap_options)};
      },
      {GapsDocument, RenderGapsJson});
}

}  // namespace

void AddGapsCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(app, "gaps", exit_code, RunGaps, [](CLI::App& command, GapsOptions& options) {
    command
        .add_option("--min", options.min,
                    "List gaps longer than this (ns, or with us/ms/s, e.g. 1ms)")
        ->capture_default_str();
  });
}

}  // namespace gpuroof
