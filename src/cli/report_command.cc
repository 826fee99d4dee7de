#include "report_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/analyses/findings/findings.h"
#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/analyses/rank_summary.h"
#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/analyses/timeline_bins.h"
#include "gpuroof/campaign/env_stamp_file.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/html_report.h"
#include "gpuroof/reports/html_timeline.h"

#include "command_help.h"
#include "exit_codes.h"
#include "output_options.h"
#include "trace_loading.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

// The traces, --threads and the output options (--format html only) as every breakdown has them.
struct ReportOptions : BreakdownOptions {
  UnitOptions unit;
  std::string window = "processing";
  std::string gap_min = "1ms";
  std::string env;  // --env FILE; empty: env.json beside each trace, when there is one
  int top = 10;
  std::string attribute;
  bool ranks = false;        // --ranks: the traces are the ranks of one job
  bool no_findings = false;  // --no-findings: leave the findings section out (a lighter read)
  // --iteration-range: the steps of the findings' costs and of the rank section; empty: the
  // ProfilerStep#* family where the trace has it.
  std::string iteration_range;
};

// The settings every analysis of the page shares, checked before any trace is read.
struct ReportPlan {
  EngineLoadOptions load;
  KernelSummaryOptions kernels;
  CopySummaryOptions copies;
  GapOptions gaps;
  RangeSummaryOptions ranges;
  std::optional<FindingsOptions> findings;  // unset: --no-findings
  std::string units_text;
};

ReportPlan PlanReport(const ReportOptions& options) {
  ReportPlan plan;
  plan.load.window = ParseWindowSpec(options.window);
  plan.load.units = ParseUnitOptions(options.unit, &plan.units_text);
  plan.ranges.scope = ParseAttribute(options.attribute);
  if (plan.ranges.scope) {
    plan.load.window.nvtx_scope = *plan.ranges.scope;
    plan.load.units.scope = *plan.ranges.scope;
  }
  // --window steady: the warm-up of the units' series, as `analyze` finds it; every section
  // below copies this window.
  PrepareSteadyState(plan.load, false);
  plan.kernels.window = plan.load.window;
  plan.kernels.top = options.top;
  plan.copies.window = plan.load.window;
  if (!options.no_findings) {
    // gpuroof findings with its default thresholds, in the page's window.
    plan.findings.emplace();
    plan.findings->window = plan.load.window;
    plan.findings->iteration_range = options.iteration_range;
  }
  plan.gaps.min_ns = ParsePositiveDurationNs(options.gap_min, "--gap-min");
  return plan;
}

// Where each device's warm-up ends, for its timeline: MSER-5 over the series the units follow
// (kernel launches, NVTX instances, or 50 slices of the window). Not computed when the window is
// already the steady one (its start is marked as such), and left unmarked, with the reason as a
// note, when the series is too short or names what the device lacks.
std::vector<SteadyMark> MarkSteadyStates(const Trace& trace, const ReportedTrace& reported,
                                         const ReportPlan& plan) {
  std::vector<SteadyMark> marks;
  if (plan.load.window.kind == WindowSpec::Kind::kSteady) return marks;
  const UnitSeriesSpec series = UnitSeriesFrom(plan.load.units);
  // The warm-up is the run's, found over the processing window (as `analyze --window steady`),
  // whatever window the page shows; NVTX units make the page's window the range's work.
  std::map<int32_t, Window> processing;
  if (plan.load.window.kind != WindowSpec::Kind::kProcessing ||
      plan.load.units.kind == UnitsSpec::Kind::kNvtxRanges) {
    processing = ProcessingWindows(trace);
  }
  for (const DeviceTimeline& timeline : reported.timelines) {
    for (const DeviceLoad& device : reported.devices) {
      if (device.device_id != timeline.device_id) continue;
      SteadyMark mark;
      mark.device_id = device.device_id;
      try {
        const auto own = processing.find(device.device_id);
        const SteadyState state = ComputeSteadyState(
            trace, device.device_id, own != processing.end() ? own->second : device.window, series);
        mark.start_ns = state.start_ns;
        mark.series = DescribeSeries(state);
        mark.dropped = state.first_kept;
        mark.notes = state.warnings;
      } catch (const InputError& error) {
        mark.notes.push_back("steady state not marked: " + error.problem());
      }
      marks.push_back(std::move(mark));
    }
  }
  return marks;
}

