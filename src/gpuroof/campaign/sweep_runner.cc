#include "gpuroof/campaign/sweep_runner.h"

#include <map>

#include <fmt/format.h>

#include "gpuroof/campaign/csv_store.h"
#include "gpuroof/campaign/guards.h"
#include "gpuroof/campaign/manifest.h"
#include "gpuroof/campaign/profiler.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/format/number_format.h"
#include "gpuroof/format/output_file.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/process/process_runner.h"

namespace gpuroof {

namespace {

std::string JoinWarnings(const std::vector<std::string>& warnings) {
  std::string out;
  for (const std::string& warning : warnings)
    out += (out.empty() ? "" : " | ") + warning;
  return out;
}

// The ok rows of this build already in probes.csv: key -> the params they were run with.
std::map<std::string, std::string> FinishedKeys(const std::filesystem::path& probes,
                                                const std::string& build) {
  CsvTable table = ReadCsvFile(probes);
  std::map<std::string, std::string> keys;
  int key = table.Column("key");
  int row_build = table.Column("build");
  int status = table.Column("status");
  int params = table.Column("params");
  if (key < 0 || row_build < 0 || status < 0 || params < 0) return keys;
  for (const auto& row : table.rows) {
    if (row[row_build] == build && row[status] == "ok") keys[row[key]] = row[params];
  }
  return keys;
}

}  // namespace

void CheckSweepResultsFiles(const CampaignSession& session) {
  CheckCsvHeader(session.results / "probes.csv", ProbesHeader());
  CheckCsvHeader(session.results / "manifest.csv", ManifestHeader());
}

SweepOutcome RunSweep(const CampaignSession& session, bool resume, CampaignSystem& system) {
  const SweepSpec& spec = session.spec;
  SweepOutcome outcome;
  outcome.results = session.results;
  const std::filesystem::path probes = session.results / "probes.csv";
  CheckSweepResultsFiles(session);
  RemoveStalePartialFiles(session.results,
                          [&system](const std::string& line) { system.message(line); });
  WriteFileAtomically(session.results / "env.json", RenderEnvJson(session.env));
  std::map<std::string, std::string> finished;
  if (resume) finished = FinishedKeys(probes, session.env.build);
  std::vector<std::string> session_warnings = session.warnings;
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
      if (done->second == run.params) {
        system.message(
            fmt::format("gpuroof: note: --resume: {} already has rows for build {}; "
                        "skipped",
                        run.label, session.env.build));
        ++outcome.skipped;
        continue;
      }
      system.message(fmt::format(
          "gpuroof: note: --resume: {} has rows for build {} run with other parameters ({}; "
          "now {}); running it again",
          run.label, session.env.build, done->second, run.params));
    }
    progress.Starting(i, run.label);
    ProbeRow base;
    base.key = run.key;
    base.label = run.label;
    base.params = run.params;
    base.build = session.env.build;
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
    base.quotable = session.quotable && short_run.empty();
    base.warnings = JoinWarnings(warnings);

    // The trace is analysed under its temporary name: one that cannot be read never replaces an
    // earlier good trace.
    std::vector<ProbeRow> rows;
    auto analyse = [&](const std::filesystem::path& trace) {
      rows = AnalyzeProbeTrace(trace, spec.window, base);
    };
    ProfiledRun profiled =
        RunProfiled(spec, run, session.results, session.workdir, system.runner, analyse);
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
      for (ProbeRow& row : rows) {
        row.trace = profiled.trace.filename().string();
        row.profiled_wall_s = base.profiled_wall_s;
        row.warnings = base.warnings;
        row.quotable = base.quotable;
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
