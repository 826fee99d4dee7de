#include "gpuroof/campaign/env_stamp.h"

#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include "gpuroof/campaign/regex_search.h"
#include "gpuroof/format/json_writer.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

std::string FirstLine(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
    line.pop_back();
  return line;
}

// stdout's first line when the program ran and succeeded, else "".
std::string Ask(ProcessRunner& runner, const std::filesystem::path& workdir,
                std::vector<std::string> argv, bool* succeeded = nullptr) {
  ProcessResult result = runner.Run({std::move(argv), workdir, {}});
  if (succeeded != nullptr) *succeeded = result.exit_code == 0;
  return result.exit_code == 0 ? FirstLine(result.out) : "";
}

}  // namespace

EnvStamp CollectEnvStamp(const std::filesystem::path& workdir, ProcessRunner& runner, Clock& clock,
                         const GpuStatus& gpus, const std::string& gpuroof_version) {
  EnvStamp stamp;
  stamp.timestamp = FormatUtc(clock.Now());
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) stamp.host = host;
  bool in_git = false;
  stamp.git_rev = Ask(runner, workdir, {"git", "rev-parse", "HEAD"}, &in_git);
  if (in_git) {
    stamp.git_branch = Ask(runner, workdir, {"git", "rev-parse", "--abbrev-ref", "HEAD"});
    ProcessResult status =
        runner.Run({{"git", "status", "--porcelain", "--untracked-files=no"}, workdir, {}});
    if (status.exit_code == 0) stamp.git_dirty = !status.out.empty();
  }
  stamp.gpus = gpus;
  stamp.gpu_utilisation_pct = gpus.MaxUtilisationPct();
  // "Cuda compilation tools, release 12.4, V12.4.131" is the line that names the version.
  ProcessResult nvcc = runner.Run({{"nvcc", "--version"}, workdir, {}});
  if (nvcc.exit_code == 0) {
    std::istringstream lines(nvcc.out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("release") != std::string::npos) stamp.nvcc_version = FirstLine(line);
    }
  }
  stamp.gpuroof_version = gpuroof_version;
  return stamp;
}

BuildIdentity ReadBuildIdentity(const SweepSpec& spec, const std::filesystem::path& workdir,
                                ProcessRunner& runner, const EnvStamp& git) {
  const BuildSpec& build = spec.build;
  if (!build.identity_command.empty()) {
    ProcessResult result = runner.Run({build.identity_command, workdir, {}});
    std::string value = FirstLine(result.out);
    if (result.exit_code != 0 || value.empty()) {
      // No empty parentheses when the command said nothing on stderr.
      const std::string said = LastLines(result.err, 2);
      throw InputError(build.identity_origin,
                       fmt::format("identity_command {} {}{}", build.identity_command[0],
                                   result.exit_code != 0
                                       ? fmt::format("failed with exit status {}", result.exit_code)
                                       : std::string("printed nothing"),
                                   said.empty() ? "" : " (" + said + ")"));
    }
    return {value, "command"};
  }
  if (!build.identity_file.empty()) {
    std::filesystem::path file = workdir / build.identity_file;
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      throw InputError(build.identity_origin, "cannot read identity_file " + file.string());
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::optional<std::string> found =
        RegexFirstMatch(build.identity_regex, text.str(), build.identity_origin);
    if (!found || found->empty()) {
      throw InputError(build.identity_origin,
                       fmt::format("identity_regex matches nothing in {}", file.string()));
    }
    return {*found, "regex"};
  }
  if (!git.git_rev.empty()) {
    return {git.git_rev.substr(0, 12) + (git.git_dirty.value_or(false) ? "-dirty" : ""), "git"};
  }
  return {"unknown", "none"};
}

std::string RenderEnvJson(const EnvStamp& stamp) {
  JsonWriter json;
  json.BeginObject();
  json.Key("schema").String("gpuroof.env/1");
  json.Key("timestamp").String(stamp.timestamp);
  json.Key("host").String(stamp.host);
  json.Key("git").BeginObject();
  json.Key("rev").String(stamp.git_rev);
  json.Key("branch").String(stamp.git_branch);
  json.Key("dirty");
  if (stamp.git_dirty) {
    json.Bool(*stamp.git_dirty);
  } else {
    json.Null();
  }
  json.EndObject();
  json.Key("build").BeginObject();
  json.Key("identity").String(stamp.build);
  json.Key("source").String(stamp.build_source);
  json.EndObject();
  json.Key("gpus").BeginObject();
  json.Key("source").String(stamp.gpus.source);
  json.Key("note").String(stamp.gpus.note);
  json.Key("driver").String(stamp.gpus.driver);
  json.Key("devices").BeginArray();
  for (const GpuInfo& gpu : stamp.gpus.gpus) {
    json.BeginObject();
    json.Key("name").String(gpu.name);
    json.Key("utilisation_pct").Double(gpu.utilisation_pct);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  json.Key("gpu_utilisation_at_start_pct").Double(stamp.gpu_utilisation_pct);
  json.Key("nvcc_version").String(stamp.nvcc_version);
  json.Key("gpuroof_version").String(stamp.gpuroof_version);
  json.EndObject();
  return json.str();
}

}  // namespace gpuroof
