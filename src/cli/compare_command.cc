#include "compare_command.h"

#include <algorithm>
#include <charconv>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/analyses/regression/calibration.h"
#include "gpuroof/analyses/regression/epoch_ratio.h"
#include "gpuroof/analyses/regression/gate.h"
#include "gpuroof/analyses/regression/history.h"
#include "gpuroof/analyses/regression/history_append.h"
#include "gpuroof/analyses/regression/profile_samples.h"
#include "gpuroof/campaign/sha256.h"
#include "gpuroof/format/output_file.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/reports/compare_report.h"

#include "command_help.h"
#include "compare_jobs.h"
#include "exit_codes.h"
#include "file_arguments.h"
#include "output_options.h"
#include "trace_loading.h"
#include "unit_options.h"

namespace gpuroof {

namespace {

struct CompareOptions {
  std::vector<std::string> profiles;  // positional: BASE CURRENT, or the --calibrate set
  std::vector<std::string> baseline;
  std::vector<std::string> current;
  std::string epochs;
  std::string threshold = "1.20";
  bool calibrate = false;
  std::string iteration_range;
  std::string attribute;  // --attribute thread|process; empty: process (an iteration range)
  std::string warmup = "auto";
  std::string kernel_key;  // empty: "launch", or "name" with --across-hardware
  std::string alpha = "0.01";
  std::string min_effect = "0.02";
  std::string target = "0.05";
  std::string floor = "0.03";
  std::string kernel_floor = "0.05";
  std::string fail_on = "regression";
  std::string low_n = "report";
  bool fail_on_given = false;  // --fail-on on the command line (matters with --across-hardware)
  bool across_hardware = false;
  bool gate_copies = false;
  bool gate_counts = false;
  std::vector<std::string> gate_ranges;
  std::string json_path;
  std::string markdown_path;
  std::string html_path;
  std::string history_path;
  std::string history_append_path;
  int threads = 0;
  OutputOptions output;
  std::vector<std::string> given;  // the options given on the command line ("--alpha", ...)
};

bool Given(const CompareOptions& o, std::string_view flag) {
  return std::find(o.given.begin(), o.given.end(), flag) != o.given.end();
}

// Refuses the options a mode does not use (exit 2), so that none is silently ignored.
void RefuseUnusedOptions(const CompareOptions& o, std::string_view mode,
                         std::initializer_list<std::string_view> unused, std::string_view hint) {
  std::string list;
  for (std::string_view flag : unused) {
    if (Given(o, flag)) list += fmt::format("{}{}", list.empty() ? "" : ", ", flag);
  }
  if (list.empty()) return;
  throw InputError("compare", fmt::format("{} does not use {}{}", mode, list, hint));
}

// The GPU models a trace names for its devices (none when it names none).
std::set<std::string> GpuModels(const Trace& trace) {
  std::set<std::string> models;
  for (const DeviceInfo& device : trace.devices) {
    if (!device.name.empty()) models.insert(device.name);
  }
  return models;
}

// The gate's result files: one list declares --json, --markdown and --html, refuses them in the
// modes that do not write them, and writes them.
struct ResultFileOption {
  const char* flag;
  std::string CompareOptions::*path;
  const char* help;
  std::string (*render)(const CompareReport&);
};

constexpr ResultFileOption kResultFiles[] = {
    {"--json", &CompareOptions::json_path, "Write gpuroof.compare/1 JSON to FILE ('-': stdout)",
     RenderCompareJson},
    {"--markdown", &CompareOptions::markdown_path,
     "Write a pull-request comment (Markdown, < 60 KB) to FILE ('-': stdout)",
     RenderCompareMarkdown},
    {"--html", &CompareOptions::html_path,
     "Write the verdict as a self-contained HTML page to FILE ('-': stdout)", RenderCompareHtml}};

double ParseNumber(const std::string& text, const std::string& flag, double min, double max,
                   const std::string& what) {
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !(value >= min && value <= max)) {
    throw InputError(flag, fmt::format("must be {}, got '{}'", what, text));
  }
  return value;
}

int64_t ParseCount(const std::string& text, const std::string& flag, int64_t min) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value < min) {
    throw InputError(flag, fmt::format("must be a whole number >= {}, got '{}'", min, text));
  }
  return value;
}

