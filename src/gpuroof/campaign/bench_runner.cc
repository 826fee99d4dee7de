#include "gpuroof/campaign/bench_runner.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "gpuroof/campaign/env_stamp_file.h"
#include "gpuroof/campaign/guards.h"
#include "gpuroof/campaign/manifest.h"
#include "gpuroof/campaign/profiler.h"
#include "gpuroof/campaign/regex_search.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/process/process_runner.h"

namespace gpuroof {

namespace {

constexpr int kStderrLinesKept = 5;

// A plain decimal number ("12", "-3.5", "1.2e3"), finite: strtod alone would also take "nan",
// "inf", "infinity" and hex floats ("0x1p3"), and overflow ("1e400") to infinity.
std::optional<double> ParseNumber(std::string text) {
  // Spaces around the number ("fps:(.*)" captures " 1234"): not part of it.
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  text = text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
  for (char c : text) {
    const bool plain =
        (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
    if (!plain) return std::nullopt;
  }
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value) || errno == ERANGE) {
    return std::nullopt;
  }
  return value;
}

// Whether `build` names one build: "unknown" (no identity rule, no git) and "<rev>-dirty" (a
// checkout with uncommitted edits, whatever they are) do not.
std::string UnidentifiedBuildReason(const std::string& build) {
  if (build == "unknown") return "no identity rule and no git revision";
  const std::string dirty = "-dirty";
  if (build.size() > dirty.size() &&
      build.compare(build.size() - dirty.size(), dirty.size(), dirty) == 0) {
    return "uncommitted edits, which differ from one session to the next";
  }
  return "";
}

// A percentage for people: one decimal, or 3 significant digits in exponent form once it is too
// large for fixed point to stay readable (a hand-edited roofline of 1e-300 gives 1e+304 %).
std::string PercentText(double pct) {
  if (std::fabs(pct) >= 1e6) return fmt::format("{:.3g}", pct);
  return fmt::format("{:.1f}", pct);
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts)
    out += (out.empty() ? "" : " | ") + part;
  return out;
}

// "Fake GPU + Fake GPU, driver 555.42" for a stamp's GPUs.
std::string GpusText(const GpuStatus& gpus) {
  std::vector<std::string> names;
  for (const GpuInfo& gpu : gpus.gpus)
    names.push_back(gpu.name);
  return fmt::format("{}, driver {}", fmt::join(names, " + "),
                     gpus.driver.empty() ? "?" : gpus.driver);
}

// When the results folder's env.json (the session of its probes rows, same build) names other
// GPUs or another driver than this bench's: the warning, naming both; "" otherwise or unknown.
std::string OtherGpusOfTheRoofline(const std::filesystem::path& results, const EnvStamp& env) {
  const std::filesystem::path path = results / "env.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || env.gpus.gpus.empty()) return "";
  EnvStamp probe;
  try {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    probe = ParseEnvJson(text.str(), path.string());
  } catch (const std::exception&) {
    return "";
  }
  if (probe.build != env.build || probe.gpus.gpus.empty()) return "";
  const std::string theirs = GpusText(probe.gpus);
  const std::string ours = GpusText(env.gpus);
  if (theirs == ours) return "";
  return fmt::format(
      "the roofline was taken on {} (env.json, {}), this bench runs on {}: the roofline may not "
      "bound this GPU's rate, so % of roofline and the peak are not quotable (run gpuroof sweep "
      "on this GPU)",
      theirs, probe.timestamp, ours);
}

// The labels of a ladder.csv's rows, in its order, joined by ";".
std::string LabelsIn(const std::filesystem::path& ladder) {
  CsvTable table = ReadCsvFile(ladder);
  int label = table.Column("label");
  std::vector<std::string> labels;
  for (const auto& row : table.rows) {
    if (label >= 0 && std::find(labels.begin(), labels.end(), row[label]) == labels.end())
      labels.push_back(row[label]);
  }
  return fmt::format("{}", fmt::join(labels, ";"));
}

}  // namespace

LadderFigures ComputeLadder(const std::vector<double>& units_per_s) {
  LadderFigures figures;
  if (units_per_s.empty()) return figures;
  figures.cold = units_per_s.front();
  if (units_per_s.size() < 2) return figures;
  auto [low, high] = std::minmax_element(units_per_s.begin() + 1, units_per_s.end());
  figures.warm = *high;
  if (*low > 0) figures.spread_pct = 100 * (*high - *low) / *low;
  return figures;
}