// Runs every analysis the page shows on one trace. Kernel and copy summaries, ranges, gaps and
// the timeline are skipped when there is nothing of their kind, instead of failing the page.
// They are pure functions of the trace, so the summaries run on a second thread while this one
// sweeps for the overlap, gaps and timeline: on a large trace the page costs little more than
// its slowest analysis.
ReportedTrace AnalyzeForReport(const Trace& trace, const ReportPlan& plan) {
  ReportedTrace reported;
  reported.trace = &trace;
  reported.devices = ComputeEngineLoad(trace, plan.load);
  auto any = [&reported](auto predicate) {
    return std::any_of(reported.devices.begin(), reported.devices.end(), predicate);
  };
  bool has_kernels = any([](const DeviceLoad& d) {
    return d.engine(Engine::kKernel).ops > 0 || d.engine(Engine::kComm).ops > 0;
  });
  bool has_copies = std::any_of(trace.signatures.begin(), trace.signatures.end(),
                                [](const OpSignature& s) { return EngineMovesBytes(s.engine); });
  // The summaries reuse this engine load (same window) rather than computing their own.
  KernelSummaryOptions kernel_options = plan.kernels;
  kernel_options.engine_load = &reported.devices;
  CopySummaryOptions copy_options = plan.copies;
  copy_options.engine_load = &reported.devices;
  const RangeSummaryOptions range_options = plan.ranges;
  auto summaries = std::async(std::launch::async, [&trace, kernel_options, copy_options,
                                                   range_options, has_kernels, has_copies] {
    ReportedTrace part;
    if (has_kernels) part.kernels = ComputeKernelSummary(trace, kernel_options);
    if (has_copies) part.copies = ComputeCopySummary(trace, copy_options);
    if (!trace.nvtx_ranges.empty()) part.ranges = SummarizeRanges(trace, range_options);
    return part;
  });
  // The findings run beside both (a third of the analysis time on a large trace).
  std::future<FindingsResult> findings;
  if (plan.findings) {
    FindingsOptions findings_options = *plan.findings;
    // The page's engine load has the findings' windows unless NVTX units narrowed them to the
    // ranges' work: then the findings resolve their own, as `gpuroof findings` does.
    if (plan.load.units.kind != UnitsSpec::Kind::kNvtxRanges)
      findings_options.engine_load = &reported.devices;
    findings = std::async(std::launch::async, [&trace, findings_options] {
      return ComputeFindings(trace, findings_options);
    });
  }
  reported.overlaps = ComputeEngineOverlap(trace, reported.devices);
  // A device busy for a positive time in its window has an op that takes time: gaps and the
  // timeline have something to show.
  if (any([](const DeviceLoad& d) { return d.any_busy_ns > 0; })) {
    reported.gaps = ComputeGaps(trace, plan.gaps);
    // Each timeline covers the device's whole span, widened to its window, so the setup before
    // the window and the tail after it are seen too.
    std::vector<TimelineRange> ranges;
    for (const DeviceGaps& gaps : reported.gaps) {
      for (const DeviceLoad& device : reported.devices) {
        if (device.device_id != gaps.device_id) continue;
        ranges.push_back({gaps.device_id, std::min(gaps.span_start_ns, device.window.start_ns),
                          std::max(gaps.span_end_ns, device.window.end_ns)});
      }
    }
    reported.timelines = ComputeTimelineBins(trace, ranges, TimelinePlotBins());
  }
  reported.steady = MarkSteadyStates(trace, reported, plan);
  if (findings.valid()) reported.findings = findings.get();  // rethrows what the rules threw
  ReportedTrace part = summaries.get();                      // rethrows what the summaries threw
  reported.kernels = std::move(part.kernels);
  reported.copies = std::move(part.copies);
  reported.ranges = std::move(part.ranges);
  return reported;
}