GateSettings ParseSettings(const CompareOptions& o) {
  GateSettings s;
  s.alpha = ParseNumber(o.alpha, "--alpha", 1e-9, 0.5, "a probability in (0, 0.5]");
  s.min_effect = ParseNumber(o.min_effect, "--min-effect", 0, 10, "a fraction >= 0 (0.02 = 2%)");
  s.target = ParseNumber(o.target, "--target", 1e-6, 10, "a fraction > 0 (0.05 = 5%)");
  s.floor_time = ParseNumber(o.floor, "--floor", 0, 10, "a fraction >= 0 (0.03 = 3%)");
  s.floor_kernel =
      ParseNumber(o.kernel_floor, "--kernel-floor", 0, 10, "a fraction >= 0 (0.05 = 5%)");
  if (o.fail_on != "regression" && o.fail_on != "inconclusive") {
    throw InputError("--fail-on",
                     fmt::format("must be regression or inconclusive, got '{}'", o.fail_on));
  }
  s.fail_on_inconclusive = o.fail_on == "inconclusive";
  if (o.low_n != "report" && o.low_n != "gate") {
    throw InputError("--low-n", fmt::format("must be report or gate, got '{}'", o.low_n));
  }
  s.low_n_gate = o.low_n == "gate";
  s.fail_on_given = o.fail_on_given;
  s.bootstrap_median_ratio = !o.json_path.empty();
  s.across_hardware = o.across_hardware;
  s.gate_copies = o.gate_copies;
  s.gate_counts = o.gate_counts;
  s.gate_ranges = o.gate_ranges;
  if (!o.gate_ranges.empty() && o.iteration_range.empty()) {
    throw InputError("--gate-range",
                     "needs --iteration-range: ranges are measured within "
                     "iterations");
  }
  return s;
}

// Launch shapes are tuned per GPU, so across hardware kernels are matched by name by default.
std::string KernelKeyText(const CompareOptions& o) {
  if (!o.kernel_key.empty()) return o.kernel_key;
  return o.across_hardware ? "name" : "launch";
}

ProfileOptions ParseProfileOptions(const CompareOptions& o, const GateSettings& settings) {
  ProfileOptions p;
  p.iteration_range = o.iteration_range;
  p.attribute = ParseAttribute(o.attribute);
  if (o.warmup != "auto") p.warmup = static_cast<size_t>(ParseCount(o.warmup, "--warmup", 0));
  const std::string key = KernelKeyText(o);
  if (key != "launch" && key != "name" && key != "demangled") {
    throw InputError("--kernel-key",
                     fmt::format("must be launch, name or demangled, got '{}'", key));
  }
  p.kernel_key = ParseKernelKey(key);
  p.min_effect = settings.min_effect;
  // Across hardware the per-engine diff is wanted even without iterations.
  p.engine_totals = o.across_hardware;
  return p;
}

ReadOptions Reading(const CompareOptions& o, ReadDetail detail) {
  ReadOptions read;
  read.threads = o.threads;
  read.detail = detail;
  // API calls are only needed to attribute work to iteration ranges; a trace has one per op.
  read.api_calls = !o.iteration_range.empty();
  // Without iterations the gate has kernel-level metrics only, and simple mode sums kernel
  // time: copies need not be read.
  read.kernels_only = o.iteration_range.empty() && !o.across_hardware;
  // Kernels are keyed by demangled name (and launch shape): a Kineto trace names kernels by
  // their demangled signature only, so nsys's demangled names are read for every key (§3.2
  // step 5). Copies are keyed by engine: the memory kinds are not visited.
  read.memory_kinds = false;
  read.demangled_names = true;
  return read;
}

