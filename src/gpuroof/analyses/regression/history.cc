#include "gpuroof/analyses/regression/history.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/message_list.h"
#include "gpuroof/analyses/regression/bootstrap.h"
#include "gpuroof/analyses/regression/distributions.h"
#include "gpuroof/analyses/regression/holm.h"
#include "gpuroof/analyses/regression/run_level.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

constexpr double kMaxHistoryNs = 7.0 * 24 * 3600 * 1e9;

// A strict little JSON reader for history lines: enough of RFC 8259 for objects, strings,
// numbers and literals; arrays are skipped. History files are written by this tool, but may be
// edited or truncated by CI scripts, so every problem is a clean InputError.
class LineParser {
 public:
  LineParser(std::string_view text, std::string where) : text_(text), where_(std::move(where)) {}

  // A count or revision number: a whole number from 1; anything else is not a line gpuroof wrote
  // (a cast of 2.7 or 1e10 would silently be another value). `what` names it in the error.
  int ParseWholeNumber(std::string_view key, std::string_view what) {
    const double value = ParseNumber();
    if (!(value >= 1 && value <= 1000000) || value != std::floor(value)) {
      Fail(fmt::format("\"{}\" is {}: {} is a whole number from 1", key, ShortValue(value), what));
    }
    return static_cast<int>(value);
  }

  HistoryEntry ParseEntry() {
    HistoryEntry entry;
    bool has_metrics = false;  // what marks a run summary (docs/formats.md: reading needs it)
    Expect('{');
    if (!Consume('}')) {
      do {
        const std::string key = ParseString();
        Expect(':');
        if (key == "device") {
          entry.device = ParseString();
          entry.has_device = true;
        } else if (key == "device_count") {
          entry.device_count =
              static_cast<size_t>(ParseWholeNumber("device_count", "a device count"));
          entry.has_device_count = true;
        } else if (key == "iteration_range") {
          entry.iteration_range = ParseString();
          entry.has_iteration_range = true;
        } else if (key == "kernel_key") {
          entry.kernel_key = ParseString();
          entry.has_kernel_key = true;
        } else if (key == "trace_sha256") {
          entry.trace_sha256 = ParseString();
        } else if (key == "path") {
          entry.path = ParseString();
        } else if (key == "rules") {
          entry.rules = ParseWholeNumber("rules", "a metric-rules revision");
        } else if (key == "schema") {
          // Another gpuroof document (a compare result, an analyze JSON) given as a history.
          const std::string schema = ParseString();
          if (schema.rfind("gpuroof.compare-history/", 0) != 0) {
            throw InputError(where_, fmt::format("not a gpuroof run summary: its schema is '{}', "
                                                 "not gpuroof.compare-history/1",
                                                 schema));
          }
        } else if (key == "metrics") {
          has_metrics = true;
          Expect('{');
          if (!Consume('}')) {
            do {
              const std::string id = ParseString();
              Expect(':');
              const double value = ParseNumber();
              // Medians of durations, counts and bytes: never negative. Zero is a measurement
              // gpuroof writes itself (a kernel under a microsecond in a whole-microsecond
              // Kineto trace, an idle engine), so it is read, and compared with a 1 ns floor.
              if (value < 0) {
                Fail(fmt::format("metric '{}' is {}: a run summary must be >= 0", id,
                                 ShortValue(value)));
              }
              // An iteration has a wall time: 0 is no measurement (the 1 ns floor would make
              // the band of every later run -100 %..+1e9 %).
              // Every metric a line holds is a duration (ns); the trace readers skip durations
              // over 7 days, so a larger summary is no measurement (1e300 made a band of
              // +1e300 %).
              if (value > kMaxHistoryNs) {
                Fail(fmt::format("metric '{}' is {} ns, over 7 days: not a run summary", id,
                                 ShortValue(value)));
              }
              if (value == 0 && id == "iteration") {
                Fail("metric 'iteration' is 0: an iteration time must be > 0");
              }
              entry.medians[id] = value;
            } while (Consume(','));
            Expect('}');
          }
        } else {
          SkipValue(0);
        }
      } while (Consume(','));
      Expect('}');
    }
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text after the object");
    if (!has_metrics) {
      throw InputError(where_,
                       "not a gpuroof run summary (no 'metrics' key): a history line is "
                       "one JSON object as written by compare --history-append");
    }
    // compare --history-append never writes a line without a metric (a run has its iteration
    // time or its kernels): `{"metrics":{}}` is no run summary, and would only leave the compare
    // with "no metric is present in both" far from the line.
    if (entry.medians.empty()) {
      throw InputError(where_,
                       "not a gpuroof run summary (no metric: its 'metrics' is empty): a history "
                       "line is one JSON object as written by compare --history-append");
    }
    return entry;
  }

