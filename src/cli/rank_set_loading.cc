#include "rank_set_loading.h"

#include <algorithm>
// glibc's allocator is tuned below. Not under AddressSanitizer: it replaces malloc, and
// malloc_trim() then walks glibc arenas it never set up (a SEGV, about 1 run in 100 with
// --jobs 3).
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#define GPUROOF_TUNE_GLIBC_MALLOC 1
#include <malloc.h>
#endif
#include <mutex>
#include <numeric>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "gpuroof/analyses/rank_set.h"
#include "gpuroof/model/diagnostics.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/parallel_for.h"
#include "gpuroof/readers/reader_registry.h"

#include "output_options.h"
#include "rank_inputs.h"

namespace gpuroof {

namespace {

// The collectives of the traces read so far, shared by the reading threads.
struct SharedTally {
  std::mutex mutex;
  CollectiveTally tally;
};

LoadedRank LoadRank(const std::string& path, uint32_t input, const ReadOptions& read_options,
                    const RankSummaryOptions& summary_options, SharedTally& collectives) {
  LoadedRank loaded;
  try {
    Trace trace = ReadTrace(path, read_options);
    if (trace.diagnostics.records_skipped() > 0) {
      loaded.diagnostics_summary = trace.diagnostics.Summary();
    }
    loaded.data_loss = trace.diagnostics.has_data_loss();
    loaded.reader_notes = trace.diagnostics.notes();
    loaded.summary = SummarizeRank(trace, summary_options);
    for (const SkipCount& skip : trace.diagnostics.skips()) {
      if (skip.severity != Severity::kInfo) loaded.summary->records_lost += skip.count;
    }
  } catch (const InputError& error) {
    loaded.error = error.what();
  }
  if (loaded.summary) {
    // Thousands of arrivals per rank: folded now, not kept for the whole set.
    std::lock_guard lock(collectives.mutex);
    collectives.tally.Add(input, *loaded.summary);
    // Swapped out, not assigned `{}`: that would clear them and keep their capacity.
    std::vector<CollectiveArrival>().swap(loaded.summary->collectives);
    std::vector<std::string>().swap(loaded.summary->collective_names);
  }
  // The trace is gone: hand its freed pages back. glibc keeps freed memory in each thread's
  // arena, where the small summaries kept for the whole set pin it, so without this the peak
  // RSS grows with the number of traces rather than with --jobs (docs/performance.md, §13).
#ifdef GPUROOF_TUNE_GLIBC_MALLOC
  malloc_trim(0);
#endif
  return loaded;
}

void Say(const OutputOptions& output, std::string_view kind, const std::string& message) {
  if (!output.quiet) fmt::print(MessageStream(), "gpuroof: {}: {}\n", kind, message);
}

void SayWhatWasLeftOut(const OutputOptions& output, const RankInputs& inputs) {
  if (inputs.not_traces > 0) {
    Say(output, "note",
        fmt::format("{} file{} in the directories {} no trace, left out{}", inputs.not_traces,
                    inputs.not_traces == 1 ? "" : "s", inputs.not_traces == 1 ? "is" : "are",
                    inputs.json_not_traces == 0 ? std::string()
                    : inputs.json_not_traces == inputs.not_traces
                        ? std::string(" (JSON without a top-level traceEvents key)")
                        : fmt::format(" ({} of them JSON without a top-level traceEvents key)",
                                      inputs.json_not_traces)));
  }
  if (inputs.unreadable > 0) {
    Say(output, "note",
        fmt::format("{} file{} in the directories {} neither readable as a trace nor named like "
                    "one, left out (first: {})",
                    inputs.unreadable, inputs.unreadable == 1 ? "" : "s",
                    inputs.unreadable == 1 ? "is" : "are", inputs.first_unreadable));
  }
  if (inputs.directories_again > 0) {
    Say(output, "note",
        fmt::format("{} director{} reached again through a symbolic link (a loop, or a second "
                    "link to one directory), not searched twice",
                    inputs.directories_again, inputs.directories_again == 1 ? "y" : "ies"));
  }
  if (inputs.exported_twice > 0) {
    Say(output, "note",
        fmt::format(
            "{} .nsys-rep file{} left out for the .sqlite export beside it{}",
            inputs.exported_twice, inputs.exported_twice == 1 ? "" : "s",
            inputs.older_exports == 0
                ? ""
                : fmt::format("; {} export{} older than {} .nsys-rep (first: {}): "
                              "re-export to read the report's current data",
                              inputs.older_exports, inputs.older_exports == 1 ? " is" : "s are",
                              inputs.older_exports == 1 ? "its" : "their",
                              inputs.first_older_export)));
  }
}

}  // namespace

LoadedRanks LoadRanks(const std::vector<std::string>& paths, const std::vector<size_t>& indices,
                      const RankSetLoad& load) {
  unsigned jobs = load.jobs > 0 ? static_cast<unsigned>(load.jobs)
                                : std::max(1u, std::thread::hardware_concurrency());
  ReadOptions read_options;
  read_options.detail = ReadDetail::kFull;
  read_options.api_calls = true;            // the idle breakdown looks up each op's launch
  read_options.launch_ends_only = true;     // ... and needs no more of it than when it ended
  read_options.threads = jobs > 1 ? 1 : 0;  // parallel across traces, not within one
  RankSummaryOptions summary_options;
  summary_options.iteration_range = load.iteration_range;

  // Streaming: each job reads one trace, reduces it to its summary and drops it, so at most
  // `jobs` traces are in memory at once.
#ifdef GPUROOF_TUNE_GLIBC_MALLOC
  // A fixed threshold: blocks of 1 MiB and more (the JSON parser's buffers, the trace's columns)
  // are mapped for each trace and unmapped when it is dropped. glibc's default raises the
  // threshold after the first such free and then serves them from the arenas, which keep the
  // pages: 64 traces then peaked at 41 MiB with --jobs 1 instead of 31 (docs/performance.md,
  // §13).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
  LoadedRanks loaded;
  loaded.ranks.resize(indices.size());
  SharedTally collectives;
  ParallelFor(
      indices.size(),
      [&](size_t k) {
        loaded.ranks[k] = LoadRank(paths[indices[k]], static_cast<uint32_t>(indices[k]),
                                   read_options, summary_options, collectives);
      },
      jobs);
  loaded.collectives = std::move(collectives.tally);
  return loaded;
}

LoadedRankSet LoadRankSet(const RankSetLoad& load, const OutputOptions& output,
                          RankSetSpread* spread) {
  RankInputs inputs = FindRankInputs(load.inputs);
  SayWhatWasLeftOut(output, inputs);
  LoadedRanks loaded;
  if (spread != nullptr) {
    loaded = spread->LoadAll(inputs.paths, load);
  } else {
    std::vector<size_t> all(inputs.paths.size());
    std::iota(all.begin(), all.end(), size_t{0});
    loaded = LoadRanks(inputs.paths, all, load);
  }

  LoadedRankSet set;
  std::vector<RankSummary> summaries;
  std::vector<uint32_t> input_of_summary;
  for (size_t i = 0; i < loaded.ranks.size(); ++i) {
    LoadedRank& rank = loaded.ranks[i];
    if (!rank.diagnostics_summary.empty()) {
      Say(output, "warning", fmt::format("{}: {}", inputs.paths[i], rank.diagnostics_summary));
    }
    for (const std::string& note : rank.reader_notes)
      Say(output, "note", fmt::format("{}: {}", inputs.paths[i], note));
    if (rank.data_loss) ++set.traces_with_loss;
    if (!rank.summary) {
      set.failed.push_back({inputs.paths[i], rank.error});
      // Said under --quiet too: a rank missing from the result is no diagnostic summary, and a
      // CSV has no place for it (docs/cli.md, "gpuroof ranks").
      if (load.label.empty())
        fmt::print(MessageStream(), "gpuroof: warning: not analysed: {}\n", rank.error);
      continue;
    }
    summaries.push_back(std::move(*rank.summary));
    input_of_summary.push_back(static_cast<uint32_t>(i));
  }
  if (summaries.empty()) {
    throw InputError(!load.label.empty()        ? load.label
                     : inputs.paths.size() == 1 ? inputs.paths.front()
                                                : std::string("ranks"),
                     fmt::format("none of the {} traces could be analysed (first: {})",
                                 inputs.paths.size(), set.failed.front().message));
  }
  set.analysis = AnalyseRankSet(std::move(summaries), OutlierRule{}, loaded.collectives,
                                input_of_summary, inputs.paths.size());
  // compare's job mode reads two sets: each warning says which side it is about.
  for (const std::string& warning : set.analysis.warnings)
    Say(output, "warning", load.label.empty() ? warning : load.label + ": " + warning);
  return set;
}

}  // namespace gpuroof