// Reads and summarises the profiles two at a time, side by side (a baseline and a current one in
// a 1-vs-1 gate; each reader has its own threads); only the summaries are kept, so at most two
// traces are in memory. Diagnostics and errors come in the order of `paths`, whichever read
// finished first, so stderr and the error reported do not depend on timing.
std::vector<ProfileSummary> Summarize(const std::vector<std::string>& paths,
                                      const CompareOptions& o, const ProfileOptions& profile) {
  struct ProfileRead {
    std::optional<Diagnostics> diagnostics;  // set once the trace was read
    std::optional<ProfileSummary> summary;
    std::exception_ptr error;
  };
  constexpr size_t kSideBySide = 2;
  std::vector<ProfileSummary> out;
  for (size_t first = 0; first < paths.size(); first += kSideBySide) {
    std::vector<std::future<ProfileRead>> reads;
    for (size_t i = first; i < std::min(paths.size(), first + kSideBySide); ++i) {
      reads.push_back(std::async(std::launch::async, [&, i]() {
        ProfileRead read;
        try {
          const Trace trace = ReadTrace(paths[i], Reading(o, ReadDetail::kFull));
          read.diagnostics = trace.diagnostics;
          read.summary = SummarizeProfile(trace, profile);
          // Said in every output (JSON inputs, HTML, the text table) and in the verdict, not on
          // stderr only: a CI job reading the JSON must learn that part of a profile was lost.
          if (trace.diagnostics.has_data_loss()) {
            read.summary->warnings.push_back("DATA LOSS: " + trace.diagnostics.Summary());
          }
        } catch (...) {
          read.error = std::current_exception();
        }
        return read;
      }));
    }
    for (size_t k = 0; k < reads.size(); ++k) {
      ProfileRead read = reads[k].get();
      if (read.diagnostics) CheckDiagnostics(paths[first + k], *read.diagnostics, o.output);
      if (read.error) std::rethrow_exception(read.error);
      out.push_back(std::move(*read.summary));
    }
  }
  return out;
}

// Refuses the output and history options a mode does not write (exit 2), so none is ignored.
void RefuseGateOutputs(const CompareOptions& o, std::string_view mode) {
  std::vector<std::string> given;
  for (const ResultFileOption& file : kResultFiles) {
    if (!(o.*file.path).empty()) given.push_back(file.flag);
  }
  if (!o.history_path.empty()) given.push_back("--history");
  if (!o.history_append_path.empty()) given.push_back("--history-append");
  if (given.empty()) return;
  std::string list;
  for (const std::string& flag : given)
    list += (list.empty() ? "" : ", ") + flag;
  throw InputError("compare", fmt::format("{} does not support {} (only the statistical gate "
                                          "writes result files and reads or appends a history)",
                                          mode, list));
}

int RunSimple(const CompareOptions& o) {
  RefuseGateOutputs(o, "simple mode (--epochs)");
  RefuseUnusedOptions(
      o, "simple mode (--epochs)",
      {"--iteration-range", "--attribute", "--warmup", "--kernel-key", "--alpha", "--min-effect",
       "--target", "--floor", "--kernel-floor", "--fail-on", "--across-hardware", "--low-n",
       "--gate-copies", "--gate-range", "--gate-counts", "--calibrate"},
      " (it sums kernel time per epoch; those are options of the statistical "
      "gate)");
  const int64_t epochs = ParseCount(o.epochs, "--epochs", 1);
  const double threshold =
      ParseNumber(o.threshold, "--threshold", 1.0, 1e9, "a ratio >= 1 (e.g. 1.20)");
  if (o.profiles.size() != 2 || !o.baseline.empty() || !o.current.empty()) {
    throw InputError(
        "compare",
        fmt::format(
            "--epochs needs exactly two profiles, given as BASE CURRENT "
            "(got {}{})",
            o.profiles.size() + o.baseline.size() + o.current.size(),
            o.baseline.empty() && o.current.empty() ? "" : ", some through --baseline/--current"));
  }
  const Trace base = LoadTrace(o.profiles[0], Reading(o, ReadDetail::kEngineLoad), o.output);
  const Trace cur = LoadTrace(o.profiles[1], Reading(o, ReadDetail::kEngineLoad), o.output);
  const std::set<std::string> base_models = GpuModels(base);
  const std::set<std::string> cur_models = GpuModels(cur);
  if (!base_models.empty() && !cur_models.empty() && base_models != cur_models) {
    throw InputError(
        o.profiles[1],
        fmt::format("not comparable: GPU model '{}' differs from '{}' in {} (kernel "
                    "time on other hardware is not a regression)",
                    fmt::join(cur_models, ", "), fmt::join(base_models, ", "), o.profiles[0]));
  }
  const EpochRatio r = CompareKernelTimePerEpoch(TotalKernelTimeNs(base), TotalKernelTimeNs(cur),
                                                 epochs, threshold, o.profiles[0], o.profiles[1]);
  const std::string line = fmt::format(
      "{}: GPU kernel time per epoch baseline={:.3f}ms/epoch current={:.3f}ms/epoch "
      "ratio={:.3f}x (threshold {:.2f}x, {} epochs)\n",
      r.pass ? "PASS" : "FAIL", r.baseline_ns_per_epoch / 1e6, r.current_ns_per_epoch / 1e6,
      r.ratio, threshold, epochs);
  EmitOutput(o.output, line);
  return r.pass ? kExitOk : kExitCheckFailed;
}

