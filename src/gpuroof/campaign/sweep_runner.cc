#include "gpuroof/campaign/sweep_runner.h"

#include <atomic>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "gpuroof/campaign/bench_runner.h"
#include "gpuroof/campaign/csv_store.h"
#include "gpuroof/campaign/env_stamp_file.h"
#include "gpuroof/campaign/guards.h"
#include "gpuroof/campaign/manifest.h"
#include "gpuroof/campaign/profiler.h"
#include "gpuroof/campaign/sha256.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/output_file.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/non_copyable.h"
#include "gpuroof/process/process_runner.h"

namespace gpuroof {

namespace {

std::string JoinWarnings(const std::vector<std::string>& warnings) {
  std::string out;
  for (const std::string& warning : warnings)
    out += (out.empty() ? "" : " | ") + warning;
  return out;
}

// The ok rows of this build already in probes.csv: key -> the params they were run with and
// their trace's file name.
struct FinishedRows {
  std::string params;
  std::string trace;
  bool quotable = true;  // every ok row of the key says quotable = yes
  size_t rows = 0;       // ok rows of the key
};
std::map<std::string, FinishedRows> FinishedKeys(const std::filesystem::path& probes,
                                                 const std::string& build) {
  CsvTable table = ReadCsvFile(probes);
  std::map<std::string, FinishedRows> keys;
  const std::optional<std::array<int, 5>> columns =
      table.Columns({"key", "build", "status", "params", "trace"});
  if (!columns) return keys;
  const auto [key, row_build, status, params, trace] = *columns;
  const int quotable = table.Column("quotable");  // optional: without it every row counts quotable
  for (const auto& row : table.rows) {
    if (row[row_build] != build || row[status] != "ok") continue;
    const bool row_quotable = quotable < 0 || row[quotable] == "yes";
    auto [it, added] = keys.try_emplace(row[key], FinishedRows{row[params], row[trace], true});
    it->second.quotable = it->second.quotable && row_quotable;
    ++it->second.rows;
    if (!added) it->second.params = row[params];
  }
  return keys;
}

// "20241004T000000Z" for "2024-10-04T00:00:00Z".
std::string CompactStamp(const std::string& timestamp) {
  std::string stamp;
  for (char c : timestamp) {
    if (c != '-' && c != ':') stamp += c;
  }
  return stamp.empty() ? "unknown" : stamp;
}

// A failure to publish env.json inside the trace check: the new trace is then discarded, never
// published without its rows (said as an InputError by the caller).
struct EnvPublishError : std::runtime_error {
  EnvPublishError(std::string path, const std::string& problem)
      : std::runtime_error(problem), file(std::move(path)) {}
  std::string file;
};

// This session's env.json, written to a temporary file of the results folder before anything
// runs (so a folder that cannot be written is refused first), and renamed into place with the
// first row it describes; removed when no row needs it.
class PendingEnvJson : NonCopyable {
 public:
  PendingEnvJson(const std::filesystem::path& results, const EnvStamp& env)
      : results_(results),
        pending_(results / PendingEnvJsonName(++sessions_, ProcessTag())),
        env_(env) {
    const std::filesystem::path path = results / "env.json";
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
      throw InputError(path.string(), "is not a regular file (no env stamp): move it away");
    WriteFileAtomically(pending_, RenderEnvJson(env));
  }
  ~PendingEnvJson() {
    std::error_code ec;
    if (!published_) std::filesystem::remove(pending_, ec);
  }
  bool published() const { return published_; }
  // Puts the stamp in place (throws EnvPublishError when it cannot: nothing changed then).
  void Publish(CampaignSystem& system);