std::string BuildNotIdentifiedReason(const std::string& build) {
  return UnidentifiedBuildReason(build);
}

RooflineMatch FindRoofline(const CsvTable& probes, const std::string& key, const std::string& build,
                           const std::string& params, const std::optional<RooflineRun>& run) {
  RooflineMatch match;
  if (probes.header.empty()) {
    // ReadCsvFile's table of an absent (or empty) file: no probes at all, not the wrong columns.
    match.warnings.push_back(fmt::format(
        "no roofline for key {} of build {}: the results folder has no probes.csv, or an empty "
        "one (run gpuroof sweep first)",
        key, build));
    return match;
  }
  const std::optional<std::array<int, 8>> columns =
      probes.Columns({"key", "params", "build", "status", "roofline_units_per_s", "streams",
                      "quotable", "timestamp"});
  if (!columns) {
    match.warnings.push_back("probes.csv lacks the columns a roofline needs");
    return match;
  }
  const auto [key_column, params_column, build_column, status, roofline, streams, quotable,
              timestamp] = *columns;
  const int units_column = probes.Column("units");
  const int unit_name_column = probes.Column("unit_name");
  const int git_rev_column = probes.Column("git_rev");
  std::vector<std::string> other_units;     // "units X unit_name Y" of rows measuring other units
  std::vector<std::string> other_git_revs;  // of the joined rows, when not run->git_rev
  std::optional<std::string> multi_stream;
  bool not_quotable = false;
  std::vector<std::string> other_params;  // of ok rows of the key and build, not `params`
  int unreadable = 0;                     // matching rows whose roofline is no positive number
  for (const auto& row : probes.rows) {
    if (row[key_column] != key || row[build_column] != build || row[status] != "ok") continue;
    if (row[params_column] != params) {
      // A parameter outside the key (a default edited, a single-configuration file) changed:
      // the probe measured another run, and its roofline is not this one's.
      if (std::find(other_params.begin(), other_params.end(), row[params_column]) ==
          other_params.end())
        other_params.push_back(row[params_column]);
      continue;
    }
    if (run && units_column >= 0 && unit_name_column >= 0 &&
        (row[units_column] != run->units || row[unit_name_column] != run->unit_name)) {
      // Another unit count or unit name: the roofline is a rate of other units, never this one's.
      const std::string theirs =
          fmt::format("units {} {}", row[units_column].empty() ? "-" : row[units_column],
                      row[unit_name_column]);
      if (std::find(other_units.begin(), other_units.end(), theirs) == other_units.end())
        other_units.push_back(theirs);
      continue;
    }
    std::optional<double> value = ParseNumber(row[roofline]);
    if (!value || *value <= 0) {
      if (!row[roofline].empty()) ++unreadable;
      continue;
    }
    if (!match.units_per_s || *value < *match.units_per_s) match.units_per_s = value;
    std::optional<double> stream_count = ParseNumber(row[streams]);
    // Once per configuration, however many probes rows (devices, re-runs) it has.
    if (stream_count && *stream_count > 1 && !multi_stream) {
      multi_stream = fmt::format(
          "the roofline was taken with {} streams by a sweep at {}; with several streams the "
          "engines' overlap changes from session to session, so % of roofline is approximate",
          row[streams], row[timestamp]);
    }
    not_quotable = not_quotable || row[quotable] != "yes";
    if (run && git_rev_column >= 0 && row[git_rev_column] != run->git_rev &&
        std::find(other_git_revs.begin(), other_git_revs.end(), row[git_rev_column]) ==
            other_git_revs.end())
      other_git_revs.push_back(row[git_rev_column]);
  }
  if (multi_stream) match.warnings.push_back(*multi_stream);
  if (not_quotable) {
    match.quotable = false;
    match.warnings.push_back(
        "the roofline's probes row is not quotable, so neither is % of roofline nor the peak");
  }
  if (unreadable > 0) {
    match.warnings.push_back(fmt::format(
        "{} probes.csv row(s) of key {} have a roofline_units_per_s that is not a finite positive "
        "number; not used",
        unreadable, key));
  }
  if (match.units_per_s && !other_git_revs.empty()) {
    // The build identity rule decides what "the same build" is (as --resume and the sweep's
    // quotable do): another git revision is said, and quotable is left to the rule.
    std::vector<std::string> shown;
    for (const std::string& rev : other_git_revs)
      shown.push_back(rev.empty() ? "none (not in git)" : rev);
    match.warnings.push_back(fmt::format(
        "the roofline's probes row was made at git revision {}, this bench at {}; the identity "
        "rule says the builds are the same: if the change touched what is built, fix the rule "
        "or run gpuroof sweep again",
        fmt::join(shown, " | "), run->git_rev.empty() ? "none (not in git)" : run->git_rev));
  }
  if (!match.units_per_s && !other_units.empty()) {
    match.warnings.push_back(fmt::format(
        "no roofline for key {} of build {}: probes.csv has rows of this key measured in other "
        "units ({}; this bench: units {} {}); a roofline of other units is never used (run "
        "gpuroof sweep with these units)",
        key, build, fmt::join(other_units, " | "), run->units.empty() ? "-" : run->units,
        run->unit_name));
  } else if (!match.units_per_s && !other_params.empty()) {
    match.warnings.push_back(fmt::format(
        "no roofline for key {} of build {} with parameters {}: probes.csv has rows of this key "
        "run with other parameters ({}); a roofline taken with other parameters is never used "
        "(run gpuroof sweep with these parameters)",
        key, build, params, fmt::join(other_params, " | ")));
  } else if (!match.units_per_s) {
    match.warnings.push_back(fmt::format(
        "no roofline for key {} of build {} in probes.csv (run gpuroof sweep first; a roofline "
        "taken at another key is never used)",
        key, build));
  }
  if (match.units_per_s) {
    const std::string reason = UnidentifiedBuildReason(build);
    if (!reason.empty()) {
      match.quotable = false;
      match.warnings.push_back(fmt::format(
          "the build is called '{}' ({}): the probe's build and this one may differ, so % of "
          "roofline and the peak are not quotable (give [build] an identity rule)",
          build, reason));
    }
  }
  return match;
}