int RunCalibrate(const CompareOptions& o) {
  RefuseGateOutputs(o, "--calibrate");
  RefuseUnusedOptions(o, "--calibrate",
                      {"--baseline", "--current", "--threshold", "--fail-on", "--across-hardware",
                       "--low-n", "--gate-copies", "--gate-range", "--gate-counts"},
                      " (it measures the noise of A/A profiles given as P1 P2 ...; those are "
                      "options of the gate)");
  const GateSettings settings = ParseSettings(o);
  const ProfileOptions profile = ParseProfileOptions(o, settings);
  if (o.profiles.size() < 2) {
    throw InputError("--calibrate", fmt::format("needs at least two profiles of the same code "
                                                "(got {})",
                                                o.profiles.size()));
  }
  const std::vector<ProfileSummary> profiles = Summarize(o.profiles, o, profile);
  const Calibration calibration = CalibrateNoise(profiles, settings);
  EmitOutput(o.output, RenderCalibrationText(calibration, settings));
  return kExitOk;
}

// The whole file, or "" when it does not exist yet (a history starts empty). Throws InputError
// naming the file when it exists but cannot be read, or is not a file.
std::string ReadHistoryFile(const std::string& path, bool must_exist) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    if (must_exist) throw InputError(path, "cannot open the history file: no such file");
    return {};
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path, "is a directory, not a history file (JSONL, one run a line)");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) throw InputError(path, "cannot read the history file");
  return text.str();
}

// A path made absolute against the current directory and lexically normal ("./a" and "/d/a"
// alike); the path as given when it cannot be made absolute.
std::filesystem::path NormalPath(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return (ec ? path : absolute).lexically_normal();
}

// Whether a history line's "path" may name `trace`. The line records the path as it was given,
// relative to a working directory it does not record: a relative path is taken against the
// current directory and, for a line of the file, against the history file's folder (CI appends
// from the folder it keeps the history in, or names it from the repository root); either
// spelling names the trace when it is the same normal path or the same file (a link).
bool LineNamesTrace(const HistoryEntry& line, const std::string& trace,
                    const std::string& history_path) {
  if (line.path.empty()) return false;
  const std::filesystem::path ours = NormalPath(trace);
  const std::filesystem::path theirs(line.path);
  std::vector<std::filesystem::path> spellings = {NormalPath(theirs)};
  if (line.line != 0 && theirs.is_relative()) {
    spellings.push_back((NormalPath(history_path).parent_path() / theirs).lexically_normal());
  }
  for (const std::filesystem::path& spelling : spellings) {
    std::error_code ec;
    if (spelling == ours || std::filesystem::equivalent(spelling, ours, ec)) return true;
  }
  return false;
}

// The SHA-256 of each trace, "" for one that is not a regular file: lines record it, so a trace
// is appended once. Computed once a call (the append is checked before the result files are
// written, then made under the lock).
std::vector<std::string> TraceHashes(const std::vector<std::string>& paths) {
  std::vector<std::string> hashes;
  for (const std::string& path : paths) {
    std::error_code ec;
    hashes.push_back(std::filesystem::is_regular_file(path, ec) ? Sha256OfFile(path)
                                                                : std::string());
  }
  return hashes;
}

