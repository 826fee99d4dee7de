#include "analyze_command.h"

#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/analyze_report.h"

#include "command_help.h"
#include "exit_codes.h"
#include "output_options.h"
#include "ranges_command.h"
#include "trace_loading.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct AnalyzeOptions : BreakdownOptions {
  UnitOptions unit;
  std::string window = "processing";
  bool overlap = false;
  bool by_stream = false;
  bool steady_report = false;
  std::string per_range;
  std::string attribute;
};

// --per-range NAME: the engine table once per instance of an NVTX range, with the GPU work each
// instance launched (the `gpuroof ranges --name NAME` report). Each instance is its own window
// and unit, so the window and unit options do not apply.
int RunPerRange(const AnalyzeOptions& options) {
  if (!options.unit.units.empty() || !options.unit.units_from.empty() ||
      options.window != "processing" || options.overlap || options.by_stream ||
      options.steady_report) {
    throw InputError("--per-range",
                     "each range instance is its own window and unit: it cannot be combined with "
                     "--units, --units-from, --window, --overlap, --by-stream or --steady-report");
  }
  // The ranges report has no one-figure-per-row form.
  if (options.output.format == "csv-long") {
    throw InputError("--per-range",
                     "--format csv-long is not offered with --per-range (it offers table, csv, "
                     "markdown and json)");
  }
  RangesOptions ranges;
  static_cast<BreakdownOptions&>(ranges) = options;
  ranges.name = options.per_range;
  ranges.attribute = options.attribute;
  return RunRanges(ranges);
}

// The steady-state comparison of every device; its warnings go to stderr unless the window
// itself is the steady one (whose note already carries them).
std::vector<SteadyComparison> CompareSteady(const Trace& trace,
                                            const EngineLoadOptions& load_options,
                                            const AnalyzeOptions& options) {
  std::vector<SteadyComparison> comparisons = CompareSteadyState(trace, load_options.units);
  if (load_options.window.kind != WindowSpec::Kind::kSteady) {
    for (const SteadyComparison& comparison : comparisons) {
      for (const std::string& warning : comparison.state.warnings) {
        PrintNote(options.output, trace.source,
                  fmt::format("device {}", comparison.state.device_id), warning);
      }
    }
  }
  return comparisons;
}

int RunAnalyze(const AnalyzeOptions& options) {
  if (!options.per_range.empty()) return RunPerRange(options);
  // Markdown is the ranges report's (--per-range); the engine table has none.
  if (options.output.format == "markdown") {
    throw InputError("--format",
                     "markdown is offered with --per-range only (analyze offers "
                     "table, csv, csv-long and json)");
  }
  // Every flag is checked before any trace is read: a typo costs nothing on a 10 GB trace.
  AnalyzePlan plan = PlanAnalyze(options.window, options.unit, options.attribute, options.by_stream,
                                 options.overlap);
  EngineLoadOptions& load_options = plan.load;
  const bool compare_steady = PrepareSteadyState(load_options, options.steady_report);

  std::vector<std::unique_ptr<Trace>> traces;
  AnalyzeReport report;
  report.window_text = options.window;
  report.units_text = plan.units_text;
  report.tool_version = GPUROOF_VERSION;
  ReadOptions read_options = plan.read;
  read_options.threads = options.threads;
  CheckTraceFiles(options.traces);
  for (const std::string& path : options.traces) {
    traces.push_back(std::make_unique<Trace>(LoadTrace(path, read_options, options.output)));
    AnalyzedTrace analyzed;
    analyzed.trace = traces.back().get();
    analyzed.devices = ComputeEngineLoad(*traces.back(), load_options);
    if (options.overlap) analyzed.overlaps = ComputeEngineOverlap(*traces.back(), analyzed.devices);
    if (compare_steady)
      report.steady.push_back(CompareSteady(*traces.back(), load_options, options));
    for (const auto& [where, note] : DeviceLoadNotes(analyzed.devices))
      PrintNote(options.output, path, where, note);
    report.traces.push_back(std::move(analyzed));
  }
  const std::string& format = options.output.format;
  auto render = RenderAnalyzeText;
  if (format == "csv") render = RenderAnalyzeCsv;
  if (format == "csv-long") render = RenderAnalyzeCsvLong;
  if (format == "json") render = RenderAnalyzeJson;
  EmitOutput(options.output, render(report));
  return kExitOk;
}

}  // namespace

AnalyzePlan PlanAnalyze(const std::string& window, const UnitOptions& unit,
                        const std::string& attribute, bool by_stream, bool overlap) {
  AnalyzePlan plan;
  plan.load.window = ParseWindowSpec(window);
  plan.load.units = ParseUnitOptions(unit, &plan.units_text);
  if (const std::optional<RangeScope> scope = ParseAttribute(attribute)) {
    plan.load.window.nvtx_scope = *scope;
    plan.load.units.scope = *scope;
  }
  plan.load.by_stream = by_stream;
  if (by_stream && overlap) {
    throw InputError("--by-stream", "give either --by-stream or --overlap, not both");
  }
  // Engine load needs only when, where and which engine; a kernel matched by its demangled name
  // for --units-from needs the full kernel details.
  plan.read.detail = plan.load.units.kind == UnitsSpec::Kind::kKernelLaunches || by_stream
                         ? ReadDetail::kFull
                         : ReadDetail::kEngineLoad;
  ReadForRanges(plan.load.window, plan.load.units, plan.read);
  return plan;
}

std::vector<std::pair<std::string, std::string>> DeviceLoadNotes(
    const std::vector<DeviceLoad>& devices) {
  std::vector<std::pair<std::string, std::string>> notes;
  for (const DeviceLoad& device : devices) {
    std::string where = fmt::format("device {}", device.device_id);
    if (device.stream) where += fmt::format(" stream {}", device.stream->stream_id);
    if (device.uvm_no_stream) where += fmt::format(" {}", kNoStreamUvmLabel);
    for (const std::string* note : {&device.window.note, &device.units_note}) {
      if (!note->empty()) notes.emplace_back(where, *note);
    }
    for (std::string& note : RateNotes(device))
      notes.emplace_back(where, std::move(note));
  }
  return notes;
}

void AddAnalyzeCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<AnalyzeOptions>();
  CLI::App* command = AddCommand(app, "analyze");
  AddTracesArgument(*command, options->traces);
  AddUnitOptions(*command, options->unit);
  AddWindowOption(*command, options->window, WindowKinds::kWithSteady);
  command->add_flag("--steady-report", options->steady_report,
                    "Also say where the warm-up ends (MSER-5) and how the per-unit figures of the "
                    "steady part differ from the whole window (always with --window steady)");
  command->add_flag("--overlap", options->overlap,
                    "Also print how long each pair of engines was busy at the same time, and the "
                    "time no engine was busy");
  command->add_flag("--by-stream", options->by_stream,
                    "One engine table per stream (in its device's window) instead of per "
                    "device; UVM migrations, on no stream, get one of their own");
  command->add_option("--per-range", options->per_range,
                      "One engine row set per instance of this NVTX range (an epoch, a batch), "
                      "with the GPU work each instance launched");
  AddAttributeOption(*command, options->attribute);
  AddThreadsOption(*command, options->threads);
  AddOutputOptions(*command, options->output, {"table", "csv", "csv-long", "json", "markdown"});
  command->callback([options, &exit_code]() { exit_code = RunAnalyze(*options); });
}

}  // namespace gpuroof