const std::vector<std::string>& LadderHeader() {
  static const std::vector<std::string> header = {"key",
                                                  "label",
                                                  "params",
                                                  "build",
                                                  "reps",
                                                  "metric",
                                                  "reps_units_per_s",
                                                  "cold_units_per_s",
                                                  "warm_units_per_s",
                                                  "spread_pct",
                                                  "roofline_units_per_s",
                                                  "pct_of_roofline",
                                                  "peak_units_per_s",
                                                  "quotable",
                                                  "status",
                                                  "exit_code",
                                                  "error",
                                                  "warnings",
                                                  "timestamp"};
  return header;
}

std::vector<std::string> LadderCells(const LadderRow& row) {
  std::string reps;
  for (double value : row.rep_units_per_s)
    reps += (reps.empty() ? "" : ";") + ShortestDouble(value);
  bool ok = row.status == "ok";
  return {row.key,
          row.label,
          row.params,
          row.build,
          std::to_string(row.reps),
          row.metric,
          reps,
          ok ? ShortestDouble(row.figures.cold) : "",
          ShortestDouble(row.figures.warm),
          ShortestDouble(row.figures.spread_pct),
          ShortestDouble(row.roofline_units_per_s),
          ShortestDouble(row.pct_of_roofline),
          ShortestDouble(row.peak_units_per_s),
          row.quotable ? "yes" : "no",
          row.status,
          row.exit_code ? std::to_string(*row.exit_code) : "",
          row.error,
          row.warnings,
          row.timestamp};
}