// --history-append: the current profiles' run summaries added as new lines, atomically. The
// history's folder is locked from the read to the rename, so that concurrent appends (CI jobs of
// one branch) each keep their lines.
// The history file's text and the lines `current` adds to it, each checked (CheckAppendable);
// never a file that is not a history.
// `warnings` (when given) receives CheckNotAppended's warnings.
std::pair<std::string, std::string> HistoryWithAppend(
    const CompareOptions& o, const std::vector<ProfileSummary>& current,
    const std::vector<std::string>& hashes, std::vector<std::string>* warnings = nullptr) {
  std::string text = ReadHistoryFile(o.history_append_path, false);
  std::vector<HistoryEntry> history = ParseHistory(text, o.history_append_path);
  std::string lines;
  for (size_t i = 0; i < current.size(); ++i) {
    const ProfileSummary& p = current[i];
    HistoryEntry entry = HistoryEntryOf(p);
    entry.trace_sha256 = i < hashes.size() ? hashes[i] : std::string();
    // Checked against the lines this call adds too: runs of two GPUs seeding one history
    // would make every later compare of it exit 2.
    CheckAppendable(history, entry, o.history_append_path, p.path);
    std::string warning = CheckNotAppended(
        history, entry, o.history_append_path, p.path, [&](const HistoryEntry& line) {
          return LineNamesTrace(line, p.path, o.history_append_path);
        });
    if (!warning.empty() && warnings != nullptr) warnings->push_back(std::move(warning));
    lines += RenderHistoryLine(entry, p.path);
    entry.path = p.path;
    entry.line = 0;  // a run of this call (CheckAppendable's message says so)
    history.push_back(std::move(entry));
  }
  return {std::move(text), std::move(lines)};
}

// Groups the profiles of the same bytes across the sides (SameFileOrBytes: compared only when
// the sizes agree, up to the first difference), so the gate can say when a run is compared with
// itself (ProfileSummary::same_bytes_group). A file that cannot be read is in no group.
void GroupProfilesOfTheSameBytes(const std::vector<std::string>& base_paths,
                                 const std::vector<std::string>& cur_paths,
                                 std::vector<ProfileSummary>& baseline,
                                 std::vector<ProfileSummary>& current) {
  for (size_t c = 0; c < cur_paths.size(); ++c) {
    for (size_t b = 0; b < base_paths.size(); ++b) {
      if (!SameFileOrBytes(base_paths[b], cur_paths[c])) continue;
      if (baseline[b].same_bytes_group == 0) baseline[b].same_bytes_group = b + 1;
      current[c].same_bytes_group = baseline[b].same_bytes_group;
      break;
    }
  }
}

void AppendHistory(const CompareOptions& o, const std::vector<ProfileSummary>& current,
                   const std::vector<std::string>& hashes) {
  const std::filesystem::path path(o.history_append_path);
  const FolderLock lock(path.has_parent_path() ? path.parent_path() : std::filesystem::path("."));
  std::vector<std::string> warnings;
  auto [text, lines] = HistoryWithAppend(o, current, hashes, &warnings);
  if (!text.empty() && text.back() != '\n') text += '\n';
  WriteFileAtomically(o.history_append_path, text + lines);
  // Under --quiet too: it asks the user to check the history file.
  for (const std::string& warning : warnings) {
    fmt::print(MessageStream(), "gpuroof: warning: {}\n", warning);
  }
}

