#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "gpuroof/campaign/sweep_plan.h"
#include "gpuroof/campaign/sweep_spec.h"
#include "gpuroof/process/process_runner.h"

namespace gpuroof {

// A file a run produced, for the manifest.
struct Artifact {
  std::filesystem::path path;
  std::string kind;  // "nsys-rep", "trace", "probes", "ladder"
};

struct ProfiledRun {
  bool ok = false;
  int exit_code = 0;
  std::string error;            // why it failed: the last lines of stderr, or what was missing
  std::filesystem::path trace;  // the SQLite trace to analyse, when ok
  std::vector<Artifact> artifacts;
  int64_t wall_ns = 0;  // the profiled process, profiler included: never a throughput
  // What makes the trace less than the whole truth although the run succeeded (profiler
  // "record": what `gpuroof record` warns about, e.g. dropped records, records without
  // timestamps, kinds not recorded, a process killed while recording): the row carries them and
  // is not quotable.
  std::vector<std::string> warnings;
};

// Throws InputError (one line, naming the sweep file's profiler line) when the sweep's profiler
// cannot run here: `nsys` needs nsys on PATH or named by $NSYS; `record` needs the recorder
// library and a usable CUDA driver, as `gpuroof record` does. Called before anything runs.
void CheckProfilerAvailable(const SweepSpec& spec);

// Reads (analyses) a new trace before it is published; throws InputError when it cannot.
using TraceCheck = std::function<void(const std::filesystem::path& trace)>;

// Runs one configuration under the spec's profiler, leaving `<results>/<file_stem>.sqlite` (and,
// for nsys, the `.nsys-rep`; for record, `<file_stem>.<pid>.sqlite` for each further CUDA
// process of the command). Outputs are written under temporary names and renamed only after
// success, so a killed sweep never leaves a partial trace under a real name. Success includes
// `check` accepting the command's trace (called with its temporary name): a trace it refuses is
// kept as `<final name>.unreadable` (deleted when even that rename fails) and an earlier trace
// of the same name stays as it was. Throws Interrupted, its partial files removed, when a
// termination signal arrived while the profiler ran.
ProfiledRun RunProfiled(const SweepSpec& spec, const PlannedRun& run,
                        const std::filesystem::path& results, const std::filesystem::path& workdir,
                        ProcessRunner& runner, const TraceCheck& check = {});

// The name a trace that could not be read is kept under: "<trace>.unreadable".
std::filesystem::path UnreadableTracePath(const std::filesystem::path& trace);

// The name of a sweep's env.json before its first row puts it in place:
// ".env.json.pending-<session>.<tag>", `session` numbering the sweeps of one process and `tag` a
// ProcessTag(), so that RemoveStalePartialFiles knows the process that wrote it.
std::string PendingEnvJsonName(int session, const std::string& tag);

// Removes the partial files of `spec`'s configurations (`.<trace name>.partial-<tag><ext>`, the
// trace name a label alone or followed by "__" and key values, <ext> one the profilers write),
// pending env stamps (PendingEnvJsonName) and
// `.bench-scratch-<tag>.sqlite` files in `results` that a sweep or bench of this machine left when
// it was killed: only those whose process is gone (DeadProcessOfTag: another machine's files are
// left alone, its pids say nothing here), and no other name, however alike. Each removal is said
// through `say` ("gpuroof: note: removed …"). Returns the names removed.
std::vector<std::string> RemoveStalePartialFiles(
    const std::filesystem::path& results, const SweepSpec& spec,
    const std::function<void(const std::string&)>& say);

}  // namespace gpuroof
