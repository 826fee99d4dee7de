#include "gpuroof/analyses/regression/history_append.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// The medians a line holds that the history compares (HistoryComparesId): its GPU idle, launches
// and bytes are for reports only, and their definitions changed between builds of one "rules"
// (an old line of the same run holds another idle).
std::map<std::string, double> ComparedMedians(const HistoryEntry& entry) {
  std::map<std::string, double> compared;
  for (const auto& [id, median] : entry.medians)
    if (HistoryComparesId(id)) compared.emplace(id, median);
  return compared;
}

// The line holds the same run summaries as the entry: the same rules and every compared median
// equal to the last digit.
bool SameSummaries(const HistoryEntry& line, const HistoryEntry& entry) {
  if (line.rules != entry.rules) return false;
  const std::map<std::string, double> compared = ComparedMedians(line);
  return !compared.empty() && compared == ComparedMedians(entry);
}

// The summaries include an iteration time or a kernel: enough figures that two runs do not
// share them all to the last digit.
bool HoldsIterationOrKernel(const HistoryEntry& entry) {
  return std::ranges::any_of(entry.medians, [](const auto& metric) {
    return metric.first == "iteration" || metric.first.rfind("kernel:", 0) == 0;
  });
}

}  // namespace

// A line appended to a history must be comparable with the lines there: another GPU model or
// number of active GPUs would make every later `--history` compare exit 2, and another iteration
// range or kernel key would leave the line (or the history) out of later compares. Compared with
// the history's last line that records each.
void CheckAppendable(const std::vector<HistoryEntry>& history, const HistoryEntry& entry,
                     const std::string& history_path, const std::string& trace) {
  auto last_with = [&](bool HistoryEntry::*has) -> const HistoryEntry* {
    for (auto it = history.rbegin(); it != history.rend(); ++it) {
      if ((*it).*has) return &*it;
    }
    return nullptr;
  };
  auto refuse = [&](const HistoryEntry& line, std::string_view what, const std::string& theirs,
                    const std::string& ours) {
    // line 0: a run given in this call, not a line of the file.
    if (line.line == 0) {
      throw InputError(trace, fmt::format("not appended to {}: another run given with it was "
                                          "measured with {} '{}', this run with '{}'; one "
                                          "history holds runs of one kind: append them "
                                          "separately, to their own history files",
                                          history_path, what, theirs, ours));
    }
    throw InputError(trace, fmt::format("not appended to {}: its lines (last: line {}) were "
                                        "measured with {} '{}', this run with '{}'; append it "
                                        "to another history file",
                                        history_path, line.line, what, theirs, ours));
  };
  if (const HistoryEntry* line = last_with(&HistoryEntry::has_device);
      line != nullptr && line->device != entry.device) {
    refuse(*line, "the GPU model", line->device, entry.device);
  }
  if (const HistoryEntry* line = last_with(&HistoryEntry::has_device_count);
      line != nullptr && line->device_count != entry.device_count) {
    refuse(*line, "the number of active GPUs", std::to_string(line->device_count),
           std::to_string(entry.device_count));
  }
  if (const HistoryEntry* line = last_with(&HistoryEntry::has_iteration_range);
      line != nullptr && line->iteration_range != entry.iteration_range) {
    refuse(*line, "--iteration-range", line->iteration_range, entry.iteration_range);
  }
  if (const HistoryEntry* line = last_with(&HistoryEntry::has_kernel_key);
      line != nullptr && line->kernel_key != entry.kernel_key) {
    refuse(*line, "--kernel-key", line->kernel_key, entry.kernel_key);
  }
}

// A run appended twice would be two runs with no run-to-run noise between them, and narrow the
// band of every later compare: refused (exit 2), as compare refuses a trace twice, or a copy of
// one, on a side. A line is the same run when it records the same trace SHA-256 (the same bytes);
// a line that records none (written before lines did), when it names the same trace
// (LineNamesTrace: any spelling of its path) and holds the same run summaries under the same
// rules. One trace summarized twice gives the same medians; runs of a synthetic or
// whole-microsecond trace can share medians, not their path too. Medians identical to the last
// digit under one path are as good as the same run, but the line cannot prove it: the error names
// the lines to remove if it is another run (the line appended in their place holds the same
// summaries). A line of another trace SHA-256 that holds the same summaries, every compared
// median to the last digit and an iteration time or a kernel among them, under the same file
// name less its trace suffixes (RunStem), is another file of the same run (x.json of x.json.gz, an
// .nsys-rep and its .sqlite export), most likely: appended with a warning naming the line, since
// two runs of a whole-microsecond trace named alike can share every median.
// RunStem: a trace's file name without its trace suffixes: "x" for x.json.gz, x.json, x.nsys-rep
// and x.sqlite (another file of one run keeps the name: gunzip, nsys export).
std::string RunStem(const std::string& path) {
  std::filesystem::path name = std::filesystem::path(path).filename();
  static const std::set<std::string> kSuffixes = {".gz",       ".json",  ".sqlite", ".sqlite3",
                                                  ".nsys-rep", ".qdrep", ".db"};
  while (kSuffixes.contains(name.extension().string()))
    name = name.stem();
  return name.string();
}

