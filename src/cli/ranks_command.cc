#include "ranks_command.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/reports/ranks_report.h"

#include "command_help.h"
#include "exit_codes.h"
#include "output_options.h"
#include "rank_set_loading.h"

namespace gpuroof {

namespace {

struct RanksOptions {
  std::vector<std::string> inputs;
  std::string iteration_range;
  int jobs = 0;
  OutputOptions output;
};

int RunRanks(const RanksOptions& options, RankSetSpread* spread) {
  RankSetLoad load;
  load.inputs = options.inputs;
  load.iteration_range = options.iteration_range;
  load.jobs = options.jobs;
  // A helping MPI process has sent its summaries on by now; the leading one writes.
  if (spread != nullptr && !spread->Leads(load)) return kExitOk;
  LoadedRankSet set = LoadRankSet(load, options.output, spread);
  RanksReport report;
  report.iteration_range = options.iteration_range;
  report.tool_version = GPUROOF_VERSION;
  report.analysis = std::move(set.analysis);
  report.failed = std::move(set.failed);
  RenderAndEmit(options.output, report, ReportFormats<RanksReport>{RanksDocument, RenderRanksJson});
  if (options.output.strict && (!report.failed.empty() || set.traces_with_loss > 0)) {
    fmt::print(MessageStream(),
               "gpuroof: error: --strict: {} trace{} not analysed, {} with records lost\n",
               report.failed.size(), report.failed.size() == 1 ? "" : "s", set.traces_with_loss);
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void AddRanksCommand(CLI::App& app, int& exit_code, RankSetSpread* spread) {
  auto options = std::make_shared<RanksOptions>();
  CLI::App* command = AddCommand(app, "ranks");
  command
      ->add_option("traces", options->inputs, "Trace files or directories (searched recursively)")
      ->required();
  command->add_option("--iteration-range", options->iteration_range,
                      "NVTX range that marks one step (default: ProfilerStep#* where present, "
                      "else the whole trace is one step)");
  command
      ->add_option("--jobs,-j", options->jobs,
                   "Traces read at once (0 = one per core); memory grows with it")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  AddOutputOptions(*command, options->output, {"table", "csv", "json", "markdown"});
  command->callback([options, &exit_code, spread]() { exit_code = RunRanks(*options, spread); });
}

}  // namespace gpuroof