 private:
  std::filesystem::path results_;
  std::filesystem::path pending_;
  const EnvStamp& env_;
  bool published_ = false;
  static inline std::atomic<int> sessions_{0};  // two sweeps of one process: two names
};

// Renames the pending env.json into place. An env.json there already that describes another
// machine, GPU, driver or build (or cannot be read) is kept as env.earlier-<its time>[-N].json
// first, and said: rows of the folder may still come from the session it describes.
void PendingEnvJson::Publish(CampaignSystem& system) {
  if (published_) return;
  const std::filesystem::path path = results_ / "env.json";
  const EnvStamp& env = env_;
  std::error_code ec;
  std::filesystem::path kept;
  std::string note;
  if (std::filesystem::exists(path, ec)) {
    std::string why;
    std::string stamp = "unknown";
    try {
      std::ifstream in(path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      const EnvStamp old = ParseEnvJson(text.str(), path.string());
      stamp = CompactStamp(old.timestamp);
      std::vector<std::string> differ;
      if (old.host != env.host) differ.push_back("host");
      std::vector<std::string> old_gpus;
      std::vector<std::string> new_gpus;
      for (const GpuInfo& gpu : old.gpus.gpus)
        old_gpus.push_back(gpu.name);
      for (const GpuInfo& gpu : env.gpus.gpus)
        new_gpus.push_back(gpu.name);
      if (old_gpus != new_gpus) differ.push_back("GPUs");
      if (old.gpus.driver != env.gpus.driver) differ.push_back("driver");
      if (old.build != env.build || old.build_source != env.build_source) differ.push_back("build");
      if (old.git_rev != env.git_rev || old.git_dirty != env.git_dirty)
        differ.push_back("git revision");
      if (old.nvcc_version != env.nvcc_version) differ.push_back("nvcc");
      if (old.gpuroof_version != env.gpuroof_version) differ.push_back("gpuroof version");
      if (!differ.empty()) why = fmt::format("its {} differ", fmt::join(differ, ", "));
    } catch (const std::exception& error) {
      why = fmt::format("it cannot be read ({})", error.what());
    }
    if (!why.empty()) {
      kept = results_ / fmt::format("env.earlier-{}.json", stamp);
      for (int n = 2; std::filesystem::exists(kept, ec) && n < 1000; ++n)
        kept = results_ / fmt::format("env.earlier-{}-{}.json", stamp, n);
      // A kept stamp is never written over.
      if (std::filesystem::exists(kept, ec)) {
        throw EnvPublishError(path.string(), fmt::format("cannot keep the earlier env stamp: {} "
                                                         "exists",
                                                         kept.filename().string()));
      }
      std::filesystem::rename(path, kept, ec);
      if (ec) {
        throw EnvPublishError(path.string(),
                              fmt::format("cannot keep the earlier env stamp as {}: {}",
                                          kept.filename().string(), ec.message()));
      }
      note = fmt::format(
          "gpuroof: note: {} describes another session than this sweep ({}): kept as {}, since "
          "earlier rows of the folder may come from it",
          path.string(), why, kept.filename().string());
    }
  }
  std::filesystem::rename(pending_, path, ec);
  if (ec) {
    std::error_code back;
    if (!kept.empty()) std::filesystem::rename(kept, path, back);
    throw EnvPublishError(path.string(), "cannot write output: " + ec.message());
  }
  published_ = true;
  if (!note.empty()) system.message(note);
}

// "<stem>.earlier-<20241004T000000Z>[-N]<rest>" for an earlier trace "<stem><rest>" whose rows a
// run with other parameters replaces (a name that exists already is never written over: the
// caller tries the next N).
std::string EarlierTraceName(const std::string& trace, const std::string& stem,
                             const std::string& timestamp, int n = 1) {
  const std::string stamp = CompactStamp(timestamp);
  const std::string rest = trace.rfind(stem, 0) == 0 ? trace.substr(stem.size()) : "";
  return stem + ".earlier-" + stamp + (n > 1 ? fmt::format("-{}", n) : "") + rest;
}

// The names a configuration's trace may be written under (its format's extension; nsys also
// keeps its report).
std::vector<std::string> TraceNames(const SweepSpec& spec, const PlannedRun& run) {
  std::vector<std::string> names;
  for (const char* extension : {".sqlite", ".json", ".json.gz"})
    names.push_back(run.file_stem + extension);
  if (spec.profiler == ProfilerKind::kNsys) names.push_back(run.file_stem + ".nsys-rep");
  return names;
}

// probes.csv's trace file name -> the keys of the rows that point at it.
std::map<std::string, std::set<std::string>> TraceOwners(const std::filesystem::path& probes) {
  std::map<std::string, std::set<std::string>> owners;
  CsvTable table = ReadCsvFile(probes);
  const int key = table.Column("key");
  const int trace = table.Column("trace");
  if (key < 0 || trace < 0) return owners;
  for (const auto& row : table.rows) {
    if (row[trace].empty()) continue;
    owners[row[trace]].insert(row[key]);
    // nsys's report beside an export belongs to the same rows.
    const std::string sqlite = ".sqlite";
    if (row[trace].size() > sqlite.size() &&
        row[trace].compare(row[trace].size() - sqlite.size(), sqlite.size(), sqlite) == 0) {
      owners[row[trace].substr(0, row[trace].size() - sqlite.size()) + ".nsys-rep"].insert(
          row[key]);
    }
  }
  return owners;
}

// The refusal when rows of other keys own a trace name of `run` (whether or not the file is
// there: a file written there later would make those rows describe other bytes).
void RefuseTraceOfOtherKeys(const CampaignSession& session, const PlannedRun& run,
                            const std::string& name, const std::set<std::string>& keys) {
  std::error_code ec;
  const bool there = std::filesystem::exists(session.results / name, ec);
  throw InputError(
      (session.results / name).string(),
      fmt::format("is the trace of {} probes.csv row key(s) ({}) other than {}'s (key {}){}: "
                  "this sweep would write its trace {}; give {} another label, or use another "
                  "--results folder",
                  keys.size(), fmt::join(keys, " | "), run.label, run.key,
                  there ? "" : ", though the file is gone",
                  there ? "over it" : "there, and those rows would then describe it", run.label));
}

}  // namespace

void CheckSweepResultsFiles(const CampaignSession& session) {
  CheckCsvHeader(session.results / "probes.csv", ProbesHeader());
  CheckCsvHeader(session.results / "manifest.csv", ManifestHeader());
  // A file at a trace name of this sweep that rows of another key point at (another sweep file's
  // configuration, a kept .earlier- trace) is never written over: those rows would then describe
  // other bytes. Refused before anything runs.
  const std::map<std::string, std::set<std::string>> owners =
      TraceOwners(session.results / "probes.csv");
  for (const PlannedRun& run : session.plan.runs) {
    for (const std::string& name : TraceNames(session.spec, run)) {
      auto owner = owners.find(name);
      if (owner == owners.end() || owner->second.count(run.key) > 0) continue;
      RefuseTraceOfOtherKeys(session, run, name, owner->second);
    }
  }
}

SweepOutcome RunSweep(const CampaignSession& session, bool resume, CampaignSystem& system) {
  const SweepSpec& spec = session.spec;
  SweepOutcome outcome;
  outcome.results = session.results;
  const std::filesystem::path probes = session.results / "probes.csv";
  CheckSweepResultsFiles(session);
  RemoveStalePartialFiles(session.results, session.spec,
                          [&system](const std::string& line) { system.message(line); });
  std::map<std::string, FinishedRows> finished;
  if (resume) finished = FinishedKeys(probes, session.env.build);
  const std::string unidentified = BuildNotIdentifiedReason(session.env.build);
  if (resume && !unidentified.empty()) {
    // Said once with the count before anything runs: rows of a dirty or unknown build cannot
    // prove they came from this code, so --resume skips none of them.
    size_t rerun = 0;
    for (const PlannedRun& run : session.plan.runs) {
      auto done = finished.find(run.key);
      if (done != finished.end() && done->second.params == run.params) ++rerun;
    }
    if (rerun > 0) {
      system.message(fmt::format(
          "gpuroof: note: --resume: re-running {} of {} configuration(s) that have rows for "
          "build {}: that name does not identify one build ({}), so their earlier rows may come "
          "from other code",
          rerun, session.plan.runs.size(), session.env.build, unidentified));
    }
  }
  // env.json describes the session that ran the rows: a sweep that adds no ok row (a --resume
  // that skips every configuration, every configuration failing) leaves the earlier one as it is.
  // The stamp is written aside before anything runs (a folder that cannot be written is refused
  // here), and renamed into place with the first row.
  std::optional<PendingEnvJson> env_json;
  try {
    env_json.emplace(session.results, session.env);
  } catch (const InputError& error) {
    throw InputError((session.results / "env.json").string(), error.problem());
  }
  std::vector<std::string> session_warnings = session.warnings;
  if (!unidentified.empty()) {
    // As bench says of the same build: rows that cannot be tied to one build are not quotable.
    std::string warning = fmt::format(
        "the build is called '{}' ({}): the rows cannot be tied to the code that made them, so "
        "they are not quotable (give [build] an identity rule, or commit)",
        session.env.build, unidentified);
    system.message("gpuroof: warning: " + warning);
    session_warnings.push_back(warning);
  }
  // Rows not quotable for a reason a re-run keeps: the configuration's units are below
  // [guards] min_units as the sweep file says now (a re-run would be as short). The other reasons
  // the rows say (a busy GPU, dropped or skipped records) may pass, so those run again.
  auto lasting = [&](const PlannedRun& run) {
    return CheckMinimumUnits(run.units, spec.min_units, spec.unit_name);
  };
  if (resume && unidentified.empty()) {
    // Said once with the count before anything runs: rows that are not quotable (a busy GPU,
    // dropped records...) do not finish a configuration, so --resume runs it again; rows that a
    // re-run would leave as they are (a short run) are kept, and counted.
    size_t rerun = 0;
    size_t kept_configurations = 0;
    size_t kept_rows = 0;
    for (const PlannedRun& run : session.plan.runs) {
      auto done = finished.find(run.key);
      if (done == finished.end() || done->second.params != run.params || done->second.quotable)
        continue;
      const bool trace_there = done->second.trace.empty() ||
                               std::filesystem::exists(session.results / done->second.trace);
      if (lasting(run).empty() || !trace_there) {
        ++rerun;
      } else {
        ++kept_configurations;
        kept_rows += done->second.rows;
      }
    }
    if (kept_rows > 0) {
      system.message(fmt::format(
          "gpuroof: note: --resume: kept {} unquotable row(s) of {} configuration(s): re-running "
          "would not change why (their units are below [guards] min_units {}; change units or "
          "min_units to run them again)",
          kept_rows, kept_configurations, spec.min_units));
    }
    if (rerun > 0) {
      system.message(fmt::format(
          "gpuroof: note: --resume: re-running {} of {} configuration(s) whose rows for build {} "
          "are not quotable (their warnings say why); their rows are replaced",
          rerun, session.plan.runs.size(), session.env.build));
    }
  }
  if (spec.window == "all") {
    std::string warning =
        "window \"all\" spans the whole profiled run, setup included: units over that window are "
        "a profiled wall clock (nsys slows runs several-fold), not throughput; quote the "
        "roofline, or measure with gpuroof bench";
    system.message("gpuroof: warning: " + warning);
    session_warnings.push_back(warning);
  }
  const std::string produced_by = fmt::format(
      "gpuroof {} sweep (profiler {})", session.env.gpuroof_version, ProfilerName(spec.profiler));
  Progress progress(system, session.plan.runs.size());
  for (size_t i = 0; i < session.plan.runs.size(); ++i) {
    ThrowIfTerminated();
    const PlannedRun& run = session.plan.runs[i];
    if (auto done = finished.find(run.key); done != finished.end()) {
      const bool trace_there = done->second.trace.empty() ||
                               std::filesystem::exists(session.results / done->second.trace);
      if (done->second.params != run.params) {
        system.message(fmt::format(
            "gpuroof: note: --resume: {} has rows for build {} run with other parameters ({}; "
            "now {}); running it again",
            run.label, session.env.build, done->second.params, run.params));
      } else if (!unidentified.empty()) {
        system.message(fmt::format(
            "gpuroof: note: --resume: {} has rows for build {}, but that name does not identify "
            "one build ({}): they may come from other code; running it again",
            run.label, session.env.build, unidentified));
      } else if (!done->second.quotable && !lasting(run).empty() && trace_there) {
        system.message(fmt::format(
            "gpuroof: note: --resume: {} has rows for build {} that are not quotable, and "
            "running it again would not change why ({}); skipped",
            run.label, session.env.build, lasting(run)));
        ++outcome.skipped;
        continue;
      } else if (!done->second.quotable) {
        system.message(fmt::format(
            "gpuroof: note: --resume: {} has rows for build {}, but they are not quotable; "
            "running it again",
            run.label, session.env.build));
      } else if (!trace_there) {
        system.message(fmt::format(
            "gpuroof: note: --resume: {} has rows for build {}, but their trace {} is gone; "
            "running it again",
            run.label, session.env.build, done->second.trace));
      } else {
        system.message(
            fmt::format("gpuroof: note: --resume: {} already has rows for build {}; "
                        "skipped",
                        run.label, session.env.build));
        ++outcome.skipped;
        continue;
      }
    }
    // Rows of this key run with other parameters (a default edited outside the key): a success
    // replaces them under the key, so they and their trace are filed under another name.
    const EarlierRows earlier =
        FindEarlierRowsOfOtherParams(probes, ProbesHeader(), run.key, run.params);
    if (!earlier.rows.empty()) {
      system.message(fmt::format(
          "gpuroof: note: {}: probes.csv has {} row(s) of key {} run with other parameters ({}; "
          "now {}; build {}, {}); when this run succeeds they are kept under another key{}",
          run.label, earlier.rows.size(), run.key, earlier.params, run.params,
          earlier.build.empty() ? "?" : earlier.build, earlier.timestamp,
          earlier.trace.empty() ? "" : ", and their trace under another name"));
    }
    // A file at this configuration's trace name that no row points at (a file of the user's, or
    // a trace whose rows were deleted) is kept under the .earlier- rule, not written over.
    for (const std::string& name : TraceNames(spec, run)) {
      const std::filesystem::path from = session.results / name;
      std::error_code ec;
      if (!std::filesystem::exists(from, ec)) continue;
      const std::string now = FormatUtc(system.clock.Now());
      std::filesystem::path to = session.results / EarlierTraceName(name, run.file_stem, now);
      std::vector<std::string> manifest_row;  // the file's manifest row, when its sha matches
      {
        // The owners as they are now (a concurrent sweep may have published this trace since
        // this one started), read under the folder lock the sweeps merge their rows under.
        const FolderLock lock(session.results);
        const std::map<std::string, std::set<std::string>> owners = TraceOwners(probes);
        if (auto owner = owners.find(name); owner != owners.end()) {
          if (owner->second.count(run.key) > 0) continue;
          RefuseTraceOfOtherKeys(session, run, name, owner->second);
        }
        const CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
        const int artifact = manifest.Column("artifact");
        const int sha = manifest.Column("sha256");
        for (const auto& row : manifest.rows) {
          if (artifact >= 0 && sha >= 0 && row[artifact] == name && row[sha] == Sha256OfFile(from))
            manifest_row = row;
        }
        for (int n = 2; std::filesystem::exists(to, ec) && n < 1000; ++n)
          to = session.results / EarlierTraceName(name, run.file_stem, now, n);
        if (!std::filesystem::exists(to, ec)) std::filesystem::rename(from, to, ec);
        if (ec || std::filesystem::exists(from, ec)) {
          throw InputError(
              from.string(),
              fmt::format("no probes.csv row points at this file, and it cannot be "
                          "kept as {}: {}; move it away",
                          to.filename().string(), ec ? ec.message() : "that name exists"));
        }
      }
      if (!manifest_row.empty()) {
        // Its manifest row (what made it, when) goes with it, under the new name.
        const CsvTable manifest = ReadCsvFile(session.results / "manifest.csv");
        auto cell = [&](const char* column) {
          const int at = manifest.Column(column);
          return at >= 0 ? manifest_row[at] : std::string();
        };
        RecordArtifacts(session.results, {{to, cell("kind")}}, cell("config"), cell("build"),
                        cell("produced_by"), cell("timestamp"));
      }
      system.message(fmt::format(
          "gpuroof: note: {}: {} is no trace of a probes.csv row (a file of your own, or a trace "
          "whose rows were deleted): kept as {}, not written over",
          run.label, from.string(), to.filename().string()));
    }
    progress.Starting(i, run.label);
    ProbeRow base;
    static_cast<ResultRowIdentity&>(base) = RowIdentity(run, session.env.build);
    base.units = run.units;
    base.unit_name = spec.unit_name;
    base.timestamp = FormatUtc(system.clock.Now());
    if (!session.env.git_rev.empty())
      base.git_rev = session.env.git_rev + (session.env.git_dirty.value_or(false) ? "-dirty" : "");
    std::vector<std::string> warnings = session_warnings;
    std::string short_run = CheckMinimumUnits(run.units, spec.min_units, spec.unit_name);
    if (!short_run.empty()) {
      warnings.push_back(short_run);
      system.message(fmt::format("gpuroof: warning: {}: {}", run.label, short_run));
    }
    base.quotable = session.quotable && short_run.empty() && unidentified.empty();
    base.warnings = JoinWarnings(warnings);

    // The trace is analysed under its temporary name: one that cannot be read never replaces an
    // earlier good trace.
    std::vector<ProbeRow> rows;
    ProbeNotes notes;
    // The earlier trace of other parameters, moved away once the new trace proved readable (and
    // moved back when the run fails after all): path moved -> its new path.
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> moved;
    std::vector<std::string> keep_failures;
    auto analyse = [&](const std::filesystem::path& trace) {
      rows = AnalyzeProbeTrace(trace, spec.window, base, &notes);
      // env.json goes in place before the trace is published: a stamp that cannot be written
      // ends the sweep with the new trace discarded, never published beside rows of old bytes.
      env_json->Publish(system);
      if (earlier.trace.empty()) return;
      std::vector<std::string> names = {earlier.trace};
      if (spec.profiler == ProfilerKind::kNsys) names.push_back(run.file_stem + ".nsys-rep");
      for (const std::string& name : names) {
        const std::filesystem::path from = session.results / name;
        std::error_code ec;
        if (!std::filesystem::exists(from, ec)) continue;
        // Two replaced runs of one second: "<stem>.earlier-<time>-2<rest>", and so on.
        std::filesystem::path to =
            session.results / EarlierTraceName(name, run.file_stem, earlier.timestamp);
        for (int n = 2; std::filesystem::exists(to, ec) && n < 1000; ++n) {
          to = session.results / EarlierTraceName(name, run.file_stem, earlier.timestamp, n);
        }
        if (std::filesystem::exists(to, ec)) {
          keep_failures.push_back(fmt::format("{} exists", to.filename().string()));
          continue;
        }
        std::filesystem::rename(from, to, ec);
        if (ec) {
          keep_failures.push_back(
              fmt::format("cannot rename {}: {}", from.filename().string(), ec.message()));
          continue;
        }
        moved.emplace_back(from, to);
      }
    };
    ProfiledRun profiled;
    try {
      profiled = RunProfiled(spec, run, session.results, session.workdir, system.runner, analyse);
    } catch (const EnvPublishError& error) {
      throw InputError(error.file, error.what());
    }
    if (!profiled.ok) {
      for (const auto& [from, to] : moved) {
        std::error_code ec;
        if (!std::filesystem::exists(from, ec)) std::filesystem::rename(to, from, ec);
      }
      moved.clear();
    }
    base.profiled_wall_s = static_cast<double>(profiled.wall_ns) / 1e9;
    if (!profiled.warnings.empty()) {
      for (const std::string& warning : profiled.warnings) {
        system.message(fmt::format("gpuroof: warning: {}: {}", run.label, warning));
        warnings.push_back(warning);
      }
      base.warnings = JoinWarnings(warnings);
      base.quotable = false;
    }
    if (profiled.ok) {
      // What analyze says of the trace beside its figures: skipped records (data loss makes the
      // rows not quotable), reader notes, ops outside the window, devices left out.
      const std::string trace_name = profiled.trace.filename().string();
      std::vector<std::string> trace_notes = notes.trace;
      if (notes.data_loss && !trace_notes.empty()) {
        trace_notes.front() +=
            ": GPU work is missing from the figures, so the rows are not quotable";
      }
      for (size_t n = 0; n < trace_notes.size(); ++n) {
        const bool loss = n == 0 && notes.data_loss;
        system.message(fmt::format("gpuroof: {}: {}: {}: {}", loss ? "warning" : "note", run.label,
                                   trace_name, trace_notes[n]));
      }
      for (size_t r = 0; r < rows.size(); ++r) {
        ProbeRow& row = rows[r];
        std::vector<std::string> row_warnings = warnings;
        row_warnings.insert(row_warnings.end(), trace_notes.begin(), trace_notes.end());
        if (r < notes.devices.size()) {
          for (const std::string& note : notes.devices[r]) {
            const std::string text = fmt::format("device {}: {}", row.device, note);
            system.message(fmt::format("gpuroof: note: {}: {}", run.label, text));
            row_warnings.push_back(text);
          }
        }
        row.trace = trace_name;
        row.profiled_wall_s = base.profiled_wall_s;
        row.warnings = JoinWarnings(row_warnings);
        row.quotable = base.quotable && !notes.data_loss;
      }
      if (!earlier.rows.empty()) {
        std::string kept_trace;
        for (const auto& [from, to] : moved) {
          if (from.filename().string() == earlier.trace) kept_trace = to.filename().string();
        }
        // A trace that could not be moved was written over: its rows must not name the new one.
        const std::string key = RefileEarlierRows(
            probes, ProbesHeader(), earlier,
            kept_trace.empty() && !earlier.trace.empty() ? "(written over)" : kept_trace);
        std::vector<Artifact> kept;
        for (const auto& [from, to] : moved)
          kept.push_back({to, to.extension() == ".nsys-rep" ? "nsys-rep" : "trace"});
        RecordArtifacts(session.results, kept,
                        fmt::format("{} (earlier parameters: {})", run.label, earlier.params),
                        earlier.build, produced_by, earlier.timestamp);
        system.message(fmt::format(
            "gpuroof: note: {}: the {} earlier row(s) of parameters {} are kept in probes.csv "
            "under key {}{}{}",
            run.label, earlier.rows.size(), earlier.params, key,
            kept_trace.empty() ? "" : fmt::format(", their trace as {}", kept_trace),
            keep_failures.empty()
                ? ""
                : fmt::format(" (not kept, so replaced: {})", fmt::join(keep_failures, "; "))));
      }
    }
    if (!profiled.ok) {
      ProbeRow failed = base;
      failed.status = "failed";
      failed.quotable = false;
      failed.exit_code = profiled.exit_code;
      failed.error = profiled.error;
      rows = {failed};
      ++outcome.failed;
      system.message(fmt::format("gpuroof: error: {}: {}", run.label, profiled.error));
    }
    std::vector<std::vector<std::string>> cells;
    for (const ProbeRow& row : rows)
      cells.push_back(ProbeCells(row));
    // env.json describes the session of the rows it stands beside: written with the first ok row
    // (a sweep whose every configuration fails, or that is cut short in its first, leaves the
    // earlier one as it is), or with a failed row when the folder has none yet.
    if (!env_json->published() && !std::filesystem::exists(session.results / "env.json")) {
      try {
        env_json->Publish(system);
      } catch (const EnvPublishError& error) {
        throw InputError(error.file, error.what());
      }
    }
    // The trace and its manifest row first, then the probes row that refers to them.
    RecordArtifacts(session.results, profiled.artifacts, run.label, session.env.build, produced_by,
                    base.timestamp);
    // A failure never replaces the earlier ok rows of its key: they still describe the trace
    // that is still there.
    if (!MergeCampaignRows(probes, ProbesHeader(), cells, run.label, system).kept.empty())
      ++outcome.kept_earlier;
    outcome.rows.insert(outcome.rows.end(), rows.begin(), rows.end());
  }
  return outcome;
}

std::string RenderSweepPlan(const CampaignSession& session) {
  std::string out = fmt::format("dry run: nothing runs, nothing is written\nresults: {}\n",
                                session.results.string());
  out += fmt::format("key: label{}{}\n", session.plan.key_parameters.empty() ? "" : ", ",
                     fmt::join(session.plan.key_parameters, ", "));
  for (const PlannedRun& run : session.plan.runs) {
    std::filesystem::path trace = session.results / (run.file_stem + ".sqlite");
    out += fmt::format("\n{}\n  key:   {}\n  trace: {}\n  units: {}\n  argv: ", run.label, run.key,
                       trace.string(), run.units ? std::to_string(*run.units) : "-");
    for (const std::string& arg : ExpandArgv(session.spec, run, trace, session.results))
      out += " " + JsonQuote(arg);
    out += "\n";
  }
  return out;
}

std::string RenderSweepTable(const SweepOutcome& outcome) {
  std::string unit = outcome.rows.empty() ? "frame" : outcome.rows.front().unit_name;
  Table table = CampaignTable({"config", "kernel us/" + unit, "H2D us/" + unit, "D2H us/" + unit,
                               "bottleneck", "roofline us/" + unit, unit + "/s", "quotable"});
  bool several_devices = false;
  for (const ProbeRow& row : outcome.rows)
    several_devices = several_devices || (!row.device.empty() && row.device != "0");
  for (const ProbeRow& row : outcome.rows) {
    std::string config = row.label;
    if (several_devices && !row.device.empty()) config += " (device " + row.device + ")";
    if (row.status != "ok") {
      table.AddRow(CampaignRow({config, "-", "-", "-", "FAILED", "-", "-", "no"}));
      continue;
    }
    table.AddRow(CampaignRow(
        {config, FixedDouble(row.kernel_us_per_unit, 2), FixedDouble(row.h2d_us_per_unit, 2),
         FixedDouble(row.d2h_us_per_unit, 2), row.bottleneck.empty() ? "-" : row.bottleneck,
         FixedDouble(row.roofline_us_per_unit, 2), FixedDouble(row.roofline_units_per_s, 1),
         row.quotable ? "yes" : "no"}));
  }
  return RenderCampaignTable(outcome.results, table, outcome.failed, "probes.csv",
                             outcome.kept_earlier);
}

}  // namespace gpuroof