int RunGate(const CompareOptions& o) {
  std::vector<std::string> base_paths = o.baseline;
  std::vector<std::string> cur_paths = o.current;
  if (!o.profiles.empty()) {
    const bool history = !o.history_path.empty() || !o.history_append_path.empty();
    if (history && o.profiles.size() == 1 && base_paths.empty() && cur_paths.empty()) {
      // One positional profile is not taken as the current one: BASE CURRENT is the positional
      // form, and one profile alone may be a BASE whose CURRENT was left out.
      throw InputError(
          "compare",
          fmt::format("with {}, give the current profile as --current {}, "
                      "not as a positional profile",
                      o.history_path.empty() ? "--history-append" : "--history", o.profiles[0]));
    }
    if (!base_paths.empty() || !cur_paths.empty() || o.profiles.size() != 2) {
      throw InputError("compare", "give either BASE CURRENT or --baseline B... --current C...");
    }
    base_paths = {o.profiles[0]};
    cur_paths = {o.profiles[1]};
  }
  if (!AreJobDirectories(base_paths, cur_paths)) {
    RefuseUnusedOptions(o, "the statistical gate", {"--threshold"},
                        " (a ratio for --epochs and directory compares; the gate fails on "
                        "changes past --min-effect that it can tell from noise, see --target)");
  }
  if (AreJobDirectories(base_paths, cur_paths)) {
    RefuseGateOutputs(o, "the job-level compare (directories)");
    RefuseUnusedOptions(o, "the job-level compare (directories)",
                        {"--attribute", "--warmup", "--kernel-key", "--alpha", "--min-effect",
                         "--target", "--floor", "--kernel-floor", "--fail-on", "--across-hardware",
                         "--low-n", "--gate-copies", "--gate-range", "--gate-counts"},
                        " (it compares the ranks' step medians against --threshold; those are "
                        "options of the per-profile gate)");
    JobCompareOptions job;
    job.baseline_dir = base_paths.front();
    job.current_dir = cur_paths.front();
    job.iteration_range = o.iteration_range;
    job.threshold = ParseNumber(o.threshold, "--threshold", 1.0, 1e9, "a ratio >= 1 (e.g. 1.20)");
    job.jobs = o.threads;
    return RunJobCompare(job, o.output);
  }
  const GateSettings settings = ParseSettings(o);
  const ProfileOptions profile = ParseProfileOptions(o, settings);
  if (!o.history_path.empty() && !base_paths.empty()) {
    // Name what was typed: BASE CURRENT gives a baseline without --baseline.
    throw InputError("--history",
                     o.profiles.empty()
                         ? "give --baseline or --history, not both"
                         : fmt::format("give a baseline (BASE or --baseline) or --history, not "
                                       "both: '{}' was given as BASE; with --history, give the "
                                       "run as --current {}",
                                       o.profiles[0], o.profiles[1]));
  }
  if (cur_paths.empty()) throw InputError("compare", "need --current profiles (or BASE CURRENT)");
  if (base_paths.empty() && o.history_path.empty()) {
    if (o.history_append_path.empty()) {
      throw InputError("compare", "need --baseline (or --history) and --current profiles");
    }
    // Seeding a history: nothing to compare against yet.
    const std::vector<ProfileSummary> current = Summarize(cur_paths, o, profile);
    AppendHistory(o, current, TraceHashes(cur_paths));
    EmitOutput(o.output,
               fmt::format("appended {} run(s) to {}\n", current.size(), o.history_append_path));
    return kExitOk;
  }
  CompareReport report;
  report.tool_version = GPUROOF_VERSION;
  report.warmup_text = o.warmup;
  report.kernel_key = KernelKeyText(o);
  std::vector<HistoryEntry> history;
  if (!o.history_path.empty()) {
    history = ParseHistory(ReadHistoryFile(o.history_path, true), o.history_path);
    if (history.empty()) {
      throw InputError(o.history_path,
                       "the history has no runs yet; seed it with --current PROFILE "
                       "--history-append FILE");
    }
    report.history_source = o.history_path;
    report.history_entries = history.size();
    report.current = Summarize(cur_paths, o, profile);
  } else {
    // Both sides in one call, so a baseline and a current profile are read side by side.
    std::vector<std::string> paths = base_paths;
    paths.insert(paths.end(), cur_paths.begin(), cur_paths.end());
    std::vector<ProfileSummary> summaries = Summarize(paths, o, profile);
    report.current.assign(std::make_move_iterator(summaries.begin() + base_paths.size()),
                          std::make_move_iterator(summaries.end()));
    summaries.resize(base_paths.size());
    report.baseline = std::move(summaries);
    GroupProfilesOfTheSameBytes(base_paths, cur_paths, report.baseline, report.current);
  }
  report.result = history.empty() && o.history_path.empty()
                      ? CompareProfiles(report.baseline, report.current, settings)
                      : CompareWithHistory(history, report.current, settings, o.history_path);
  // A run that cannot be appended is exit 2 before any result file claims a verdict.
  const std::vector<std::string> hashes =
      o.history_append_path.empty() ? std::vector<std::string>() : TraceHashes(cur_paths);
  if (!o.history_append_path.empty()) HistoryWithAppend(o, report.current, hashes);
  // Files first: a failure to write one is exit 2, and stdout then holds nothing misleading.
  // "-" sends that one file to stdout; the verdict table then goes to stderr, so stdout holds
  // one document a program can read.
  bool file_on_stdout = false;
  for (const ResultFileOption& file : kResultFiles) {
    const std::string& path = o.*file.path;
    if (!path.empty()) WriteResultFile(path, file.render(report));
    file_on_stdout = file_on_stdout || path == "-";
  }
  if (!o.history_append_path.empty()) AppendHistory(o, report.current, hashes);
  const bool table_to_file = !o.output.output_path.empty() && o.output.output_path != "-";
  if (file_on_stdout && !table_to_file) {
    if (!o.output.quiet) fmt::print(stderr, "{}", RenderCompareText(report));
  } else {
    EmitOutput(o.output, RenderCompareText(report));
  }
  return report.result.exit_code == 1 ? kExitCheckFailed : kExitOk;
}

}  // namespace

