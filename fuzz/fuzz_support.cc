#include "fuzz_support.h"

#include <fstream>
#include <string>

#include <unistd.h>

#include "gpuroof/analyses/copy_summary.h"
#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/findings/findings.h"
#include "gpuroof/analyses/gpu_gaps.h"
#include "gpuroof/analyses/kernel_summary.h"
#include "gpuroof/analyses/range_summary.h"
#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/analyses/rank_summary.h"
#include "gpuroof/analyses/regression/profile_samples.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"

namespace gpuroof::fuzz {

namespace {

template <typename Analysis>
void Guarded(Analysis&& analysis) {
  try {
    analysis();
  } catch (const InputError&) {
    // A clean refusal (no GPU work, no ranges, a window that does not fit): not a finding.
  }
}

}  // namespace

void RunAnalyses(const Trace& trace) {
  for (const char* window : {"processing", "all"}) {
    Guarded([&] {
      EngineLoadOptions options;
      options.window = ParseWindowSpec(window);
      ComputeEngineLoad(trace, options);
    });
    Guarded([&] {
      KernelSummaryOptions options;
      options.window = ParseWindowSpec(window);
      ComputeKernelSummary(trace, options);
    });
    Guarded([&] {
      CopySummaryOptions options;
      options.window = ParseWindowSpec(window);
      ComputeCopySummary(trace, options);
    });
    Guarded([&] {
      FindingsOptions options;
      options.window = ParseWindowSpec(window);
      ComputeFindings(trace, options);
    });
  }
  // `ranks`: the trace summarised as a rank, then as each of two ranks of a set (their collective
  // arrivals tie everywhere), the collectives folded as `ranks` folds them.
  Guarded([&] {
    RankSummary rank = SummarizeRank(trace, {});
    AnalyseRankSet({rank, rank}, OutlierRule{});
    CollectiveTally tally;
    tally.Add(0, rank);
    tally.Add(1, rank);
    AnalyseRankSet({rank, rank}, OutlierRule{}, tally, {0, 1}, 2);
  });
  Guarded([&] { ComputeGaps(trace, GapOptions{1}); });
  Guarded([&] { SummarizeRanges(trace, RangeSummaryOptions{}); });
  Guarded([&] {
    ProfileOptions options;
    options.engine_totals = true;
    SummarizeProfile(trace, options);
  });
  if (!trace.nvtx_ranges.empty()) {
    const std::string name(trace.strings.Get(trace.nvtx_ranges.front().name));
    Guarded([&] { SummarizeRanges(trace, RangeSummaryOptions{name, std::nullopt}); });
    Guarded([&] {
      ProfileOptions options;
      options.iteration_range = name;
      SummarizeProfile(trace, options);
    });
    Guarded([&] { SummarizeRank(trace, RankSummaryOptions{name}); });
    Guarded([&] {
      FindingsOptions options;
      options.iteration_range = name;
      ComputeFindings(trace, options);
    });
  }
}

void SummariseAsRank(const Trace& trace) {
  Guarded([&] { SummarizeRank(trace, {}); });
}

std::filesystem::path WriteScratchFile(std::string_view bytes, std::string_view suffix) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("gpuroof_fuzz_" + std::to_string(::getpid()) + std::string(suffix));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

}  // namespace gpuroof::fuzz
