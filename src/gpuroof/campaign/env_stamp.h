#pragma once

#include <optional>
#include <string>

#include "gpuroof/campaign/gpu_probe.h"
#include "gpuroof/campaign/sweep_spec.h"
#include "gpuroof/campaign/system_view.h"
#include "gpuroof/process/process_runner.h"

namespace gpuroof {

// Where and with what a sweep ran: written to env.json (docs/formats.md) so every number can be
// traced back to its machine, source tree and build.
struct EnvStamp {
  std::string timestamp;  // UTC, FormatUtc()
  std::string host;
  std::string git_rev;  // "" outside a git work tree
  std::string git_branch;
  std::optional<bool> git_dirty;  // tracked files modified; unset outside git
  std::string build;              // the build identity (BuildIdentity())
  std::string build_source;       // "command", "regex" or "git" (no rule in the sweep file)
  GpuStatus gpus;
  std::optional<double> gpu_utilisation_pct;  // the busiest GPU at start
  std::string nvcc_version;                   // "" when nvcc is not on PATH
  std::string gpuroof_version;
};

// The build identity from the sweep file's rule: the first line of identity_command's stdout, or
// group 1 (else the whole match) of identity_regex's first match in identity_file. Without a rule,
// the git revision (12 digits, "-dirty" when tracked files changed), else "unknown". Throws
// InputError naming the rule's file:line when the command fails or the regex matches nothing.
struct BuildIdentity {
  std::string value;
  std::string source;
};
BuildIdentity ReadBuildIdentity(const SweepSpec& spec, const std::filesystem::path& workdir,
                                ProcessRunner& runner, const EnvStamp& git);

// Fills everything but the build identity. Never throws: missing tools leave fields empty.
EnvStamp CollectEnvStamp(const std::filesystem::path& workdir, ProcessRunner& runner, Clock& clock,
                         const GpuStatus& gpus, const std::string& gpuroof_version);

// env.json, schema "gpuroof.env/1".
std::string RenderEnvJson(const EnvStamp& stamp);

}  // namespace gpuroof
