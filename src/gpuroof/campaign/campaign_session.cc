#include "gpuroof/campaign/campaign_session.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "gpuroof/campaign/guards.h"
#include "gpuroof/format/table_text.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// Throws InputError when the results folder, or the nearest of its parents that exists, is
// something other than a folder (e.g. `--results` naming a file): it could never be created.
void RefuseFileOnResultsPath(const std::filesystem::path& results) {
  for (std::filesystem::path path = results; !path.empty(); path = path.parent_path()) {
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (std::filesystem::is_directory(status)) return;
    if (std::filesystem::exists(status)) {
      throw InputError(results.string(), fmt::format("cannot create the results folder: {} is "
                                                     "not a folder",
                                                     path.string()));
    }
    if (path == path.parent_path()) return;
  }
}

// Throws InputError naming argv's "file:line" when the program argv[0] names cannot be run: a
// path with '/' (relative to `workdir`) that is no executable file, or a bare name found on no
// PATH folder (the sweep file's env PATH when it sets one). An argv[0] with a placeholder is
// known only per configuration and is not checked.
void CheckProgram(const SweepSpec& spec, const std::filesystem::path& workdir) {
  if (spec.argv.empty()) return;
  const std::string& program = spec.argv.front();
  if (program.empty() || program.find('{') != std::string::npos) return;
  const std::string origin = spec.argv_origins.empty() ? spec.source : spec.argv_origins.front();
  auto runnable = [](const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
  };
  if (program.find('/') != std::string::npos) {
    std::filesystem::path path = program;
    if (path.is_relative()) path = workdir / path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      throw InputError(origin, fmt::format("argv[0] {} does not exist", path.string()));
    }
    if (!runnable(path)) {
      throw InputError(origin, fmt::format("argv[0] {} is not an executable file", path.string()));
    }
    return;
  }
  // The PATH that will be searched: the command and record profilers start argv[0] with
  // posix_spawnp, which searches gpuroof's own PATH (glibc's default "/bin:/usr/bin" when it is
  // unset), not the child's; under nsys, nsys starts it with the child's environment, where the
  // sweep file's env PATH (when it sets one) replaces gpuroof's.
  const char* own = std::getenv("PATH");
  std::string search = own != nullptr ? own : "/bin:/usr/bin";
  bool set_by_spec = false;
  if (spec.profiler == ProfilerKind::kNsys) {
    for (const auto& [name, value] : spec.env) {
      if (name != "PATH") continue;
      if (value.find('{') != std::string::npos) return;  // known only per configuration
      search = value;
      set_by_spec = true;
    }
  }
  std::stringstream folders(search);
  for (std::string folder; std::getline(folders, folder, ':');) {
    std::filesystem::path dir =
        folder.empty() ? std::filesystem::path(".") : std::filesystem::path(folder);
    if (dir.is_relative()) dir = workdir / dir;
    if (runnable(dir / program)) return;
  }
  throw InputError(origin, fmt::format("argv[0] {} is no executable file on PATH{}", program,
                                       set_by_spec ? " (the sweep file's env PATH, which nsys uses)"
                                                   : " (gpuroof's own PATH, which starts it)"));
}

}  // namespace

