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
  // 3: kernels are keyed by their demangled name (as Kineto names them), kernel shares leave
  //    collectives out, and the line records its iteration range.
  // 4: warm-up cuts leave at least 3 MSER batches, GPU idle is measured over disjoint windows,
  //    and the line records its device count.
  int rules = 1;
  // The --iteration-range the line was measured with ("" without iterations); unknown when the
  // line does not say (has_iteration_range false: written before rules 3).
  std::string iteration_range;
  bool has_iteration_range = false;
  // The --kernel-key its "kernel:" ids were keyed by ("launch", "name", "demangled"); unknown when
  // the line does not say (written before lines recorded it).
  std::string kernel_key;
  bool has_kernel_key = false;
  bool has_device = false;  // the line has "device" (a line without it cannot be checked)
  // The number of active GPUs of the run ("device_count"); unknown when the line does not say
  // (written before rules 4).
  size_t device_count = 0;
  bool has_device_count = false;
  // The SHA-256 of the trace the line summarizes ("trace_sha256", 64 hex digits): a trace
  // appended twice is refused by it. "" when the line does not say (written before lines
  // recorded it, or a trace that is not a regular file).
  std::string trace_sha256;
  std::string path;  // "path": the trace as given when the line was written ("" when absent)
  size_t line = 0;   // 1-based line in the history file (0: not read from a file)
};

// The revision of the metric definitions this build writes (HistoryEntry::rules).
inline constexpr int kHistoryRules = 4;

// The id of the history row of the compute kernel time per launch at the current run's mix
// (kernel-only runs): computed at compare time from each line's kernel medians, weighted by the
// current run's launches (before each kernel's warm-up trim, as the two-sided row counts them),
// collectives left out; never stored
// in a line (docs/metrics.md, "History statistics").
inline constexpr std::string_view kKernelTotalId = "kernel-total";

// The run summaries of a profile, as a history line stores them.
HistoryEntry HistoryEntryOf(const ProfileSummary& profile);

// Whether the history compares a line's metric id: "iteration", "kernel:", "range:", "busy:" and
// "copy:" ids. The others a line stores ("idle:", "launches", "bytes") are for reports only, and
// their definitions may change between builds without a new "rules".
bool HistoryComparesId(const std::string& id);

// Parses JSONL text: one object per non-empty line with "device" (string), "device_count"
// (number), "iteration_range" (string), "kernel_key" (string), "rules" (number), "path" and
// "trace_sha256" (strings) and "metrics" (object of id -> number); other members are ignored.
// Throws InputError "SOURCE:LINE: problem", also for a negative metric value, one over 7 days,
// a zero iteration time (run summaries that cannot be measurements) and a "rules" that is not a
// whole number >= 1. Other zeros are read (compared with a 1 ns floor).
std::vector<HistoryEntry> ParseHistory(std::string_view text, const std::string& source);

// Fewer entries than this give LOW-N verdicts (§3.1: >= 5, ideally >= 10).
inline constexpr size_t kHistoryMinEntries = 5;

// Tests the current profiles (their mean log run summary) against the history of each metric.
// Lines of another iteration range are left out, and the kernel rows of lines keyed by another
// --kernel-key (their other metrics still count); both said with their count. Throws InputError
// when the current profiles differ from each other in GPU model or device count, the history's
// device or device count differs from theirs, no history line is left, no metric is present in
// both, a --gate-range names a range neither has, or both have kernels but no kernel key in
// common. Without iterations the compute kernel time per launch at this run's launch mix
// ("kernel-total") is gated too, over the kernels in every line with kernel rows; kernels left
// out are said with the share of the time covered (under 90 %: a reason), and no kernel in
// common leaves the row absent, a reason.
CompareResult CompareWithHistory(std::span<const HistoryEntry> history,
                                 std::span<const ProfileSummary> current,
                                 const GateSettings& settings, const std::string& history_source);

}  // namespace gpuroof