BenchOutcome RunBench(const CampaignSession& session, const BenchOptions& options,
                      CampaignSystem& system) {
  const SweepSpec& spec = session.spec;
  const bool metric = !options.metric_regex.empty();
  if (metric) {
    CheckRegex(options.metric_regex, "--metric-regex");
  } else if (spec.units.empty()) {
    throw InputError(spec.source,
                     "bench measures wall time per unit: give [run] units, or "
                     "--metric-regex for a throughput the command prints");
  }
  BenchOutcome outcome;
  outcome.results = session.results;
  const CsvTable probes = ReadCsvFile(session.results / "probes.csv");
  const std::filesystem::path ladder = session.results / "ladder.csv";
  // Files this bench would refuse to merge into are refused before anything runs.
  CheckCsvHeader(ladder, LadderHeader());
  CheckCsvHeader(session.results / "manifest.csv", ManifestHeader());
  RemoveStalePartialFiles(session.results, session.spec,
                          [&system](const std::string& line) { system.message(line); });
  // A command that writes a trace (profiler "command") gets a scratch path, removed after each rep.
  const std::filesystem::path scratch =
      session.results / fmt::format(".bench-scratch-{}.sqlite", ProcessTag());
  const std::string other_gpus = OtherGpusOfTheRoofline(session.results, session.env);
  Progress progress(system, session.plan.runs.size());
  for (size_t i = 0; i < session.plan.runs.size(); ++i) {
    ThrowIfTerminated();
    const PlannedRun& run = session.plan.runs[i];
    progress.Starting(i, run.label);
    LadderRow row;
    static_cast<ResultRowIdentity&>(row) = RowIdentity(run, session.env.build);
    row.reps = options.reps;
    row.metric = metric ? "regex" : "wall";
    row.timestamp = FormatUtc(system.clock.Now());
    std::vector<std::string> warnings = session.warnings;
    std::string short_run = CheckMinimumUnits(run.units, spec.min_units, spec.unit_name);
    if (!short_run.empty()) warnings.push_back(short_run);
    // As the sweep's rows: a build that cannot be tied to one source tree is not quotable, with or
    // without a roofline to join (the join says so itself when there is one).
    const std::string unidentified = BuildNotIdentifiedReason(session.env.build);
    row.quotable = session.quotable && short_run.empty() && unidentified.empty();
    for (int rep = 0; rep < options.reps && row.status == "ok"; ++rep) {
      ProcessResult result =
          system.runner.Run({ExpandArgv(spec, run, scratch, session.results), session.workdir,
                             ExpandEnv(spec, run, scratch, session.results)});
      std::error_code ec;
      std::filesystem::remove(scratch, ec);
      ThrowIfTerminated();  // the rep was cut short: no row for this configuration
      if (result.exit_code != 0) {
        row.status = "failed";
        row.exit_code = result.exit_code;
        const std::string said = LastLines(result.err, kStderrLinesKept);
        row.error = fmt::format("rep {} {}{}{}", rep + 1, DescribeExit(result.exit_code),
                                said.empty() ? "" : ": ", said);
        break;
      }
      if (metric) {
        std::optional<std::string> found =
            RegexFirstMatch(options.metric_regex, result.out, "--metric-regex");
        std::optional<double> value = found ? ParseNumber(*found) : std::nullopt;
        if (!value || *value <= 0) {
          row.status = "failed";
          row.error = found
                          ? fmt::format(
                                "rep {}: --metric-regex found '{}' in stdout, not a finite "
                                "positive number",
                                rep + 1, *found)
                          : fmt::format("rep {}: --metric-regex found no positive number in stdout",
                                        rep + 1);
          break;
        }
        row.rep_units_per_s.push_back(*value);
      } else {
        double wall_s = static_cast<double>(std::max<int64_t>(result.wall_ns, 1)) / 1e9;
        row.rep_units_per_s.push_back(static_cast<double>(*run.units) / wall_s);
      }
    }
    if (row.status == "ok") {
      row.figures = ComputeLadder(row.rep_units_per_s);
      // As the sweep records them in the probes row (ProbeCells, RunSweep's git_rev).
      RooflineRun measured;
      measured.units = run.units ? std::to_string(*run.units) : "";
      measured.unit_name = spec.unit_name;
      if (!session.env.git_rev.empty()) {
        measured.git_rev =
            session.env.git_rev + (session.env.git_dirty.value_or(false) ? "-dirty" : "");
      }
      RooflineMatch roofline =
          FindRoofline(probes, run.key, session.env.build, run.params, measured);
      warnings.insert(warnings.end(), roofline.warnings.begin(), roofline.warnings.end());
      if (!unidentified.empty() && !roofline.units_per_s) {
        warnings.push_back(fmt::format(
            "the build is called '{}' ({}): the rows cannot be tied to the code that made them, "
            "so they are not quotable (give [build] an identity rule, or commit)",
            session.env.build, unidentified));
      }
      row.roofline_units_per_s = roofline.units_per_s;
      // Figures derived from a roofline that cannot be quoted cannot be quoted either.
      if (roofline.units_per_s && !roofline.quotable) row.quotable = false;
      if (roofline.units_per_s && !other_gpus.empty()) {
        row.quotable = false;
        warnings.push_back(other_gpus);
      }
      if (roofline.units_per_s && row.figures.warm) {
        row.pct_of_roofline = 100 * *row.figures.warm / *roofline.units_per_s;
        if (*row.pct_of_roofline > 100 + kRooflineTolerancePct) {
          // The roofline bounds the rate from above: beating it means the probe and the bench
          // measured different work (units, build, settings), so neither peak can be quoted.
          row.quotable = false;
          warnings.push_back(fmt::format(
              "the warm rate is {}% of the roofline, above the {:.0f}% an upper bound "
              "allows: the probe and the bench do not measure the same work (units, build or "
              "settings differ); no peak, not quotable",
              PercentText(*row.pct_of_roofline), 100 + kRooflineTolerancePct));
        } else {
          row.peak_units_per_s = std::min(*roofline.units_per_s, *row.figures.warm);
        }
      }
    } else {
      row.quotable = false;
      ++outcome.failed;
      system.message(fmt::format("gpuroof: error: {}: {}", run.label, row.error));
    }
    for (const std::string& warning : warnings)
      system.message(fmt::format("gpuroof: warning: {}: {}", run.label, warning));
    // The ok rows of this key run with other parameters (a default edited outside the key) would
    // be replaced by this row: they are filed under another key instead, and said.
    if (row.status == "ok") {
      const EarlierRows earlier =
          FindEarlierRowsOfOtherParams(ladder, LadderHeader(), run.key, run.params);
      if (!earlier.rows.empty()) {
        const std::string kept = RefileEarlierRows(ladder, LadderHeader(), earlier, "");
        system.message(fmt::format(
            "gpuroof: note: {}: ladder.csv has {} row(s) of key {} run with other parameters "
            "({}; now {}; build {}, {}): kept under key {}",
            run.label, earlier.rows.size(), run.key, earlier.params, run.params,
            earlier.build.empty() ? "?" : earlier.build, earlier.timestamp, kept));
      }
    }
    row.warnings = Join(warnings);
    // A failure never replaces the earlier ok rows of its key: they stay, and a note says so.
    const CsvMergeResult merged =
        MergeCampaignRows(ladder, LadderHeader(), {LadderCells(row)}, run.label, system);
    if (!merged.kept.empty()) ++outcome.kept_earlier;
    // The manifest row describes the whole ladder.csv, rows of earlier benches included: every
    // label in it (each row has its own reps column). A failure that changed nothing in it leaves
    // the row as the bench that wrote it left it.
    if (merged.changed) {
      RecordArtifacts(session.results, {{ladder, "ladder"}}, LabelsIn(ladder), session.env.build,
                      fmt::format("gpuroof {} bench", session.env.gpuroof_version), row.timestamp);
    }
    outcome.rows.push_back(std::move(row));
  }
  return outcome;
}

