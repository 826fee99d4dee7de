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
                      [&](const Trace& trace, const std::string&) {
                        return ApiOfTrace{&trace, ComputeApiSummary(trace, summary_options)};
                      },
                      {ApiDocument, RenderApiJson});
}

}  // namespace

void AddApiCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(app, "api", exit_code, RunApi, [](CLI::App& command, ApiOptions& options) {
    AddWindowOption(command, options.window, WindowKinds::kWithoutSteady);
  });
}

}  // namespace gpuroof
