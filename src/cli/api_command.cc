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

struct ApiOptions {
  std::vector<std::string> traces;
  std::string window = "all";
  int threads = 0;
  OutputOptions output;
};

int RunApi(const ApiOptions& options) {
  ApiSummaryOptions summary_options;
  summary_options.window = ParseWindowSpec(options.window);
  ApiReport report;
  report.window_text = options.window;
  report.tool_version = GPUROOF_VERSION;
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;
  read_options.api_calls = true;
  read_options.all_api_calls = true;  // every call, not only the launches
  ReadForRanges(summary_options.window, UnitsSpec{}, read_options);
  return RunBreakdown(options.traces, read_options, options.output, report,
                      [&](const Trace& trace, const std::string&) {
                        return ApiOfTrace{&trace, ComputeApiSummary(trace, summary_options)};
                      },
                      {ApiDocument, RenderApiJson});
}

}  // namespace

void AddApiCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ApiOptions>();
  CLI::App* command = AddCommand(app, "api");
  AddTracesArgument(*command, options->traces);
  command
      ->add_option("--window", options->window, "all | processing | START:END | nvtx:NAME[@N|@*]")
      ->capture_default_str();
  AddThreadsOption(*command, options->threads);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunApi(*options); });
}

}  // namespace gpuroof