// The env stamps for the page: --env for every trace, else the env.json a sweep left beside each
// trace (one entry per file, listing its traces). An unreadable stamp found beside a trace is a
// note on stderr and on the page, not a failure: the traces themselves were read. The --env file
// the user named is an error when it is missing or cannot be read as a stamp.
std::vector<ReportEnvironment> FindEnvironments(const ReportOptions& options) {
  std::vector<ReportEnvironment> found;
  if (!options.env.empty() && !std::filesystem::is_regular_file(options.env)) {
    std::error_code ec;
    throw InputError(options.env, std::filesystem::is_directory(options.env, ec)
                                      ? "cannot open the env stamp: is a directory"
                                      : "cannot open the env stamp: no such file");
  }
  for (size_t t = 0; t < options.traces.size(); ++t) {
    std::filesystem::path stamp = options.env;
    if (stamp.empty()) {
      stamp = std::filesystem::path(options.traces[t]).parent_path() / "env.json";
      std::error_code ec;
      if (!std::filesystem::is_regular_file(stamp, ec)) continue;
    }
    auto same = std::find_if(found.begin(), found.end(), [&stamp](const ReportEnvironment& e) {
      return e.source == stamp.string();
    });
    if (same != found.end()) {
      same->traces.push_back(t + 1);
      continue;
    }
    ReportEnvironment environment;
    environment.source = stamp.string();
    environment.traces.push_back(t + 1);
    try {
      std::ifstream in(stamp, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (!in) throw InputError(environment.source, "cannot read the env stamp");
      environment.lines = DescribeEnvStamp(ParseEnvJson(text.str(), environment.source));
    } catch (const InputError& error) {
      if (!options.env.empty()) throw;  // named by the user: not a stamp is an error
      environment.error = error.problem();
      PrintNote(options.output, environment.source, "env stamp", "left out: " + environment.error);
    }
    found.push_back(std::move(environment));
  }
  return found;
}

// The rank section: with --ranks, or when every one of two or more traces names its rank. A
// trace that cannot be summarised as a rank is left out and said.
void AddRankSection(const ReportOptions& options, const std::vector<std::unique_ptr<Trace>>& traces,
                    HtmlReport& report) {
  bool all_named = traces.size() >= 2 &&
                   std::all_of(traces.begin(), traces.end(),
                               [](const auto& t) { return RankIdentityOf(*t).rank.has_value(); });
  if (!options.ranks && !all_named) return;
  std::vector<RankSummary> summaries;
  for (const auto& trace : traces) {
    try {
      summaries.push_back(SummarizeRank(*trace, {options.iteration_range}));
    } catch (const InputError& error) {
      report.rank_notes.push_back(fmt::format("not a rank: {}", error.what()));
    }
  }
  if (!summaries.empty()) report.ranks = AnalyseRankSet(std::move(summaries), OutlierRule{});
}

int RunReport(const ReportOptions& options) {
  // An HTML page on a terminal is noise: ask for a file unless "-o -" says stdout on purpose.
  if (options.output.output_path.empty() && isatty(STDOUT_FILENO)) {
    throw InputError("stdout",
                     "is a terminal and the report is an HTML page: write it with "
                     "-o report.html (or -o - to print it anyway)");
  }
  ReportPlan plan = PlanReport(options);
  std::vector<std::unique_ptr<Trace>> traces;
  HtmlReport report;
  report.window_text = options.window;
  report.units_text = plan.units_text;
  report.findings_window_differs = plan.load.units.kind == UnitsSpec::Kind::kNvtxRanges;
  report.gap_min_text = options.gap_min;
  report.tool_version = GPUROOF_VERSION;
  report.environments = FindEnvironments(options);
  // Copy tables need memory kinds, kernel tables the short names, and the range table the API
  // calls and correlation ids when there are ranges: kBreakdown reads just that (docs/
  // performance.md, "report").
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kBreakdown;
  if (plan.findings) {
    // The findings rules need memory kinds, correlation ids and every CUDA API call
    // (synchronising calls launch nothing); kBreakdown reads the ids with every call, and never
    // the kernel shapes and demangled names the rules do not use. --no-findings reads no call.
    read_options.api_calls = true;
    read_options.all_api_calls = true;
  }
  CheckTraceFiles(options.traces);
  for (const std::string& path : options.traces) {
    traces.push_back(std::make_unique<Trace>(LoadTrace(path, read_options, options.output)));
    report.traces.push_back(AnalyzeForReport(*traces.back(), plan));
    if (report.traces.back().ranges) {
      PrintNote(options.output, path, "ranges", report.traces.back().ranges->method_note);
    }
    for (const DeviceLoad& device : report.traces.back().devices) {
      std::string where = fmt::format("device {}", device.device_id);
      PrintNote(options.output, path, where, device.window.note);
      PrintNote(options.output, path, where, device.units_note);
    }
  }
  AddRankSection(options, traces, report);
  EmitOutput(options.output, RenderHtmlReport(report));
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ReportOptions>();
  options->output.format = "html";
  CLI::App* command = AddCommand(app, "report");
  AddTracesArgument(*command, options->traces);
  AddUnitOptions(*command, options->unit);
  AddWindowOption(*command, options->window, WindowKinds::kWithSteady);
  command
      ->add_option("--gap-min", options->gap_min,
                   "Gaps longer than this count (ns, or with us/ms/s); the 5 largest are "
                   "highlighted on the timeline")
      ->capture_default_str();
  command->add_option("--top", options->top, "Kernels listed per device")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  command->add_option("--env", options->env,
                      "A campaign's env.json to show in the header (default: env.json beside "
                      "each trace, when a sweep wrote one)");
  AddThreadsOption(*command, options->threads);
  AddAttributeOption(*command, options->attribute);
  command->add_flag("--ranks", options->ranks,
                    "Add a rank section: the traces are the ranks of one job (automatic when "
                    "every trace names its rank)");
  command->add_option("--iteration-range", options->iteration_range,
                      "The range whose instances are the steps: findings' cost per step and the "
                      "rank section's figures (default: ProfilerStep#* when the trace has it)");
  command->add_flag("--no-findings", options->no_findings,
                    "Leave the findings section out (reads less of each trace: no API calls)");
  AddOutputOptions(*command, options->output, {"html"});
  command->callback([options, &exit_code]() { exit_code = RunReport(*options); });
}

}  // namespace gpuroof