 private:
  static std::string ShortValue(double value) { return fmt::format("{:g}", value); }
  [[noreturn]] void Fail(const std::string& problem) const {
    throw InputError(where_, fmt::format("{} (column {})", problem, pos_ + 1));
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\r' || text_[pos_] == '\n'))
      ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  void Expect(char c) {
    if (!Consume(c)) Fail(fmt::format("expected '{}'", c));
  }
  std::string ParseString() {
    Expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          unsigned code = 0;
          if (pos_ + 4 > text_.size() ||
              std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code, 16).ptr !=
                  text_.data() + pos_ + 4) {
            Fail("bad \\u escape");
          }
          pos_ += 4;
          // History ids are ASCII in practice; keep other code points as UTF-8 (BMP only).
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default:
          out += e;  // \" \\ \/
      }
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }
  double ParseNumber() {
    SkipSpace();
    double value = 0;
    const auto [ptr, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), value);
    if (ec != std::errc() || !std::isfinite(value)) Fail("expected a number");
    pos_ = static_cast<size_t>(ptr - text_.data());
    return value;
  }
  void SkipValue(int depth) {
    if (depth > 64) Fail("nested too deeply");
    SkipSpace();
    if (pos_ >= text_.size()) Fail("expected a value");
    const char c = text_[pos_];
    if (c == '"') {
      ParseString();
    } else if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++pos_;
      if (Consume(close)) return;
      do {
        if (c == '{') {
          ParseString();
          Expect(':');
        }
        SkipValue(depth + 1);
      } while (Consume(','));
      Expect(close);
    } else if (text_.substr(pos_, 4) == "true" || text_.substr(pos_, 4) == "null") {
      pos_ += 4;
    } else if (text_.substr(pos_, 5) == "false") {
      pos_ += 5;
    } else {
      ParseNumber();
    }
  }

  std::string_view text_;
  std::string where_;
  size_t pos_ = 0;
};

bool HistoryLevel(MetricLevel level) {
  return level == MetricLevel::kIteration || level == MetricLevel::kGpuBusy ||
         level == MetricLevel::kKernel || level == MetricLevel::kCopyBusy ||
         level == MetricLevel::kCommBusy || level == MetricLevel::kRange ||
         level == MetricLevel::kKernelTotal;
}

// A compute kernel's launches for the history's compute kernel time row: those before its own
// warm-up trim. The trim varies from run to run (MSER on each kernel's series), and would move
// the mix with it. The two-sided row weights each kernel by the same launches (KernelTotalRow).
double LaunchCount(const SampleSet& set) {
  return static_cast<double>(set.warmup_of > 0 ? set.warmup_of : set.values.size());
}

// The level of a metric id a history line stores, for the rows of ids the current run lacks.
// Unset for ids the history does not compare (launches, bytes, idle).
std::optional<MetricLevel> HistoryLevelOfId(const std::string& id) {
  if (id == "iteration") return MetricLevel::kIteration;
  if (id.rfind("kernel:", 0) == 0) return MetricLevel::kKernel;
  if (id.rfind("range:", 0) == 0) return MetricLevel::kRange;
  if (id.rfind("busy:comm:", 0) == 0) return MetricLevel::kCommBusy;
  if (id.rfind("busy:", 0) == 0) return MetricLevel::kGpuBusy;
  if (id.rfind("copy:", 0) == 0) return MetricLevel::kCopyBusy;
  return std::nullopt;
}

// The row name of a metric id (as SummarizeProfile names it): the key after "kernel:" or
// "range:"; "ENGINE [dev N]" for "busy:ENGINE:N" and "copy:ENGINE:N" (no suffix for position 0).
std::string HistoryNameOfId(const std::string& id, MetricLevel level) {
  if (level == MetricLevel::kIteration) return "iteration";
  const size_t first = id.find(':');
  if (level == MetricLevel::kKernel || level == MetricLevel::kRange) return id.substr(first + 1);
  const size_t last = id.rfind(':');
  std::string name = id.substr(first + 1, last - first - 1);
  const std::string device = id.substr(last + 1);
  if (device != "0") name += " [dev " + device + "]";
  return name;
}

// Where an error about a history line points: FILE:LINE, or FILE for a line read elsewhere.
std::string LineSource(const std::string& history_source, const HistoryEntry& entry) {
  return entry.line > 0 ? fmt::format("{}:{}", history_source, entry.line) : history_source;
}

}  // namespace