CampaignSession OpenCampaign(const SweepSpec& spec, const CampaignOptions& options,
                             CampaignSystem& system) {
  if (options.results_root.empty()) {
    throw InputError("--results", "is empty: name the folder results go under (default: results)");
  }
  CampaignSession session;
  session.spec = spec;
  session.plan = PlanSweep(spec, options.overrides, options.only);
  session.workdir = spec.workdir;
  std::error_code ec;
  if (!std::filesystem::is_directory(session.workdir, ec)) {
    throw InputError(spec.workdir_origin.empty() ? spec.source : spec.workdir_origin,
                     fmt::format("workdir {} is not a folder", spec.workdir));
  }
  if (options.check_program) {
    try {
      CheckProgram(spec, session.workdir);
    } catch (const InputError& error) {
      if (!options.dry_run) throw;
      system.message(std::string("gpuroof: warning: (dry run) would refuse: ") + error.what());
    }
  }
  GpuStatus gpus = system.probe_gpus();
  session.env =
      CollectEnvStamp(session.workdir, system.runner, system.clock, gpus, options.gpuroof_version);
  BuildIdentity build;
  try {
    build = ReadBuildIdentity(spec, session.workdir, system.runner, session.env);
  } catch (const InputError& error) {
    // A dry run shows the plan of a checkout that was not built yet (the bundled example): the
    // identity is "unknown", said once; a real run refuses, since its rows could not be quoted.
    if (!options.dry_run) throw;
    build.value = "unknown";
    build.source = "unknown (dry run)";
    system.message(std::string("gpuroof: warning: (dry run) build identity unknown: ") +
                   error.what());
  }
  session.env.build = build.value;
  session.env.build_source = build.source;

  auto refuse = [&](const std::string& message) {
    if (!options.dry_run) throw CheckFailed(message);
    system.message("gpuroof: warning: (dry run) would refuse: " + message);
  };
  Freshness freshness = CheckBuildFreshness(spec.build, session.workdir, system.files);
  if (!freshness.fresh) refuse(freshness.message);
  GpuIdleness idle = CheckGpuIdle(gpus, spec.max_gpu_utilisation_pct, options.allow_busy_gpu);
  if (idle.refuse) refuse(idle.message);
  if (!idle.note.empty()) system.message("gpuroof: note: " + idle.note);
  if (!idle.quotable) {
    session.quotable = false;
    session.warnings.push_back(idle.message);
    system.message("gpuroof: warning: " + idle.message);
  }
  if (build.source == "git" || build.source == "none") {
    system.message(fmt::format(
        "gpuroof: note: {} gives no build identity rule; the build is "
        "called '{}' ({})",
        spec.source, build.value, build.source == "git" ? "the git revision" : "no git either"));
  }
  // Absolute: {trace}, {results} and nsys --output= reach a process that runs in `workdir`.
  std::filesystem::path root = std::filesystem::absolute(options.results_root, ec);
  if (ec) root = options.results_root;
  session.results =
      (root / ResultsFolderName(FormatUtcDate(system.clock.Now()), build.value, options.tag))
          .lexically_normal();
  // What creating the folder would meet, said the same way under --dry-run (which creates nothing).
  RefuseFileOnResultsPath(session.results);
  if (!options.dry_run) {
    std::filesystem::create_directories(session.results, ec);
    if (ec) {
      throw InputError(session.results.string(),
                       "cannot create the results folder: " + ec.message());
    }
  }
  return session;
}

Table CampaignTable(const std::vector<std::string>& titles) {
  std::vector<TableColumn> columns;
  for (const std::string& title : titles) {
    columns.push_back(
        MakeColumn(title, title, columns.empty() ? ColumnUnit::kText : ColumnUnit::kFigure));
  }
  return Table(std::move(columns));
}

std::vector<TableCell> CampaignRow(const std::vector<std::string>& cells) {
  return {cells.begin(), cells.end()};
}

std::string RenderCampaignTable(const std::filesystem::path& results, const Table& table,
                                int failed, const std::string& csv_name, int kept) {
  std::string out = fmt::format("results: {}\n", results.string());
  TextTableOptions layout;
  layout.indent = "";
  out += RenderTableText(table, layout);
  if (failed > 0 && kept > 0) {
    out += fmt::format(
        "{} configuration(s) failed; see {} and the errors above ({} of the failures are not in "
        "{}: it keeps the earlier ok rows of their keys)\n",
        failed, csv_name, kept, csv_name);
  } else if (failed > 0) {
    out += fmt::format("{} configuration(s) failed; see {}\n", failed, csv_name);
  }
  return out;
}

