#include "findings_command.h"

#include <algorithm>
#include <cmath>
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
#include "output_options.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct FindingsCommandOptions : BreakdownOptions {
  std::string window = "processing";
  double min_cost_pct = FindingThresholds{}.min_cost_pct;
  std::string gap_min = "100us";
  double launch_bound_share_pct = FindingThresholds{}.launch_bound_share_pct;
  int64_t launch_bound_min_kernels = FindingThresholds{}.launch_bound_min_kernels;
  double low_occupancy_pct = FindingThresholds{}.low_occupancy_pct;
  std::vector<std::string> fail_on;
  std::string iteration_range;
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
  t.gap_min_ns = ParsePositiveDurationNs(options.gap_min, "--gap-min");
  t.launch_bound_share_pct = options.launch_bound_share_pct;
  t.launch_bound_min_kernels = options.launch_bound_min_kernels;
  t.low_occupancy_pct = options.low_occupancy_pct;
  const std::set<std::string> fail_on = ParseFailOn(options.fail_on);
  findings_options.iteration_range = options.iteration_range;

  FindingsReport report;
  report.window_text = options.window;
  report.thresholds = t;
  report.tool_version = GPUROOF_VERSION;
  // Correlation ids and memory kinds, and every call: synchronising calls launch nothing.
  const ReadOptions read_options =
      ApiCallReadOptions(findings_options.window, options.threads, true);
  // The traces are gone once the report is rendered: what --fail-on needs is kept here.
  std::vector<std::string> fired;
  RunBreakdown(options, read_options, report,
               [&](const Trace& trace, const std::string& path) {
                 NoteWhenNoKernels(trace, path, options.output,
                                   "no finding about kernels can fire, and any time kernels ran "
                                   "in counts as GPU idle");
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
      fmt::print(MessageStream(), "gpuroof: check failed: {}\n", line);
  }
  return fired.empty() ? kExitOk : kExitCheckFailed;
}

// A percentage threshold, 0 to 100, with its default shown. NaN is no percentage (CLI::Range
// lets it through: every comparison with it is false).
void AddPercentOption(CLI::App& command, const char* name, double& value, const char* help) {
  command.add_option(name, value, help)
      ->check(CLI::Range(0.0, 100.0))
      ->check(CLI::Validator(
          [](const std::string& text) {
            double number = 0;
            return CLI::detail::lexical_cast(text, number) && !std::isnan(number)
                       ? std::string()
                       : "not a number: " + text;
          },
          "PERCENT"))
      ->capture_default_str();
}

// The rule thresholds (docs/findings.md), each with its documented default.
void AddThresholdOptions(CLI::App& command, FindingsCommandOptions& options) {
  AddPercentOption(command, "--min-cost-pct", options.min_cost_pct,
                   "Report a finding when its cost is at least this % of its device's window");
  command
      .add_option("--gap-min", options.gap_min,
                  "gpu-gap, host-bound: idle gaps longer than this (ns, or with us/ms/s)")
      ->capture_default_str();
  AddPercentOption(command, "--launch-bound-share", options.launch_bound_share_pct,
                   "launch-bound: fires when at least this % of launches are shorter than their "
                   "launch call");
  command
      .add_option("--launch-bound-min", options.launch_bound_min_kernels,
                  "launch-bound: ... and at least this many kernels are")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  AddPercentOption(command, "--low-occupancy", options.low_occupancy_pct,
                   "low-occupancy: fires when the kernel-time-weighted est. achieved occupancy "
                   "is below this %");
}

}  // namespace

void AddFindingsCommand(CLI::App& app, int& exit_code) {
  AddBreakdownCommand(app, "findings", exit_code, RunFindings,
                      [](CLI::App& command, FindingsCommandOptions& options) {
                        AddWindowOption(command, options.window, WindowKinds::kWithSteady);
                        AddThresholdOptions(command, options);
                        command
                            .add_option("--fail-on", options.fail_on,
                                        "Exit 1 when any of these rule ids fires (comma-separated)")
                            ->delimiter(',');
                        command.add_option(
                            "--iteration-range", options.iteration_range,
                            "The range whose instances are the steps costs are divided by "
                            "(default: ProfilerStep#* when the trace has it)");
                      });
}

}  // namespace gpuroof
