#include "gpuroof/campaign/profiler.h"

#include <fmt/format.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/nsys_report_export.h"

namespace gpuroof {

namespace {

constexpr int kStderrLinesKept = 5;

std::filesystem::path PartialPath(const std::filesystem::path& results, const std::string& stem,
                                  const std::string& extension) {
  return results / fmt::format(".{}.partial-{}{}", stem, getpid(), extension);
}

bool IsFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

void Discard(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

// Renames `from` to `to`; on failure records why in `run`.
bool Publish(const std::filesystem::path& from, const std::filesystem::path& to, ProfiledRun& run) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec) {
    run.error = fmt::format("cannot rename {} to {}: {}", from.string(), to.string(), ec.message());
    Discard(from);
    return false;
  }
  return true;
}

ProfiledRun Failed(const ProcessResult& result, const std::string& what) {
  ProfiledRun run;
  run.exit_code = result.exit_code;
  run.wall_ns = result.wall_ns;
  std::string tail = LastLines(result.err, kStderrLinesKept);
  run.error = fmt::format("{} exited with status {}{}{}", what, result.exit_code,
                          tail.empty() ? "" : ": ", tail);
  return run;
}

ProfiledRun RunCommandProfiler(const SweepSpec& spec, const PlannedRun& planned,
                               const std::filesystem::path& results,
                               const std::filesystem::path& workdir, ProcessRunner& runner) {
  std::filesystem::path partial = PartialPath(results, planned.file_stem, ".sqlite");
  std::filesystem::path trace = results / (planned.file_stem + ".sqlite");
  ProcessResult result = runner.Run({ExpandArgv(spec, planned, partial, results), workdir,
                                     ExpandEnv(spec, planned, partial, results)});
  if (result.exit_code != 0) {
    Discard(partial);
    return Failed(result, "the command");
  }
  ProfiledRun run;
  run.wall_ns = result.wall_ns;
  if (!IsFile(partial)) {
    run.error = "the command succeeded but wrote no trace at {trace}";
    return run;
  }
  if (!Publish(partial, trace, run)) return run;
  run.ok = true;
  run.trace = trace;
  run.artifacts.push_back({trace, "trace"});
  return run;
}

ProfiledRun RunNsysProfiler(const SweepSpec& spec, const PlannedRun& planned,
                            const std::filesystem::path& results,
                            const std::filesystem::path& workdir, ProcessRunner& runner) {
  const std::string nsys = FindNsysProgram();
  std::filesystem::path partial_base = PartialPath(results, planned.file_stem, "");
  std::filesystem::path partial_rep = partial_base;
  partial_rep += ".nsys-rep";
  std::filesystem::path rep = results / (planned.file_stem + ".nsys-rep");
  std::filesystem::path trace = results / (planned.file_stem + ".sqlite");
  // Kernels and copies only: CPU sampling and context-switch tracing add overhead the figures do
  // not need.
  std::vector<std::string> argv = {nsys,
                                   "profile",
                                   "--trace=cuda",
                                   "--sample=none",
                                   "--cpuctxsw=none",
                                   "--force-overwrite=true",
                                   "--output=" + partial_base.string()};
  for (std::string& arg : ExpandArgv(spec, planned, trace, results))
    argv.push_back(std::move(arg));
  ProcessResult profiled = runner.Run({argv, workdir, ExpandEnv(spec, planned, trace, results)});
  if (profiled.exit_code != 0) {
    Discard(partial_rep);
    return Failed(profiled, "nsys profile");
  }
  ProfiledRun run;
  run.wall_ns = profiled.wall_ns;
  if (!IsFile(partial_rep)) {
    run.error = "nsys profile succeeded but wrote no report (did the command use CUDA?)";
    return run;
  }
  std::filesystem::path partial_sqlite = PartialPath(results, planned.file_stem, ".sqlite");
  ProcessResult exported =
      runner.Run({{nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "--output",
                   partial_sqlite.string(), partial_rep.string()},
                  {},
                  {}});
  if (exported.exit_code != 0 || !IsFile(partial_sqlite)) {
    Discard(partial_rep);
    Discard(partial_sqlite);
    ProfiledRun failed = Failed(exported, "nsys export");
    failed.wall_ns = profiled.wall_ns;
    return failed;
  }
  if (!Publish(partial_rep, rep, run) || !Publish(partial_sqlite, trace, run)) return run;
  run.ok = true;
  run.trace = trace;
  run.artifacts.push_back({rep, "nsys-rep"});
  run.artifacts.push_back({trace, "trace"});
  return run;
}

}  // namespace

void CheckProfilerAvailable(const SweepSpec& spec) {
  const std::string& origin = spec.profiler_origin.empty() ? spec.source : spec.profiler_origin;
  if (spec.profiler == ProfilerKind::kRecord) {
    throw InputError(origin,
                     "profiler \"record\" (gpuroof's own recorder) is not available in this "
                     "build; use profiler = \"nsys\" or \"command\"");
  }
  if (spec.profiler == ProfilerKind::kNsys && FindNsysProgram().empty()) {
    throw InputError(origin, "profiler \"nsys\": nsys is not on PATH (nor named by $NSYS)");
  }
}

ProfiledRun RunProfiled(const SweepSpec& spec, const PlannedRun& run,
                        const std::filesystem::path& results, const std::filesystem::path& workdir,
                        ProcessRunner& runner) {
  if (spec.profiler == ProfilerKind::kCommand) {
    return RunCommandProfiler(spec, run, results, workdir, runner);
  }
  return RunNsysProfiler(spec, run, results, workdir, runner);
}

}  // namespace gpuroof
