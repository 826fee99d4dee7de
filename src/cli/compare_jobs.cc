#include "compare_jobs.h"

#include <filesystem>

#include <fmt/format.h>

#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/format/number_format.h"

#include "exit_codes.h"
#include "rank_set_loading.h"

namespace gpuroof {

namespace {

// One compared figure: "slowest rank step median: baseline 1.000 ms (rank 2), current ...".
std::string FigureLine(std::string_view what, double baseline_ns, double current_ns,
                       std::string_view baseline_note, std::string_view current_note,
                       double threshold, bool& failed) {
  double ratio = baseline_ns > 0 ? current_ns / baseline_ns : 0;
  bool fail = baseline_ns > 0 && ratio > threshold;
  failed = failed || fail;
  return fmt::format("  {}: baseline {}{}, current {}{}: {}x {}\n", what,
                     HumanDurationNs(baseline_ns), baseline_note, HumanDurationNs(current_ns),
                     current_note, FixedDouble(ratio, 3), fail ? "FAIL" : "PASS");
}

}  // namespace

bool AreJobDirectories(const std::vector<std::string>& baseline,
                       const std::vector<std::string>& current) {
  std::error_code ec;
  return baseline.size() == 1 && current.size() == 1 &&
         std::filesystem::is_directory(baseline.front(), ec) &&
         std::filesystem::is_directory(current.front(), ec);
}

int RunJobCompare(const JobCompareOptions& options, const OutputOptions& output) {
  RankSetLoad load;
  load.iteration_range = options.iteration_range;
  load.jobs = options.jobs;
  load.inputs = {options.baseline_dir};
  LoadedRankSet baseline = LoadRankSet(load, output);
  load.inputs = {options.current_dir};
  LoadedRankSet current = LoadRankSet(load, output);
  JobStepFigures before = ComputeJobStepFigures(baseline.analysis);
  JobStepFigures after = ComputeJobStepFigures(current.analysis);

  bool failed = false;
  std::string text =
      fmt::format("job compare: baseline {} ({} ranks), current {} ({} ranks); fail above {}x\n",
                  options.baseline_dir, baseline.analysis.ranks.size(), options.current_dir,
                  current.analysis.ranks.size(), FixedDouble(options.threshold, 2));
  text += FigureLine("slowest rank step median", before.slowest_rank_step_ns,
                     after.slowest_rank_step_ns, fmt::format(" (rank {})", before.slowest_rank),
                     fmt::format(" (rank {})", after.slowest_rank), options.threshold, failed);
  text += FigureLine("median rank step median", before.median_rank_step_ns,
                     after.median_rank_step_ns, "", "", options.threshold, failed);
  if (baseline.analysis.ranks.size() != current.analysis.ranks.size()) {
    text += fmt::format("note: the runs have different rank counts ({} and {})\n",
                        baseline.analysis.ranks.size(), current.analysis.ranks.size());
  }
  size_t unread = baseline.failed.size() + current.failed.size();
  if (unread > 0) text += fmt::format("note: {} trace(s) could not be read\n", unread);
  text += fmt::format("verdict: {}\n", failed ? "FAIL" : "PASS");
  EmitOutput(output, text);
  if (failed) return kExitCheckFailed;
  size_t lost = baseline.traces_with_loss + current.traces_with_loss;
  if (output.strict && (unread > 0 || lost > 0)) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace gpuroof