HistoryEntry HistoryEntryOf(const ProfileSummary& profile) {
  HistoryEntry entry;
  entry.device = profile.device_model;
  entry.has_device = true;
  entry.device_count = profile.device_count;
  entry.has_device_count = true;
  entry.rules = kHistoryRules;
  entry.iteration_range = profile.iteration_range;
  entry.has_iteration_range = true;
  entry.kernel_key = std::string(KernelKeyName(profile.kernel_key));
  entry.has_kernel_key = true;
  for (const auto& [id, set] : profile.metrics) {
    if (set.values.empty()) continue;
    std::vector<double> values = set.values;
    entry.medians[id] = MedianInPlace(values);
  }
  return entry;
}

std::vector<HistoryEntry> ParseHistory(std::string_view text, const std::string& source) {
  std::vector<HistoryEntry> entries;
  size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    entries.push_back(LineParser(line, fmt::format("{}:{}", source, line_number)).ParseEntry());
    entries.back().line = line_number;
  }
  return entries;
}

CompareResult CompareWithHistory(std::span<const HistoryEntry> all_history,
                                 std::span<const ProfileSummary> current,
                                 const GateSettings& settings, const std::string& history_source) {
  if (current.empty()) throw InputError("compare", "need at least one current profile");
  // The current profiles among themselves: as in the two-sided gate.
  CheckProfilesComparable(current, {}, false);
  const ProfileSummary& reference = current.front();
  CompareResult result;
  result.settings = settings;
  result.mode = CompareMode::kHistory;
  // Lines of another iteration range measure other iterations: left out, with their count.
  std::vector<HistoryEntry> history;
  size_t other_range = 0;
  std::set<std::string> other_ranges;
  for (const HistoryEntry& entry : all_history) {
    if (entry.has_iteration_range && entry.iteration_range != reference.iteration_range) {
      ++other_range;
      other_ranges.insert(entry.iteration_range.empty() ? "(none)" : entry.iteration_range);
      continue;
    }
    history.push_back(entry);
  }
  const std::string range_text =
      reference.iteration_range.empty() ? std::string("(none)") : reference.iteration_range;
  if (!all_history.empty() && history.empty()) {
    throw InputError(history_source,
                     fmt::format("not comparable: all {} history entries were recorded with "
                                 "--iteration-range {}, the current run with {}",
                                 all_history.size(), fmt::join(other_ranges, ", "), range_text));
  }
  if (other_range > 0) {
    result.warnings.push_back(
        fmt::format("{} of {} history entries left out: recorded with --iteration-range {}, not {}",
                    other_range, all_history.size(), fmt::join(other_ranges, ", "), range_text));
    result.history_left_out.push_back(fmt::format("{} recorded with --iteration-range {}",
                                                  other_range, fmt::join(other_ranges, ", ")));
  }
  result.history_entries = all_history.size();
  result.history_used = history.size();
  // Kernel rows keyed by another --kernel-key name other groups of launches (a name, a launch
  // shape): they never meet this run's rows, so they are left out of those lines, said; the
  // lines' other metrics still count.
  const std::string key_text(KernelKeyName(reference.kernel_key));
  size_t other_key = 0;
  std::set<std::string> other_keys;
  for (HistoryEntry& entry : history) {
    if (!entry.has_kernel_key || entry.kernel_key == key_text) continue;
    ++other_key;
    other_keys.insert(entry.kernel_key);
    // So they are out of the compute kernel time row too (it sums the kernels' medians).
    std::erase_if(entry.medians, [](const auto& metric) {
      return HistoryLevelOfId(metric.first) == MetricLevel::kKernel;
    });
  }
  const bool current_has_kernels =
      std::any_of(current.begin(), current.end(), [](const ProfileSummary& p) {
        return std::any_of(p.metrics.begin(), p.metrics.end(), [](const auto& metric) {
          return metric.second.level == MetricLevel::kKernel && !metric.second.values.empty();
        });
      });
  if (other_key > 0 && other_key == history.size() && current_has_kernels) {
    // No line could gate a kernel: a gate that silently stopped gating kernels would pass.
    throw InputError(history_source,
                     fmt::format("not comparable: all {} history entries were recorded with "
                                 "--kernel-key {}, the current run with {}; compare with that "
                                 "--kernel-key, or re-seed the history",
                                 history.size(), fmt::join(other_keys, ", "), key_text));
  }
  const auto unkeyed = std::count_if(history.begin(), history.end(), [](const HistoryEntry& e) {
    return !e.has_kernel_key && std::any_of(e.medians.begin(), e.medians.end(), [](const auto& m) {
      return HistoryLevelOfId(m.first) == MetricLevel::kKernel;
    });
  });
  if (unkeyed > 0 && current_has_kernels) {
    // Written before lines recorded the key: a guess, said with its count.
    result.warnings.push_back(fmt::format(
        "{} of {} history entries record no --kernel-key (written before lines did): taken as "
        "keyed by {}, like this run; if they were keyed otherwise, their kernel rows match none "
        "of this run's",
        unkeyed, all_history.size(), key_text));
  }
  if (other_key > 0) {
    result.warnings.push_back(fmt::format(
        "{} of {} history entries were recorded with --kernel-key {}, not {}: their kernel rows "
        "and compute kernel time are left out (their other metrics count)",
        other_key, all_history.size(), fmt::join(other_keys, ", "), key_text));
  }
  size_t without_device = 0;
  for (const HistoryEntry& entry : history) {
    if (!entry.has_device) {
      ++without_device;
      continue;
    }
    if (entry.device != reference.device_model) {
      throw InputError(LineSource(history_source, entry),
                       fmt::format("not comparable: history device '{}' differs from '{}' in {}",
                                   entry.device, reference.device_model, reference.path));
    }
  }
  if (without_device > 0) {
    result.warnings.push_back(fmt::format(
        "{} of {} history entries record no device: their GPU model was not checked against "
        "'{}'",
        without_device, history.size(), reference.device_model));
  }
  // The number of active GPUs, as the GPU model: lines of another count measured another setup
  // (their per-device metric ids and totals differ), so the history is refused, as the two-sided
  // gate refuses profiles of another device count.
  size_t without_count = 0;
  size_t other_count = 0;
  const HistoryEntry* first_other_count = nullptr;
  std::set<size_t> other_counts;
  for (const HistoryEntry& entry : history) {
    if (!entry.has_device_count) {
      ++without_count;
    } else if (entry.device_count != reference.device_count) {
      ++other_count;
      other_counts.insert(entry.device_count);
      if (first_other_count == nullptr) first_other_count = &entry;
    }
  }
  if (other_count > 0) {
    throw InputError(
        LineSource(history_source, *first_other_count),
        fmt::format("not comparable: {} of {} history entries were recorded on {} active GPU(s), "
                    "{} on {}; compare with a history of runs on {} GPU(s)",
                    other_count, history.size(), fmt::join(other_counts, " or "), reference.path,
                    reference.device_count, reference.device_count));
  }
  if (without_count > 0) {
    result.warnings.push_back(fmt::format(
        "{} of {} history entries record no device count (written before rules 4): their number "
        "of active GPUs was not checked against this run's {}",
        without_count, history.size(), reference.device_count));
  }
  const auto older = std::count_if(history.begin(), history.end(), [](const HistoryEntry& entry) {
    return entry.rules < kHistoryRules;
  });
  if (older > 0) {
    result.warnings.push_back(fmt::format(
        "{} of {} history entries were written under earlier metric rules: since then whole-graph "
        "CUDA launches count as GPU compute busy and all-reduce kernels outside NCCL as "
        "communication (rules 2), kernels are keyed by their demangled name, so kernel rows of "
        "older lines do not match (NEW/REMOVED), kernel shares leave collectives out, and lines "
        "record their iteration range, which older lines do not (rules 3), warm-up cuts leave "
        "at least 3 MSER batches, captures of 7 to 19 iterations drop a warm-up found on single "
        "iterations, GPU idle is measured over disjoint windows (the last one a period long), and "
        "lines record their device count (rules 4); re-seed the history to compare like with "
        "like",
        older, history.size()));
  }
  const auto newer = std::count_if(history.begin(), history.end(), [](const HistoryEntry& entry) {
    return entry.rules > kHistoryRules;
  });
  if (newer > 0) {
    result.warnings.push_back(fmt::format(
        "{} of {} history entries were written under newer metric rules (up to {}) than this "
        "gpuroof knows ({}): their metrics may be defined otherwise; compare with the gpuroof "
        "that wrote them",
        newer, history.size(),
        std::max_element(
            history.begin(), history.end(),
            [](const HistoryEntry& l, const HistoryEntry& r) { return l.rules < r.rules; })
            ->rules,
        kHistoryRules));
  }
  // GPU compute busy of 0 in a line: a device idle in most iterations, or a broken line; read
  // with the 1 ns floor, it widens the band of every later run. Said with FILE:LINE.
  std::vector<std::string> zero_busy;
  for (const HistoryEntry& entry : history) {
    for (const auto& [id, value] : entry.medians) {
      if (value == 0 && id.rfind("busy:kernel:", 0) == 0) {
        zero_busy.push_back(entry.line > 0
                                ? fmt::format("{}:{} ({})", history_source, entry.line, id)
                                : fmt::format("{} ({})", history_source, id));
      }
    }
  }
  if (!zero_busy.empty()) {
    result.warnings.push_back(fmt::format(
        "{} history value(s) of GPU compute busy are 0 (read as 1 ns, which widens the band of "
        "every metric they are in): {}",
        zero_busy.size(), ListFirst(zero_busy, 3)));
  }
  // Rules 3 on record the iteration range: a line of those rules without it is said here.
  const auto unranged = std::count_if(history.begin(), history.end(), [](const HistoryEntry& e) {
    return e.rules >= 3 && !e.has_iteration_range;
  });
  if (unranged > 0) {
    result.warnings.push_back(fmt::format(
        "{} of {} history entries record no iteration range: compared as if measured with "
        "--iteration-range {}",
        unranged, history.size(), range_text));
  }
  double kernel_time = 0;
  for (const ProfileSummary& p : current)
    kernel_time += p.kernel_time_ns;
  std::map<std::string, std::vector<double>> now;  // id -> log run summaries of current
  std::map<std::string, const SampleSet*> sets;
  std::map<std::string, double> totals;
  for (const ProfileSummary& p : current) {
    for (const auto& [id, set] : p.metrics) {
      if (set.values.empty() || !HistoryLevel(set.level)) continue;
      std::vector<double> values = set.values;
      now[id].push_back(std::log(std::max(MedianInPlace(values), 1.0)));
      sets[id] = &set;
      totals[id] += set.total;
    }
  }
  // Kernel-only runs: the compute kernels' time at this run's launch mix is gated like the other
  // metrics, so a regression spread over many kernels (none gated alone) fails (the two-sided
  // gate's "compute kernel time" row). Computed here from each line's kernel medians, with this
  // run's launch counts on both sides: a per-launch mean of each run's own mix moved with the mix,
  // so more cheap launches hid a slower big kernel (docs/metrics.md, "History statistics").
  const std::string total_id(kKernelTotalId);
  SampleSet total_set;
  total_set.level = MetricLevel::kKernelTotal;
  total_set.name = "compute kernel time / launch (this run's mix)";
  std::vector<double> total_past;          // each line's log time per launch at this run's mix
  std::vector<std::string> total_reasons;  // verdict reasons: row absent, or low coverage
  const bool kernel_only = std::none_of(current.begin(), current.end(),
                                        [](const ProfileSummary& p) { return p.has_iterations; });
  if (kernel_only) {
    // This run's compute kernels (collectives left out): launches summed over its profiles.
    std::map<std::string, double> launches;
    for (const ProfileSummary& p : current) {
      for (const auto& [id, set] : p.metrics) {
        if (set.level == MetricLevel::kKernel && !set.values.empty() && !CollectiveKernel(set.name))
          launches[id] += LaunchCount(set);
      }
    }
    // The lines with kernel rows (of this --kernel-key: the others' were dropped above).
    std::vector<const HistoryEntry*> lines;
    for (const HistoryEntry& entry : history) {
      if (std::any_of(entry.medians.begin(), entry.medians.end(), [](const auto& metric) {
            return HistoryLevelOfId(metric.first) == MetricLevel::kKernel;
          }))
        lines.push_back(&entry);
    }
    // The lines the row compares with. Kernels added since the history began are in its later
    // lines only, and would be left out of a sum over every line. So: this run's kernels held by
    // at least kHistoryMinEntries lines, grouped by the lines that hold them (the kernels of one
    // change go together), most time first, each group kept while at least that many lines hold
    // all those kept so far, and only when it holds 1 % of this run's compute kernel time or more
    // if it leaves lines out (fewer lines widen the band). Their lines are used when that covers
    // at least 1 % more of the time than the kernels every line holds; otherwise every line.
    auto in_line = [](const HistoryEntry* e, const std::string& id) {
      return e->medians.count(id) > 0;
    };
    double whole_time = 0;
    double every_line_time = 0;
    // Each kernel is looked up in the lines once: the line indices that hold it (a key of
    // time_of_line_set, which sums the kernels' time per such set).
    std::map<std::vector<size_t>, double> time_of_line_set;
    std::map<std::string, const std::vector<size_t>*> lines_of;  // kernel id -> its line set
    for (const auto& [id, count] : launches) {
      whole_time += totals[id];
      std::vector<size_t> holding;
      for (size_t i = 0; i < lines.size(); ++i) {
        if (in_line(lines[i], id)) holding.push_back(i);
      }
      if (!lines.empty() && holding.size() == lines.size()) every_line_time += totals[id];
      const auto group = time_of_line_set.try_emplace(std::move(holding), 0.0).first;
      group->second += totals[id];
      lines_of[id] = &group->first;
    }
    std::vector<std::pair<double, std::vector<size_t>>> by_time;
    for (const auto& [line_set, time] : time_of_line_set) {
      if (line_set.size() >= kHistoryMinEntries) by_time.emplace_back(time, line_set);
    }
    std::sort(by_time.begin(), by_time.end(), std::greater<>());
    // One pass of that rule, optionally taking the group by_time[first] before the others.
    auto choose = [&](std::optional<size_t> first) {
      std::vector<size_t> chosen(lines.size());
      for (size_t i = 0; i < chosen.size(); ++i)
        chosen[i] = i;
      double chosen_time = 0;
      auto take = [&](size_t group) {
        const auto& [time, line_set] = by_time[group];
        std::vector<size_t> holding;
        std::set_intersection(chosen.begin(), chosen.end(), line_set.begin(), line_set.end(),
                              std::back_inserter(holding));
        if (holding.size() < kHistoryMinEntries) return;
        if (holding.size() < chosen.size() && time < 0.01 * whole_time) return;
        chosen = std::move(holding);
        chosen_time += time;
      };
      if (first) take(*first);
      for (size_t group = 0; group < by_time.size(); ++group) {
        if (group != first) take(group);
      }
      return std::pair(std::move(chosen), chosen_time);
    };
    std::vector<size_t> chosen;
    double chosen_time = 0;
    std::tie(chosen, chosen_time) = choose(std::nullopt);
    // Nearly equal coverage (within 1 % of this run's compute kernel time of the pass above):
    // the newest lines, which hold main as it is now (a kernel made slower on purpose, since
    // accepted).
    const double most_time = chosen_time;
    // Newer: the later latest line, then the later next one, and so on (a set that only adds
    // older lines to another is not newer).
    auto is_newer = [](const std::vector<size_t>& a, const std::vector<size_t>& b) {
      const auto [in_a, in_b] = std::mismatch(a.rbegin(), a.rend(), b.rbegin(), b.rend());
      return in_a != a.rend() && in_b != b.rend() && *in_a > *in_b;
    };
    for (size_t group = 0; group < by_time.size(); ++group) {
      auto [other, other_time] = choose(group);
      if (other_time >= most_time - 0.01 * whole_time && is_newer(other, chosen)) {
        chosen = std::move(other);
        chosen_time = other_time;
      }
    }
    std::vector<size_t> used(lines.size());  // the line indices the row rests on
    for (size_t i = 0; i < used.size(); ++i)
      used[i] = i;
    if (chosen.size() < lines.size() && whole_time > 0 &&
        chosen_time - every_line_time >= 0.01 * whole_time) {
      result.warnings.push_back(fmt::format(
          "compute kernel time / launch rests on the {} of {} history entries with kernel rows "
          "that hold this run's kernels of most time together ({:.1f}% of its compute kernel "
          "time, against {:.1f}% in every entry); the other {} lack some of them",
          chosen.size(), lines.size(), 100.0 * chosen_time / whole_time,
          100.0 * every_line_time / whole_time, lines.size() - chosen.size()));
      std::vector<const HistoryEntry*> chosen_lines;
      for (size_t i : chosen)
        chosen_lines.push_back(lines[i]);
      lines = std::move(chosen_lines);
      used = std::move(chosen);
    }
    // S: this run's kernels whose line set holds every line used (looked up above, not again).
    std::vector<std::string> shared;
    double shared_time = 0;
    for (const auto& [id, count] : launches) {
      const std::vector<size_t>& holding = *lines_of.at(id);
      if (lines.empty() || !std::includes(holding.begin(), holding.end(), used.begin(), used.end()))
        continue;
      shared.push_back(id);
      shared_time += totals[id];
    }
    if (!launches.empty() && shared.empty()) {
      const std::string absent =
          lines.empty() ? fmt::format(
                              "compute kernel time not gated: none of the {} history entries holds "
                              "kernel rows of --kernel-key {}",
                              history.size(), key_text)
                        : fmt::format(
                              "compute kernel time not gated: none of this run's {} compute "
                              "kernels is in all {} history entries with kernel rows; re-seed the "
                              "history",
                              launches.size(), lines.size());
      result.warnings.push_back(absent);
      total_reasons.push_back(absent);
    } else if (!shared.empty()) {
      double launch_sum = 0;
      double time = 0;
      for (const std::string& id : shared) {
        launch_sum += launches[id];
        time += launches[id] * std::exp(Mean(now[id]));  // as the kernel's row shows it
      }
      now[total_id] = {std::log(std::max(time / launch_sum, 1.0))};
      sets[total_id] = &total_set;
      for (const HistoryEntry* entry : lines) {
        double past = 0;
        for (const std::string& id : shared)
          past += launches[id] * std::max(entry->medians.at(id), 1.0);
        total_past.push_back(std::log(std::max(past / launch_sum, 1.0)));
      }
      const size_t left = launches.size() - shared.size();
      if (left > 0) {
        const double coverage = whole_time > 0 ? shared_time / whole_time : 0.0;
        const std::string partial = fmt::format(
            "compute kernel time / launch covers {:.1f}% of this run's compute kernel time: {} of "
            "its {} compute kernels {} not in all {} history entries with kernel rows and {} "
            "left out of it",
            100.0 * coverage, left, launches.size(), left == 1 ? "is" : "are", lines.size(),
            left == 1 ? "is" : "are");
        result.warnings.push_back(partial);
        // A kernel of 1 % is gated on its own row when the history holds it (GateTest's share
        // rule); left out of the total too, together they could hide a regression.
        if (coverage <= 0.99) total_reasons.push_back(partial);
      }
    }
  }
  for (const std::string& name : settings.gate_ranges) {
    const std::string id = "range:" + name;
    const bool in_history = std::any_of(history.begin(), history.end(), [&](const auto& entry) {
      return entry.medians.count(id) > 0;
    });
    if (now.count(id) == 0 && !in_history) {
      throw InputError("--gate-range",
                       fmt::format("range '{}' has no instance within the steady iterations of "
                                   "the current profiles nor in the history",
                                   name));
    }
  }
  const double one_sided_alpha = settings.alpha;
  size_t common = 0;  // metrics in both the history and the current profiles
  for (const auto& [id, logs] : now) {
    // The compute kernel time row's history is computed above, never a stored metric.
    std::vector<double> past = id == total_id ? total_past : std::vector<double>();
    for (const HistoryEntry& entry : history) {
      if (id == total_id) break;
      auto it = entry.medians.find(id);
      if (it != entry.medians.end()) past.push_back(std::log(std::max(it->second, 1.0)));
    }
    const SampleSet& set = *sets[id];
    MetricComparison m;
    m.id = id;
    m.level = set.level;
    m.name = set.name;
    if (past.empty()) {
      // Not in the history: shown and counted (report-only), never silently absent.
      m.verdict = Verdict::kNew;
      SideSummary cur;
      cur.n = logs.size();
      cur.median = std::exp(Mean(logs));
      m.current = cur;
      if (set.level == MetricLevel::kKernel && kernel_time > 0) m.share = totals[id] / kernel_time;
      result.metrics.push_back(std::move(m));
      continue;
    }
    ++common;
    m.method = "history-prediction-interval";
    const double current_log = Mean(logs);
    const double history_mean = Mean(past);
    m.ratio = std::exp(current_log - history_mean);
    SideSummary base;
    base.n = past.size();
    base.median = std::exp(history_mean);
    {
      // The history's own spread (IQR of its run summaries over the shown centre), not 0: the
      // cell reads "41.249 ms ±0.3%", as the sides of the two-sided gate do.
      std::vector<double> values;
      for (double v : past)
        values.push_back(std::exp(v));
      if (values.size() >= 2 && base.median > 0) {
        const double p75 = SelectQuantile(values, 0.75);
        base.iqr_rel = (p75 - SelectQuantile(values, 0.25)) / base.median;
      }
    }
    SideSummary cur;
    // The compute kernel time row is one value over all current profiles (their pooled mix).
    cur.n = id == total_id ? current.size() : logs.size();
    cur.median = std::exp(current_log);
    m.baseline = base;
    m.current = cur;
    const bool kernel = set.level == MetricLevel::kKernel;
    if (kernel) {
      m.share = kernel_time > 0 ? totals[id] / kernel_time : 0.0;
      m.time_ratio = m.ratio;
      m.impact = KernelImpact(*m.share, *m.ratio);
      const KernelGating gating = GateKernel(*m.share, *m.impact, m.name, settings);
      m.gated = gating.gated;
      m.below_impact = gating.below_impact;
    } else if (set.level == MetricLevel::kRange) {
      // Share of the iteration as the two-sided gate defines it: the range's time per steady
      // iteration over the median iteration, here of the current run.
      double iterations = 0;
      std::vector<double> walls;
      for (const ProfileSummary& p : current) {
        iterations += static_cast<double>(p.steady_iterations);
        auto it = p.metrics.find("iteration");
        if (it != p.metrics.end())
          walls.insert(walls.end(), it->second.values.begin(), it->second.values.end());
      }
      const double median_wall = walls.empty() ? 0.0 : MedianInPlace(walls);
      m.share = iterations > 0 && median_wall > 0 ? totals[id] / iterations / median_wall : 0.0;
      m.gated = RangeGated(*m.share, m.name, settings);
    } else {
      m.gated = set.level == MetricLevel::kCommBusy   ? false
                : set.level == MetricLevel::kCopyBusy ? settings.gate_copies
                                                      : true;
    }
    const auto limit = HistoryPredictionLimit(past, one_sided_alpha);
    if (past.size() < kHistoryMinEntries || !limit) {
      m.verdict = Verdict::kLowN;
      m.low_n_over_threshold = LowNExceedsThreshold(*m.ratio, 0, settings);
      result.metrics.push_back(std::move(m));
      continue;
    }
    const double half_width = limit->limit - limit->mean;
    // The band of ratios the history predicts for an unchanged run, (1 - alpha) one-sided each
    // way (§4.4): it holds 1 - 2 alpha of unchanged runs (98 % at alpha 0.01), its level.
    m.ci_low = std::exp(-half_width);
    m.ci_high = std::exp(half_width);
    m.ci_level = 1.0 - 2.0 * one_sided_alpha;
    m.test = "prediction-t";
    const double scale = limit->sd * std::sqrt(1.0 + 1.0 / static_cast<double>(past.size()));
    if (scale > 0) {
      m.p_value = StudentTUpperTail((current_log - history_mean) / scale,
                                    static_cast<double>(past.size() - 1));
    } else {
      // A history without spread (identical summaries): any rise is beyond it for certain.
      m.p_value = current_log > history_mean ? 0.0 : current_log < history_mean ? 1.0 : 0.5;
    }
    m.verdict = DecideHistory(current_log, history_mean, half_width, settings);
    // 80 % power: a true shift d is flagged when the run's deviation exceeds max(q, e), and the
    // deviation is d plus the prediction error (scale x Student t with h - 1 degrees of freedom).
    const double flagged_above = std::max(half_width, std::log1p(settings.min_effect));
    m.mde = std::expm1(flagged_above +
                       StudentTQuantile(0.8, static_cast<double>(past.size() - 1)) * scale);
    result.metrics.push_back(std::move(m));
  }
  // The gated kernel family (§3.4): Holm on the one-sided p-values, so that testing many kernels
  // against the history does not multiply the false alarms. A regression Holm does not confirm
  // is INCONCLUSIVE when its ratio reaches the target, else ~.
  std::vector<MetricComparison*> family;
  for (MetricComparison& m : result.metrics) {
    if (m.level == MetricLevel::kKernel && m.gated && m.verdict != Verdict::kLowN)
      family.push_back(&m);
  }
  std::vector<double> p_values;
  for (const MetricComparison* m : family)
    p_values.push_back(m->p_value.value_or(1.0));
  const std::vector<double> adjusted = HolmAdjust(p_values);
  for (size_t i = 0; i < family.size(); ++i) {
    MetricComparison& m = *family[i];
    m.p_adjusted = adjusted[i];
    if (m.verdict == Verdict::kRegressed && adjusted[i] > one_sided_alpha) {
      m.verdict = *m.ratio >= 1.0 + settings.target ? Verdict::kInconclusive : Verdict::kNoChange;
    }
  }
  // Metrics of the latest history line the current run lacks: REMOVED (report-only).
  if (!history.empty()) {
    for (const auto& [id, median] : history.back().medians) {
      const std::optional<MetricLevel> level = HistoryLevelOfId(id);
      if (!level || now.count(id) > 0) continue;
      MetricComparison m;
      m.id = id;
      m.level = *level;
      m.name = HistoryNameOfId(id, *level);
      m.verdict = Verdict::kRemoved;
      SideSummary base;
      base.n = 1;
      base.median = median;
      m.baseline = base;
      result.metrics.push_back(std::move(m));
    }
  }
  CheckKernelKeysShared(result.metrics, history_source);
  if (common == 0) {
    throw InputError(history_source,
                     "not comparable: no metric is present in both the history and the current "
                     "profiles");
  }
  FinishComparison(result, {}, current);
  if (!total_reasons.empty()) {
    // Not a silent pass: the gate did not test the kernels' time as a whole, or only a part.
    for (const std::string& reason : total_reasons)
      result.verdict_reasons.push_back(reason);
    if (result.verdict == "pass") result.verdict = "pass-with-warnings";
  }
  return result;
}

bool HistoryComparesId(const std::string& id) {
  return HistoryLevelOfId(id).has_value();
}

}  // namespace gpuroof
