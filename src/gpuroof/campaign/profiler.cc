#include "gpuroof/campaign/profiler.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>

#include "gpuroof/campaign/guards.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/nsys_report_export.h"
#include "gpuroof/readers/reader_registry.h"
#include "gpuroof/recorder/recorder_launch.h"
#include "gpuroof/recorder/recorder_warnings.h"

namespace gpuroof {

namespace {

constexpr int kStderrLinesKept = 5;

std::filesystem::path PartialPath(const std::filesystem::path& results, const std::string& stem,
                                  const std::string& extension) {
  return results / fmt::format(".{}.partial-{}{}", stem, ProcessTag(), extension);
}

bool IsFile(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

void Discard(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
}

// Renames `from` to `to` unless `to` exists (any file, a symbolic link too): 0, or the errno
// (EEXIST when `to` exists). Where the file system cannot do it atomically, checks first.
int RenameNoReplace(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
  if (errno != EINVAL && errno != ENOSYS) return errno;
  std::error_code ec;
  if (std::filesystem::symlink_status(to, ec).type() != std::filesystem::file_type::not_found)
    return EEXIST;
  std::filesystem::rename(from, to, ec);
  return ec ? ec.value() : 0;
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

// Publishes an nsys run's export and report as one pair: the published .sqlite and .nsys-rep are
// either both the earlier run's or both this run's, never one of each. The export goes first,
// with the earlier export kept under `backup` (a hard link, else a copy) until the report is in
// place too; when the report cannot be renamed, the earlier export is put back (or the new one
// removed, when there was none) and the earlier report was never touched. On failure records why
// in `run`; both partial files are gone either way.
bool PublishPair(const std::filesystem::path& partial_sqlite, const std::filesystem::path& sqlite,
                 const std::filesystem::path& partial_rep, const std::filesystem::path& rep,
                 const std::filesystem::path& backup, ProfiledRun& run) {
  std::error_code ec;
  bool backed_up = false;
  if (IsFile(sqlite)) {
    Discard(backup);
    std::filesystem::create_hard_link(sqlite, backup, ec);
    if (ec) {
      ec.clear();
      std::filesystem::copy_file(sqlite, backup, ec);
    }
    if (ec) {
      run.error = fmt::format("cannot keep the earlier {} while publishing the new one: {}",
                              sqlite.filename().string(), ec.message());
      Discard(backup);
      Discard(partial_sqlite);
      Discard(partial_rep);
      return false;
    }
    backed_up = true;
  }
  if (!Publish(partial_sqlite, sqlite, run)) {
    Discard(partial_rep);
    Discard(backup);
    return false;
  }
  if (!Publish(partial_rep, rep, run)) {
    // The new export must not stay beside the earlier report (or beside no report).
    if (backed_up) {
      std::filesystem::rename(backup, sqlite, ec);
    } else {
      Discard(sqlite);
    }
    if (ec) {
      // Still never a mixed pair: the new export goes and the earlier one is put back once more,
      // or else kept under a name no later sweep cleans up (`backup` is a partial file's name).
      Discard(sqlite);
      ec.clear();
      std::filesystem::rename(backup, sqlite, ec);
      if (ec) {
        const std::filesystem::path kept = sqlite.string() + ".earlier";
        std::error_code kept_ec;
        std::filesystem::rename(backup, kept, kept_ec);
        run.error += fmt::format("; the earlier {} could not be put back ({}): it is kept as {}",
                                 sqlite.filename().string(), ec.message(),
                                 (kept_ec ? backup : kept).filename().string());
      }
    }
    return false;
  }
  Discard(backup);
  return true;
}

// Whether `check` accepts the candidate trace; if not, records why in `run` and keeps the
// candidate as "<final>.unreadable" (or deletes it), never touching `final_name`.
bool Accept(const std::filesystem::path& candidate, const std::filesystem::path& final_name,
            const TraceCheck& check, ProfiledRun& run) {
  if (!check) return true;
  try {
    check(candidate);
    return true;
  } catch (const InputError& error) {
    const std::filesystem::path kept = UnreadableTracePath(final_name);
    std::error_code ec;
    std::filesystem::rename(candidate, kept, ec);
    const std::string earlier =
        IsFile(final_name) ? fmt::format("; the earlier {} is kept", final_name.filename().string())
                           : "";
    if (ec) {
      Discard(candidate);
      run.error = fmt::format("the new trace cannot be read ({}); it was deleted{}",
                              error.problem(), earlier);
    } else {
      run.error = fmt::format("the new trace cannot be read ({}); it is kept as {}{}",
                              error.problem(), kept.filename().string(), earlier);
    }
    return false;
  } catch (...) {
    // Anything else (a bug, memory) ends the sweep: the candidate goes with it, never published.
    Discard(candidate);
    throw;
  }
}

ProfiledRun Failed(const ProcessResult& result, const std::string& what) {
  ProfiledRun run;
  run.exit_code = result.exit_code;
  run.wall_ns = result.wall_ns;
  std::string tail = LastLines(result.err, kStderrLinesKept);
  // Status 0 here: the process succeeded but left no file (nsys export).
  run.error = fmt::format("{} {}{}{}", what,
                          result.exit_code == 0 ? "exited with status 0 but wrote no file"
                                                : DescribeExit(result.exit_code),
                          tail.empty() ? "" : ": ", tail);
  return run;
}

// What the command that was to write `partial` left, shared by the command and nsys profilers:
// `partial` discarded and Interrupted thrown when a signal stopped the command; `partial`
// discarded and the failure (`what` exited with status N) returned when it failed; otherwise a
// run with the command's wall time, and `no_file` as its error when `partial` was not written.
// A run with an error is the profiler's result as it stands.
ProfiledRun ExpectWritten(const ProcessResult& result, const std::filesystem::path& partial,
                          const std::string& what, const std::string& no_file) {
  if (TerminationSignal() != 0) {
    Discard(partial);
    ThrowIfTerminated();
  }
  if (result.exit_code != 0) {
    Discard(partial);
    return Failed(result, what);
  }
  ProfiledRun run;
  run.wall_ns = result.wall_ns;
  if (!IsFile(partial)) run.error = no_file;
  return run;
}

// One configuration's run under a profiler: what every profiler is given, and the names it
// writes: final ones in the results folder, temporary ones (PartialPath) beside them.
struct ProfilerCall {
  const SweepSpec& spec;
  const PlannedRun& planned;
  const std::filesystem::path& results;
  const std::filesystem::path& workdir;
  ProcessRunner& runner;
  const TraceCheck& check;

  std::filesystem::path Final(const std::string& extension) const {
    return results / (planned.file_stem + extension);
  }
  std::filesystem::path Partial(const std::string& extension) const {
    return PartialPath(results, planned.file_stem, extension);
  }
  // The configuration's command with {trace} standing for `trace`.
  std::vector<std::string> Argv(const std::filesystem::path& trace) const {
    return ExpandArgv(spec, planned, trace, results);
  }
  std::vector<std::pair<std::string, std::string>> Env(const std::filesystem::path& trace) const {
    return ExpandEnv(spec, planned, trace, results);
  }
};

ProfiledRun RunCommandProfiler(const ProfilerCall& call) {
  std::filesystem::path partial = call.Partial(".sqlite");
  ProcessResult result = call.runner.Run({call.Argv(partial), call.workdir, call.Env(partial)});
  ProfiledRun run = ExpectWritten(
      result, partial, "the command",
      fmt::format("the command succeeded but wrote no trace at {{trace}} ({})", partial.string()));
  if (!run.error.empty()) return run;
  // The trace keeps the extension of its format (a command may write Kineto JSON at {trace});
  // a file of no known format keeps .sqlite, and its analysis says what is wrong with it.
  std::string extension = TraceFileExtension(partial);
  const std::filesystem::path trace = call.Final(extension.empty() ? ".sqlite" : extension);
  if (!Accept(partial, trace, call.check, run)) return run;
  if (!Publish(partial, trace, run)) return run;
  run.ok = true;
  run.trace = trace;
  run.artifacts.push_back({trace, "trace"});
  return run;
}

ProfiledRun RunNsysProfiler(const ProfilerCall& call) {
  const std::string nsys = FindNsysProgram();
  std::filesystem::path partial_base = call.Partial("");
  std::filesystem::path partial_rep = call.Partial(".nsys-rep");
  std::filesystem::path rep = call.Final(".nsys-rep");
  std::filesystem::path trace = call.Final(".sqlite");
  // {trace} is the temporary name the export writes, as with profiler "command": a command that
  // writes there never touches the published trace of an earlier run.
  std::filesystem::path partial_sqlite = call.Partial(".sqlite");
  // Kernels and copies only: CPU sampling and context-switch tracing add overhead the figures do
  // not need.
  std::vector<std::string> argv = {nsys,
                                   "profile",
                                   "--trace=cuda",
                                   "--sample=none",
                                   "--cpuctxsw=none",
                                   "--force-overwrite=true",
                                   "--output=" + partial_base.string()};
  for (std::string& arg : call.Argv(partial_sqlite))
    argv.push_back(std::move(arg));
  ProcessResult profiled = call.runner.Run({argv, call.workdir, call.Env(partial_sqlite)});
  Discard(partial_sqlite);  // whatever the command wrote at {trace}: the export writes it afresh
  ProfiledRun run =
      ExpectWritten(profiled, partial_rep, "nsys profile",
                    "nsys profile succeeded but wrote no report (did the command use CUDA?)");
  if (!run.error.empty()) return run;
  ProcessResult exported =
      call.runner.Run({{nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "--output",
                        partial_sqlite.string(), partial_rep.string()},
                       {},
                       {}});
  if (TerminationSignal() != 0) {
    Discard(partial_rep);
    Discard(partial_sqlite);
    ThrowIfTerminated();
  }
  if (exported.exit_code != 0 || !IsFile(partial_sqlite)) {
    Discard(partial_rep);
    Discard(partial_sqlite);
    ProfiledRun failed = Failed(exported, "nsys export");
    failed.wall_ns = profiled.wall_ns;
    return failed;
  }
  if (!Accept(partial_sqlite, trace, call.check, run)) {
    // The report is the evidence: kept beside the unreadable export, under a name nsys exports.
    // Never over an existing file (another configuration may be labelled "<label>.unreadable"):
    // the first free name of <stem>.unreadable.nsys-rep, <stem>.unreadable-2.nsys-rep, ...
    std::filesystem::path kept_rep;
    int error = EEXIST;
    for (int n = 1; n <= 100 && error == EEXIST; ++n) {
      kept_rep = call.Final(".unreadable" + (n == 1 ? std::string() : fmt::format("-{}", n)) +
                            ".nsys-rep");
      error = RenameNoReplace(partial_rep, kept_rep);
    }
    if (error != 0) {
      Discard(partial_rep);
      run.error += fmt::format("; the new report could not be kept ({}) and was deleted",
                               std::strerror(error));
    } else {
      run.error += fmt::format(
          "; the new report is kept as {} (export it again: nsys export --type sqlite {})",
          kept_rep.filename().string(), kept_rep.string());
    }
    return run;
  }
  if (!PublishPair(partial_sqlite, trace, partial_rep, rep, call.Partial(".earlier.sqlite"), run)) {
    return run;
  }
  run.ok = true;
  run.trace = trace;
  run.artifacts.push_back({rep, "nsys-rep"});
  run.artifacts.push_back({trace, "trace"});
  return run;
}

// As `gpuroof record` runs a command: the recorder injected, each CUDA process writing its trace
// into a scratch folder beside the final name; the command's own trace is renamed into place
// only when the command succeeded and its recorder reported the trace complete.
ProfiledRun RunRecordProfiler(const ProfilerCall& call) {
  ProfiledRun run;
  const std::optional<std::filesystem::path> library = recorder::FindRecorderLibrary();
  if (!library) {
    run.error = "cannot find libgpuroof_recorder.so (it was there when the sweep started)";
    return run;
  }
  const std::filesystem::path trace = call.Final(".sqlite");
  const recorder::RecordScratch scratch(trace);
  // {trace} is a temporary name, as with profiler "command": the recorder writes the trace, and
  // a command that writes there itself never touches the published trace of an earlier run.
  const std::filesystem::path partial = call.Partial(".sqlite");
  std::vector<std::pair<std::string, std::string>> env =
      recorder::RecorderEnvironment(*library, scratch.OutputPattern(), call.spec.record_nvtx);
  // The recorder's variables win over the sweep file's: it must write where we collect.
  for (auto& [name, value] : call.Env(partial)) {
    // An init-capture, not [&]: clang before 16 cannot capture a structured binding.
    if (std::none_of(env.begin(), env.end(),
                     [&key = name](const auto& kv) { return kv.first == key; }))
      env.emplace_back(std::move(name), std::move(value));
  }
  ProcessResult result = call.runner.Run({call.Argv(partial), call.workdir, env});
  Discard(partial);
  ThrowIfTerminated();  // the scratch folder goes with `scratch`
  if (result.exit_code != 0) return Failed(result, "the command");
  run.wall_ns = result.wall_ns;
  // What each process's recorder left is said as `gpuroof record` says it: a missing trace (the
  // process killed while recording, or its recorder failed) and what makes a written trace less
  // than the whole truth make the row not quotable.
  std::vector<std::string> unwritten;
  for (const recorder::RecordedTrace& recorded :
       recorder::CollectRecordedTraces(scratch.path(), result.pid)) {
    if (recorded.file.empty()) {
      unwritten.push_back(recorder::MissingTraceText(recorded));
      continue;
    }
    const std::filesystem::path target =
        run.trace.empty() ? trace : recorder::SiblingTracePath(trace, recorded.pid);
    if (run.trace.empty() && !Accept(recorded.file, target, call.check, run)) return run;
    if (!Publish(recorded.file, target, run)) return run;
    if (run.trace.empty()) run.trace = target;
    run.artifacts.push_back({target, "trace"});
    for (std::string& warning : recorder::RecordedTraceWarnings(recorded, target))
      run.warnings.push_back(std::move(warning));
  }
  if (run.trace.empty()) {
    run.error = unwritten.empty()
                    ? "the command succeeded but the recorder wrote no trace (did it use CUDA?)"
                    : fmt::format("{}", fmt::join(unwritten, " | "));
    return run;
  }
  run.warnings.insert(run.warnings.end(), unwritten.begin(), unwritten.end());
  run.ok = true;
  return run;
}

}  // namespace

void CheckProfilerAvailable(const SweepSpec& spec) {
  const std::string& origin = spec.profiler_origin.empty() ? spec.source : spec.profiler_origin;
  if (spec.profiler == ProfilerKind::kRecord) {
    recorder::RequireRecorder(origin, "profiler \"record\": ");
    return;
  }
  if (spec.profiler == ProfilerKind::kNsys && FindNsysProgram().empty()) {
    throw InputError(origin, "profiler \"nsys\": nsys is not on PATH (nor named by $NSYS)");
  }
}

ProfiledRun RunProfiled(const SweepSpec& spec, const PlannedRun& run,
                        const std::filesystem::path& results, const std::filesystem::path& workdir,
                        ProcessRunner& runner, const TraceCheck& check) {
  const ProfilerCall call{spec, run, results, workdir, runner, check};
  if (spec.profiler == ProfilerKind::kCommand) return RunCommandProfiler(call);
  if (spec.profiler == ProfilerKind::kRecord) return RunRecordProfiler(call);
  return RunNsysProfiler(call);
}

std::filesystem::path UnreadableTracePath(const std::filesystem::path& trace) {
  std::filesystem::path kept = trace;
  kept += ".unreadable";
  return kept;
}

namespace {

// Whether `stem` is the trace name of a configuration of `spec`: its label, alone or followed by
// "__" and key values (any --set or --only).
bool IsTraceStemOf(std::string_view stem, const SweepSpec& spec) {
  for (const SweepConfiguration& configuration : spec.configurations) {
    const std::string label = SafeFileComponent(configuration.label);
    if (stem == label || (stem.starts_with(label) && stem.substr(label.size()).starts_with("__")))
      return true;
  }
  return false;
}

// The tag in the name of a file this code writes in a results folder and removes when done:
// ".<trace name>.partial-<tag><suffix>", for the trace name of a configuration of `spec` (its
// label, alone or followed by "__" and key values: any --set or --only) and a suffix the profilers
// write (the trace, nsys's report and its collection file, the earlier export kept while
// publishing), or ".bench-scratch-<tag>.sqlite"; empty for any other name, so a user's file that
// merely looks alike is never taken for one.
std::string_view PartialFileTag(std::string_view name, const SweepSpec& spec) {
  constexpr std::string_view kPendingEnv = ".env.json.pending-";
  if (name.starts_with(kPendingEnv)) {
    const std::string_view rest = name.substr(kPendingEnv.size());
    const size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos) return {};
    const std::string_view session = rest.substr(0, dot);
    const std::string_view tag = rest.substr(dot + 1);
    const bool numbered = std::ranges::all_of(session, [](char c) { return c >= '0' && c <= '9'; });
    // Always written with its host: a pid-only name is no stamp of ours.
    const bool tagged =
        tag.find('-') != std::string_view::npos && tag.find('.') == std::string_view::npos;
    return numbered && tagged ? tag : std::string_view();
  }
  constexpr std::string_view kScratch = ".bench-scratch-";
  constexpr std::string_view kPartial = ".partial-";
  constexpr std::string_view kSuffixes[] = {".sqlite", ".nsys-rep", ".qdstrm", ".earlier.sqlite"};
  if (name.starts_with(kScratch) && name.ends_with(".sqlite")) {
    std::string_view tag = name.substr(kScratch.size(), name.size() - kScratch.size() - 7);
    return tag.find('.') == std::string_view::npos ? tag : std::string_view();
  }
  if (!name.starts_with('.')) return {};
  for (std::string_view suffix : kSuffixes) {
    if (!name.ends_with(suffix)) continue;
    const std::string_view rest = name.substr(0, name.size() - suffix.size());
    const size_t at = rest.rfind(kPartial);
    if (at == std::string_view::npos || at < 2) continue;
    const std::string_view tag = rest.substr(at + kPartial.size());
    if (tag.empty() || tag.find('.') != std::string_view::npos) continue;
    if (IsTraceStemOf(rest.substr(1, at - 1), spec)) return tag;
  }
  return {};
}

}  // namespace

std::string PendingEnvJsonName(int session, const std::string& tag) {
  return fmt::format(".env.json.pending-{}.{}", session, tag);
}

std::vector<std::string> RemoveStalePartialFiles(
    const std::filesystem::path& results, const SweepSpec& spec,
    const std::function<void(const std::string&)>& say) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(results, ec)) {
    std::error_code type_ec;
    // A symbolic link is never followed nor removed.
    if (entry.symlink_status(type_ec).type() != std::filesystem::file_type::regular) continue;
    const std::string name = entry.path().filename().string();
    // The tag names this machine's process that wrote the file; only a gone one's is removed.
    const std::string_view tag = PartialFileTag(name, spec);
    if (tag.empty() || DeadProcessOfTag(tag) == 0) continue;
    std::error_code remove_ec;
    if (std::filesystem::remove(entry.path(), remove_ec)) removed.push_back(name);
  }
  std::sort(removed.begin(), removed.end());
  for (const std::string& name : removed) {
    say(fmt::format("gpuroof: note: removed {} (left by a sweep or bench that was killed)",
                    (results / name).string()));
  }
  // Profiler "record"'s scratch folders of a sweep that was killed (SIGKILL).
  // Only those of the configurations' traces (".<trace name>.sqlite.record-<pid>-<host>").
  const auto of_spec = [&spec](std::string_view name) {
    return name.ends_with(".sqlite") && IsTraceStemOf(name.substr(0, name.size() - 7), spec);
  };
  for (std::string& name : recorder::RemoveStaleRecordScratch(
           results, [&say](const std::string& line) { say("gpuroof: " + line); }, of_spec))
    removed.push_back(std::move(name));
  return removed;
}

}  // namespace gpuroof