std::string RenderBenchTable(const BenchOutcome& outcome, const std::string& unit_name) {
  Table table = CampaignTable({"config", "cold " + unit_name + "/s", "warm " + unit_name + "/s",
                               "spread %", "roofline " + unit_name + "/s", "% of roofline",
                               "peak " + unit_name + "/s", "quotable"});
  for (const LadderRow& row : outcome.rows) {
    if (row.status != "ok") {
      table.AddRow(CampaignRow({row.label, "FAILED", "-", "-", "-", "-", "-", "no"}));
      continue;
    }
    table.AddRow(CampaignRow(
        {row.label, FixedDouble(row.figures.cold, 1), FixedDouble(row.figures.warm, 1),
         FixedDouble(row.figures.spread_pct, 1), FixedDouble(row.roofline_units_per_s, 1),
         row.pct_of_roofline && std::fabs(*row.pct_of_roofline) >= 1e6
             ? PercentText(*row.pct_of_roofline)
             : FixedDouble(row.pct_of_roofline, 1),
         FixedDouble(row.peak_units_per_s, 1), row.quotable ? "yes" : "no"}));
  }
  return RenderCampaignTable(outcome.results, table, outcome.failed, "ladder.csv",
                             outcome.kept_earlier);
}

}  // namespace gpuroof
