#include "compare_jobs.h"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/message_list.h"
#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/reports/ranks_report.h"

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

// The GPU models of both runs (the analysed device of each rank): a job on other GPUs is a
// different experiment, exit 2 as in the per-profile gate. A trace that names no model is
// "unknown GPU".
void CheckSameGpuModel(const RankSetAnalysis& baseline, const RankSetAnalysis& current) {
  auto model = [](const RankSummary& rank) {
    return rank.device_name.empty() ? std::string("unknown GPU") : rank.device_name;
  };
  auto models = [&](const RankSetAnalysis& set) {
    std::set<std::string> out;
    for (const RankSummary& rank : set.ranks)
      out.insert(model(rank));
    return out;
  };
  const std::set<std::string> before = models(baseline);
  const std::set<std::string> after = models(current);
  if (before == after) return;
  // Name a trace whose model the other run lacks.
  const RankSummary* odd = nullptr;
  for (const RankSummary& rank : current.ranks)
    if (!odd && before.count(model(rank)) == 0) odd = &rank;
  for (const RankSummary& rank : baseline.ranks)
    if (!odd && after.count(model(rank)) == 0) odd = &rank;
  throw InputError(odd ? odd->source : std::string("compare"),
                   fmt::format("not comparable: GPU model(s) '{}' of the current run differ from "
                               "'{}' of the baseline run",
                               fmt::join(after, " + "), fmt::join(before, " + ")));
}

// Both runs must hold the same ranks: a rank whose trace is absent from one run (often the rank
// that crashed or hung, the slow one) would let the gate pass on part of that run. Ranks below
// the world size that neither run has (both profiled the same subset) are compared as they are,
// said. Throws InputError naming the run that lacks ranks the other has, or that has another
// rank count.
std::string CheckSameRanks(const RankSetAnalysis& baseline, const RankSetAnalysis& current,
                           const JobCompareOptions& options) {
  const std::set<int64_t> before(baseline.ids.begin(), baseline.ids.end());
  const std::set<int64_t> after(current.ids.begin(), current.ids.end());
  for (const auto& [set, other, dir] : {std::tuple(&before, &after, options.current_dir),
                                        std::tuple(&after, &before, options.baseline_dir)}) {
    std::vector<std::string> lacking;
    for (int64_t id : *set) {
      if (other->count(id) == 0) lacking.push_back(std::to_string(id));
    }
    if (lacking.empty()) continue;
    throw InputError(dir, fmt::format("lacks rank(s) {} that the other run has: the job-level "
                                      "compare would rest on part of the run",
                                      ListFirst(lacking, 8)));
  }
  if (baseline.ranks.size() != current.ranks.size()) {
    throw InputError(
        options.current_dir,
        fmt::format("not comparable: {} traces, the baseline {} has {}", current.ranks.size(),
                    options.baseline_dir, baseline.ranks.size()));
  }
  const std::optional<int64_t> world =
      baseline.world_size ? baseline.world_size : current.world_size;
  if (!world || static_cast<int64_t>(before.size()) >= *world) return "";
  return fmt::format(
      "note: both runs hold the same {} of the world size's {} ranks: compared on "
      "those\n",
      before.size(), *world);
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
  // A gate rests on every trace it was given: one that cannot be read is exit 2, not a note,
  // said as soon as its side is read (the baseline's, before the current side's notes).
  auto load_side = [&](const std::string& option, const std::string& dir) {
    load.inputs = {dir};
    load.label = option + " " + dir;
    LoadedRankSet side = LoadRankSet(load, output);
    if (side.failed.empty()) return side;
    const FailedTrace& first = side.failed.front();
    // The message names the file already ("PATH: what"): keep what follows.
    std::string_view what = first.message;
    if (what.rfind(first.path + ": ", 0) == 0) what.remove_prefix(first.path.size() + 2);
    const std::string more = side.failed.size() > 1 ? fmt::format(" (and {} more trace(s) in {})",
                                                                  side.failed.size() - 1, dir)
                                                    : std::string();
    throw InputError(first.path,
                     fmt::format("cannot be read, so the job-level compare would rest on part of "
                                 "the run: {}{}",
                                 what, more));
  };
  LoadedRankSet baseline = load_side("--baseline", options.baseline_dir);
  LoadedRankSet current = load_side("--current", options.current_dir);
  CheckSameGpuModel(baseline.analysis, current.analysis);
  const std::string same_subset = CheckSameRanks(baseline.analysis, current.analysis, options);
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
  for (const auto& [side, figures, ranks] :
       {std::tuple("baseline", &before, baseline.analysis.ranks.size()),
        std::tuple("current", &after, current.analysis.ranks.size())}) {
    const size_t n = figures->left_out.size();
    if (n == 0) continue;
    text += fmt::format(
        "note: {}: {} of {} ranks ha{} no step ranges while the others have (whole trace, no "
        "step), left out of both figures: rank{} {}\n",
        side, n, ranks, n == 1 ? "s" : "ve", n == 1 ? "" : "s", JoinRankIds(figures->left_out));
  }
  text += same_subset;
  text += fmt::format("verdict: {}\n", failed ? "FAIL" : "PASS");
  EmitOutput(output, text);
  if (failed) return kExitCheckFailed;
  size_t lost = baseline.traces_with_loss + current.traces_with_loss;
  if (output.strict && lost > 0) return kExitCheckFailed;
  return kExitOk;
}

}  // namespace gpuroof