CsvMergeResult MergeCampaignRows(const std::filesystem::path& csv,
                                 const std::vector<std::string>& header,
                                 const std::vector<std::vector<std::string>>& rows,
                                 const std::string& label, CampaignSystem& system) {
  CsvMergeOptions options;
  options.failures_keep_ok_rows = true;
  CsvMergeResult result = MergeCsvRows(csv, header, "key", rows, options);
  auto column = [&header](const char* name) {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  const int build = column("build");
  const int timestamp = column("timestamp");
  for (const CsvKeptRows& kept : result.kept) {
    // The rows of one key come from one run: one build and time, but say every one there is.
    std::vector<std::string> origins;
    for (const auto& row : kept.rows) {
      // An older file may lack a column, or have it empty: "?" rather than nothing.
      auto cell = [&row](int index) {
        if (index < 0 || row[static_cast<size_t>(index)].empty()) return std::string("?");
        return row[static_cast<size_t>(index)];
      };
      std::string origin = fmt::format("build {}, {}", cell(build), cell(timestamp));
      if (std::find(origins.begin(), origins.end(), origin) == origins.end())
        origins.push_back(std::move(origin));
    }
    system.message(fmt::format(
        "gpuroof: note: {}: {} keeps its {} earlier ok row{} for key {} ({}); the failure is "
        "not written over {}",
        label, csv.filename().string(), kept.rows.size(), kept.rows.size() == 1 ? "" : "s",
        kept.key, fmt::join(origins, "; "), kept.rows.size() == 1 ? "it" : "them"));
  }
  return result;
}

EarlierRows FindEarlierRowsOfOtherParams(const std::filesystem::path& csv,
                                         const std::vector<std::string>& header,
                                         const std::string& key, const std::string& params) {
  EarlierRows earlier;
  CsvTable table = ReadCsvFile(csv);
  const int key_column = table.Column("key");
  const int params_column = table.Column("params");
  const int status = table.Column("status");
  if (key_column < 0 || params_column < 0 || status < 0) return earlier;
  auto cell = [&table](const std::vector<std::string>& row, const char* name) {
    const int index = table.Column(name);
    return index < 0 ? std::string() : row[static_cast<size_t>(index)];
  };
  std::vector<std::vector<std::string>> of_key;
  bool ok = false;
  for (auto& row : table.rows) {
    if (row[key_column] != key) continue;
    ok = ok || row[status] == "ok";
    of_key.push_back(row);
  }
  // Only ok rows are ever replaced (a failure keeps them), and only rows of other parameters
  // describe another run.
  if (!ok || of_key.empty() || cell(of_key.front(), "params") == params) return earlier;
  earlier.params = cell(of_key.front(), "params");
  earlier.build = cell(of_key.front(), "build");
  earlier.timestamp = cell(of_key.front(), "timestamp");
  earlier.trace = cell(of_key.front(), "trace");
  for (auto& row : of_key) {
    row.resize(header.size());  // an older file's rows: empty cells for the newer columns
    earlier.rows.push_back(std::move(row));
  }
  return earlier;
}

std::string RefileEarlierRows(const std::filesystem::path& csv,
                              const std::vector<std::string>& header, const EarlierRows& earlier,
                              const std::string& trace) {
  auto column = [&header](const char* name) {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : static_cast<int>(it - header.begin());
  };
  std::string stamp;
  for (char c : earlier.timestamp) {
    if (c != '-' && c != ':') stamp += c;
  }
  // Unique: two runs replaced within one second get "-2", "-3", ... (as their traces' names do),
  // so that refiling one never writes over the other's rows.
  std::set<std::string> keys;
  std::error_code ec;
  if (std::filesystem::exists(csv, ec)) {
    const CsvTable table = ReadCsvFile(csv);
    if (const int at = table.Column("key"); at >= 0) {
      for (const auto& row : table.rows)
        if (static_cast<size_t>(at) < row.size()) keys.insert(row[static_cast<size_t>(at)]);
    }
  }
  const std::string base_key = earlier.rows.empty()
                                   ? std::string()
                                   : earlier.rows.front()[static_cast<size_t>(column("key"))] +
                                         ";replaced=" + (stamp.empty() ? "?" : stamp);
  std::string key = base_key;
  for (int n = 2; keys.count(key) > 0 && n < 1000; ++n)
    key = fmt::format("{}-{}", base_key, n);
  std::vector<std::vector<std::string>> rows = earlier.rows;
  for (auto& row : rows) {
    row[static_cast<size_t>(column("key"))] = key;
    if (!trace.empty() && column("trace") >= 0) row[static_cast<size_t>(column("trace"))] = trace;
  }
  MergeCsvRows(csv, header, "key", rows);
  return key;
}

Progress::Progress(CampaignSystem& system, size_t total)
    : system_(system), total_(total), started_(system.clock.Now()) {}

void Progress::Starting(size_t index, const std::string& label) {
  if (!system_.progress) return;
  double elapsed_s = std::chrono::duration<double>(system_.clock.Now() - started_).count();
  std::string left =
      index == 0 ? ""
                 : fmt::format(", about {:.0f} s left", elapsed_s / static_cast<double>(index) *
                                                            static_cast<double>(total_ - index));
  system_.message(
      fmt::format("[{}/{}] {}: {:.0f} s elapsed{}", index + 1, total_, label, elapsed_s, left));
}

}  // namespace gpuroof
