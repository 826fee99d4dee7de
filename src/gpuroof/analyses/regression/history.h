// History mode of the regression gate (docs/metrics.md,
// "compare"): earlier main-branch runs, one JSON line each, against which the current run is
// tested with a one-sided prediction interval.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/regression/gate.h"
#include "gpuroof/analyses/regression/profile_samples.h"

namespace gpuroof {

// One line of a history file: a profile's run summaries (the median of its steady samples, ns or
// counts) by metric id, and the device it ran on.
struct HistoryEntry {
  std::string device;
  std::map<std::string, double> medians;
  // The revision of the metric definitions the line was written under ("rules"; 1 when absent).
  // 2: whole-graph launches are GPU compute busy, all-reduce kernels outside NCCL are comm.
  int rules = 1;
};

// The revision of the metric definitions this build writes (HistoryEntry::rules).
inline constexpr int kHistoryRules = 2;

// The run summaries of a profile, as a history line stores them.
HistoryEntry HistoryEntryOf(const ProfileSummary& profile);

// Parses JSONL text: one object per non-empty line with "device" (string) and "metrics" (object
// of id -> number); other members are ignored. Throws InputError "SOURCE:LINE: problem".
std::vector<HistoryEntry> ParseHistory(std::string_view text, const std::string& source);

// Fewer entries than this give LOW-N verdicts (§3.1: >= 5, ideally >= 10).
inline constexpr size_t kHistoryMinEntries = 5;

// Tests the current profiles (their mean log run summary) against the history of each metric.
// Throws InputError when the history's device differs from the current profiles' or no metric
// is present in both.
CompareResult CompareWithHistory(std::span<const HistoryEntry> history,
                                 std::span<const ProfileSummary> current,
                                 const GateSettings& settings, const std::string& history_source);

}  // namespace gpuroof
