#include "ranks_command.h"

#include <memory>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/parallel_for.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/ranks_report.h"

#include "exit_codes.h"
#include "output_options.h"
#include "rank_inputs.h"

namespace gpuroof {

namespace {

struct RanksOptions {
  std::vector<std::string> inputs;
  std::string iteration_range;
  int jobs = 0;
  OutputOptions output;
};

// What one trace became: its summary, or why it has none. The trace itself is gone by then.
struct LoadedRank {
  std::optional<RankSummary> summary;
  std::string error;
  std::string diagnostics_summary;  // when records were skipped
  bool data_loss = false;
};

LoadedRank LoadRank(const std::string& path, const ReadOptions& read_options,
                    const RankSummaryOptions& summary_options) {
  LoadedRank loaded;
  try {
    Trace trace = ReadTrace(path, read_options);
    if (trace.diagnostics.records_skipped() > 0) {
      loaded.diagnostics_summary = trace.diagnostics.Summary();
    }
    loaded.data_loss = trace.diagnostics.has_data_loss();
    loaded.summary = SummarizeRank(trace, summary_options);
  } catch (const InputError& error) {
    loaded.error = error.what();
  }
  return loaded;
}

void Warn(const OutputOptions& output, const std::string& message) {
  if (!output.quiet) fmt::print(stderr, "gpuroof: warning: {}\n", message);
}

int RunRanks(const RanksOptions& options) {
  RankInputs inputs = FindRankInputs(options.inputs);
  if (inputs.not_traces > 0 && !options.output.quiet) {
    fmt::print(stderr, "gpuroof: note: {} file{} in the directories {} no trace, left out\n",
               inputs.not_traces, inputs.not_traces == 1 ? "" : "s",
               inputs.not_traces == 1 ? "is" : "are");
  }
  if (inputs.exported_twice > 0 && !options.output.quiet) {
    fmt::print(stderr,
               "gpuroof: note: {} .nsys-rep file{} left out for the .sqlite export beside it\n",
               inputs.exported_twice, inputs.exported_twice == 1 ? "" : "s");
  }
  unsigned jobs = options.jobs > 0 ? static_cast<unsigned>(options.jobs)
                                   : std::max(1u, std::thread::hardware_concurrency());
  ReadOptions read_options;
  read_options.detail = ReadDetail::kFull;
  read_options.api_calls = true;            // the idle breakdown looks up each op's launch
  read_options.threads = jobs > 1 ? 1 : 0;  // parallel across traces, not within one
  RankSummaryOptions summary_options;
  summary_options.iteration_range = options.iteration_range;

  // Streaming: each job reads one trace, reduces it to its summary and drops it, so at most
  // `jobs` traces are in memory at once.
  std::vector<LoadedRank> loaded(inputs.paths.size());
  ParallelFor(
      inputs.paths.size(),
      [&](size_t i) { loaded[i] = LoadRank(inputs.paths[i], read_options, summary_options); },
      jobs);

  RanksReport report;
  report.iteration_range = options.iteration_range;
  report.tool_version = GPUROOF_VERSION;
  std::vector<RankSummary> summaries;
  bool strict_failure = false;
  for (size_t i = 0; i < loaded.size(); ++i) {
    LoadedRank& rank = loaded[i];
    if (!rank.diagnostics_summary.empty()) {
      Warn(options.output, fmt::format("{}: {}", inputs.paths[i], rank.diagnostics_summary));
    }
    if (rank.data_loss) strict_failure = true;
    if (!rank.summary) {
      report.failed.push_back({inputs.paths[i], rank.error});
      Warn(options.output, "not analysed: " + rank.error);
      continue;
    }
    summaries.push_back(std::move(*rank.summary));
  }
  if (summaries.empty()) {
    throw InputError(inputs.paths.size() == 1 ? inputs.paths.front() : std::string("ranks"),
                     fmt::format("none of the {} traces could be analysed (first: {})",
                                 inputs.paths.size(), report.failed.front().message));
  }
  report.analysis = AnalyseRankSet(std::move(summaries), OutlierRule{});
  for (const std::string& warning : report.analysis.warnings)
    Warn(options.output, warning);
  RenderAndEmit(options.output, report,
                ReportFormats<RanksReport>{RenderRanksText, RenderRanksCsv, RenderRanksJson,
                                           RenderRanksMarkdown});
  if (options.output.strict && (!report.failed.empty() || strict_failure)) {
    fmt::print(stderr, "gpuroof: error: --strict: {} trace{} not analysed, {} with records lost\n",
               report.failed.size(), report.failed.size() == 1 ? "" : "s",
               std::count_if(loaded.begin(), loaded.end(),
                             [](const LoadedRank& rank) { return rank.data_loss; }));
    return kExitCheckFailed;
  }
  return kExitOk;
}

}  // namespace

void AddRanksCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<RanksOptions>();
  CLI::App* command = app.add_subcommand(
      "ranks", "A distributed job as one trace set: every rank, stragglers, collective skew");
  command->footer(
      "Examples:\n"
      "  gpuroof ranks traces/                       # every trace under traces/, by content\n"
      "  gpuroof ranks rank*.pt.trace.json.gz --jobs 4 --format csv -o ranks.csv\n"
      "  gpuroof ranks run/ --iteration-range train_step --format json\n"
      "Ranks come from the traces (Kineto distributedInfo.rank; nsys: OMPI_COMM_WORLD_RANK,\n"
      "PMI_RANK, SLURM_PROCID or RANK in the exported environment), else from file order.\n"
      "One unreadable trace is reported and the others analysed (--strict: exit 1).\n"
      "Every figure is defined in docs/metrics.md, \"Ranks\".");
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
  command->callback([options, &exit_code]() { exit_code = RunRanks(*options); });
}

}  // namespace gpuroof