// Refuses a run the history already holds; returns a warning (empty when none) for lines of
// other bytes with this run's summaries under its name: most likely another file of the same run
// (x.json of x.json.gz, an .nsys-rep and its export), but two runs of a whole-microsecond trace
// can share every median too, so that is said, not refused: a refusal there would stop a CI job
// that names each run alike.
std::string CheckNotAppended(const std::vector<HistoryEntry>& history, const HistoryEntry& entry,
                             const std::string& history_path, const std::string& trace,
                             const LineNamesTrace& names_trace) {
  std::vector<size_t> unhashed;   // lines of the file without a hash that hold this run
  std::vector<size_t> rehashed;   // lines of another trace's bytes that hold this run's summaries
  bool rehashed_in_call = false;  // the same, for a trace given in this call
  for (const HistoryEntry& line : history) {
    const bool hashed = !line.trace_sha256.empty() && !entry.trace_sha256.empty();
    const bool same_bytes = hashed && line.trace_sha256 == entry.trace_sha256;
    // Another file of the same run (x.json of x.json.gz, an .nsys-rep and its .sqlite export)
    // has other bytes and the same summaries, to the last digit, of an iteration or a kernel.
    // Named alike too: runs of a synthetic or whole-microsecond trace can share medians.
    const bool other_file = hashed && !same_bytes && !line.path.empty() &&
                            RunStem(line.path) == RunStem(trace) && SameSummaries(line, entry) &&
                            HoldsIterationOrKernel(entry);
    const bool same =
        same_bytes || other_file || (!hashed && SameSummaries(line, entry) && names_trace(line));
    if (!same) continue;
    if (other_file && line.line == 0) {
      rehashed_in_call = true;
      continue;
    }
    if (!same_bytes && line.line != 0) {
      (hashed ? rehashed : unhashed).push_back(line.line);
      continue;
    }
    throw InputError(
        trace,
        fmt::format("not appended to {}: {} already holds this run ({}); a run appended "
                    "twice narrows the band of every later compare: append each run once",
                    history_path,
                    line.line == 0 ? std::string("another run given with it")
                                   : fmt::format("its line {}", line.line),
                    same_bytes ? "the same trace bytes, SHA-256 " + line.trace_sha256.substr(0, 12)
                               : std::string("the same run summaries")));
  }
  auto lines_of = [](const std::vector<size_t>& found) {
    return found.size() == 1 ? fmt::format("line {}", found.front())
                             : fmt::format("lines {}", fmt::join(found, ", "));
  };
  if (unhashed.empty()) {
    if (rehashed.empty() && !rehashed_in_call) return {};
    return fmt::format(
        "{}: appended to {}, {} the same run summaries, to the last digit, from a file of the "
        "same name with other bytes: if that is this run in another file (x.json and "
        "x.json.gz, an .nsys-rep and its .sqlite export), remove one of the lines, since a run "
        "appended twice narrows the band of every later compare",
        trace, history_path,
        rehashed.empty() ? std::string("as another trace given with it holds")
                         : fmt::format("whose {} {}", lines_of(rehashed),
                                       rehashed.size() == 1 ? "holds" : "hold"));
  }
  const std::vector<size_t>& found = unhashed;
  const std::string lines = lines_of(found);
  const std::string why = fmt::format(
      "the same run summaries, to the last digit, of a trace of this path; {} "
      "no trace_sha256, written before lines recorded one",
      found.size() == 1 ? "the line records" : "the lines record");
  throw InputError(
      trace,
      fmt::format("not appended to {}: its {} already {} this run ({}); a run appended twice "
                  "narrows the band of every later compare. If this is another run, remove {} "
                  "from {} and append again (this run's line holds the same summaries)",
                  history_path, lines, found.size() == 1 ? "holds" : "hold", why, lines,
                  history_path));
}

}  // namespace gpuroof