void AddCompareCommand(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<CompareOptions>();
  CLI::App* command = AddCommand(app, "compare");
  command->add_option("profiles", options->profiles,
                      "BASE CURRENT (simple mode or a 1-vs-1 gate), or the --calibrate profiles");
  command->add_option("--baseline", options->baseline, "Baseline profiles (one or more)");
  command->add_option("--current", options->current, "Current profiles (one or more)");
  command->add_option("--epochs", options->epochs,
                      "Simple mode: compare total kernel time / N of BASE and CURRENT");
  command
      ->add_option("--threshold", options->threshold,
                   "Simple mode and directories (job-level): fail above this ratio")
      ->capture_default_str();
  command->add_flag("--calibrate", options->calibrate,
                    "A/A calibration: run-to-run noise of profiles of the same code");
  command->add_option("--iteration-range", options->iteration_range,
                      "NVTX range that marks one iteration (e.g. train_step, ProfilerStep#*); "
                      "its GPU work is what any thread of the process launched while it was open");
  AddAttributeOption(*command, options->attribute);
  command->add_option("--warmup", options->warmup, "auto (MSER-5) or iterations to drop")
      ->capture_default_str();
  command->add_option("--kernel-key", options->kernel_key,
                      "launch (demangled name+grid+block; the default) | name (short name, the "
                      "default with --across-hardware) | demangled");
  command->add_option("--alpha", options->alpha, "Two-sided significance level")
      ->capture_default_str();
  command->add_option("--min-effect", options->min_effect, "Smallest change that can fail")
      ->capture_default_str();
  command->add_option("--target", options->target, "Regression size that must be caught")
      ->capture_default_str();
  command->add_option("--floor", options->floor, "Single-run noise floor: iteration, GPU busy")
      ->capture_default_str();
  command->add_option("--kernel-floor", options->kernel_floor, "Single-run noise floor: kernels")
      ->capture_default_str();
  command
      ->add_option("--fail-on", options->fail_on,
                   "regression | inconclusive (inconclusive also fails on LOW-N gated metrics and "
                   "on nothing gated)")
      ->capture_default_str()
      ->each([options](const std::string&) { options->fail_on_given = true; });
  command->add_flag("--across-hardware", options->across_hardware,
                    "Exploratory diff of different GPU models or driver/CUDA versions: per-kernel "
                    "and per-engine ratios, added/removed kernels; not a gate (exit 0 unless "
                    "--fail-on is given)");
  command->add_option("--low-n", options->low_n, "report | gate (LOW-N over threshold fails)")
      ->capture_default_str();
  command->add_flag("--gate-copies", options->gate_copies, "Gate copy-engine busy time too");
  // One value per use, so `--gate-range fwd a.sqlite b.sqlite` leaves the traces positional.
  command
      ->add_option("--gate-range", options->gate_ranges,
                   "Gate this annotation range whatever its share of the iteration "
                   "(repeatable; ranges >= 5% of the iteration are gated anyway)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  command->add_flag("--gate-counts", options->gate_counts,
                    "Fail when launches or bytes per iteration grow by more than 5%");
  command->add_option("--history", options->history_path,
                      "JSONL of earlier main-branch runs: test the current run against it");
  command->add_option("--history-append", options->history_append_path,
                      "Append the current run's summaries to this JSONL history");
  for (const ResultFileOption& file : kResultFiles)
    command->add_option(file.flag, (*options).*file.path, file.help);
  command->add_option("-o,--output", options->output.output_path,
                      "Write the verdict table (text) to FILE instead of stdout ('-': stdout)");
  AddThreadsOption(*command, options->threads);
  command->add_flag("--strict", options->output.strict,
                    "Fail (exit 1) when records had to be skipped (data loss)");
  command->add_flag("-q,--quiet", options->output.quiet, "No diagnostics summaries on stderr");
  command->callback([options, command, &exit_code]() {
    for (const CLI::Option* option : command->get_options()) {
      if (option->count() == 0) continue;
      for (const std::string& name : option->get_lnames())
        options->given.push_back("--" + name);
    }
    const CompareOptions& o = *options;
    if (!o.epochs.empty()) {
      exit_code = RunSimple(o);
    } else if (o.calibrate) {
      exit_code = RunCalibrate(o);
    } else {
      exit_code = RunGate(o);
    }
  });
}

}  // namespace gpuroof
