#include "findings_command.h"

#include <algorithm>
#include <memory>
#include <set>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/findings/findings.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/findings_report.h"

#include "breakdown_command.h"
#include "command_help.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct FindingsCommandOptions {
  std::vector<std::string> traces;
  std::string window = "processing";
  double min_cost_pct = FindingThresholds{}.min_cost_pct;
  std::string gap_min = "100us";
  double launch_bound_share_pct = FindingThresholds{}.launch_bound_share_pct;
  int64_t launch_bound_min_kernels = FindingThresholds{}.launch_bound_min_kernels;
  double low_occupancy_pct = FindingThresholds{}.low_occupancy_pct;
  std::vector<std::string> fail_on;
  std::string iteration_range;
  int threads = 0;
  OutputOptions output;
};

// The rule ids of --fail-on, each checked against the rules that exist.
std::set<std::string> ParseFailOn(const std::vector<std::string>& values) {
  const std::vector<std::string>& ids = FindingRuleIds();
  std::set<std::string> out;
  for (const std::string& id : values) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
      throw InputError("--fail-on",
                       fmt::format("no rule '{}' (rules: {})", id, fmt::join(ids, ", ")));
    }
    out.insert(id);
  }
  return out;
}

int RunFindings(const FindingsCommandOptions& options) {
  FindingsOptions findings_options;
  findings_options.window = ParseWindowSpec(options.window);
  FindingThresholds& t = findings_options.thresholds;
  t.min_cost_pct = options.min_cost_pct;
  t.gap_min_ns = ParseDurationNs(options.gap_min, "--gap-min");
  if (t.gap_min_ns <= 0) {
    throw InputError("--gap-min", fmt::format("must be longer than 0, got '{}'", options.gap_min));
  }
  t.launch_bound_share_pct = options.launch_bound_share_pct;
  t.launch_bound_min_kernels = options.launch_bound_min_kernels;
  t.low_occupancy_pct = options.low_occupancy_pct;
  const std::set<std::string> fail_on = ParseFailOn(options.fail_on);
  findings_options.iteration_range = options.iteration_range;

  FindingsReport report;
  report.window_text = options.window;
  report.thresholds = t;
  report.tool_version = GPUROOF_VERSION;
  ReadOptions read_options;
  read_options.threads = options.threads;
  read_options.detail = ReadDetail::kFull;  // correlation ids and memory kinds
  read_options.api_calls = true;
  read_options.all_api_calls = true;  // synchronising calls launch nothing
  ReadForRanges(findings_options.window, UnitsSpec{}, read_options);
  // The traces are gone once the report is rendered: what --fail-on needs is kept here.
  std::vector<std::string> fired;
  RunBreakdown(options.traces, read_options, options.output, report,
               [&](const Trace& trace, const std::string&) {
                 FindingsOfTrace traced{&trace, ComputeFindings(trace, findings_options)};
                 for (const Finding& finding : traced.result.findings) {
                   if (fail_on.count(finding.id) == 0) continue;
                   fired.push_back(fmt::format("{}: {} (device {}, cost {} ns)", trace.source,
                                               finding.id, finding.device_id, finding.cost_ns));
                 }
                 return traced;
               },
               {FindingsDocument, RenderFindingsJson});
  if (!options.output.quiet) {
    for (const std::string& line : fired)
      fmt::print(stderr, "gpuroof: check failed: {}\n", line);
  }
  return fired.empty() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void AddFindingsCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<FindingsCommandOptions>();
  CLI::App* command = AddCommand(app, "findings");
  AddTracesArgument(*command, options->traces);
  command
      ->add_option("--window", options->window,
                   "processing | all | steady | START:END | nvtx:NAME[@N|@*]")
      ->capture_default_str();
  command
      ->add_option("--min-cost-pct", options->min_cost_pct,
                   "Report a finding when its cost is at least this % of its device's window")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  command
      ->add_option("--gap-min", options->gap_min,
                   "gpu-gap, host-bound: idle gaps longer than this (ns, or with us/ms/s)")
      ->capture_default_str();
  command
      ->add_option("--launch-bound-share", options->launch_bound_share_pct,
                   "launch-bound: fires when at least this % of launches are shorter than their "
                   "launch call")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  command
      ->add_option("--launch-bound-min", options->launch_bound_min_kernels,
                   "launch-bound: ... and at least this many kernels are")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  command
      ->add_option("--low-occupancy", options->low_occupancy_pct,
                   "low-occupancy: fires when the kernel-time-weighted est. achieved occupancy "
                   "is below this %")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  command
      ->add_option("--fail-on", options->fail_on,
                   "Exit 1 when any of these rule ids fires (comma-separated)")
      ->delimiter(',');
  command->add_option("--iteration-range", options->iteration_range,
                      "The range whose instances are the steps costs are divided by (default: "
                      "ProfilerStep#* when the trace has it)");
  AddThreadsOption(*command, options->threads);
  AddOutputOptions(*command, options->output, kBreakdownFormats);
  command->callback([options, &exit_code]() { exit_code = RunFindings(*options); });
}

}  // namespace gpuroof
