#include "api_command.h"

#include <memory>

#include <CLI/CLI.hpp>

#include "gpuroof/analyses/api_summary.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/api_report.h"

#include "breakdown_command.h"
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct ApiOptions : BreakdownOptions {
  std::string window = "all";
};

int RunApi(const ApiOptions& options) {
  ApiSummaryOptions summary_options;
  summary_options.window = ParseWindowSpec(options.window);
  ApiReport report;
  report.window_text = options.window;
  report.tool_version = GPUROOF_VERSION;
  // Every call, not only the launches.
  const ReadOptions read_options =
      ApiCallReadOptions(summary_options.window, options.threads, true);
  return RunBreakdown(options, read_options, report,
                      [&](const Trace& trace, const std::string& path) {
                        ApiOfTrace api{&trace, ComputeApiSummary(trace, summary_options)};
                        // What the window leaves out, on stderr as every windowed command
                        // says it.
                        PrintNote(options.output, path, "calls", OutsideCallsNote(api.result));
                        return api;
                      },
                      {ApiDocument, RenderApiJson});
}

}  // namespace

void AddApiCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(app, "api", exit_code, RunApi, [](CLI::App& command, ApiOptions& options) {
    AddWindowOption(command, options.window, WindowKinds::kWithSteady);
  });
}

}  // namespace gpuroof
