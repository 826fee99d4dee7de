#include "gpuroof/campaign/guards.h"

#include <cstring>

#include <fmt/format.h>

namespace gpuroof {

Freshness CheckBuildFreshness(const BuildSpec& build, const std::filesystem::path& workdir,
                              FileTimes& files) {
  Freshness result;
  if (build.artifacts.empty()) return result;
  result.checked = true;
  std::optional<FileTime> oldest_artifact;
  for (const std::string& pattern : build.artifacts) {
    for (FileTime& file : files.Match(workdir, pattern)) {
      if (!oldest_artifact || file.modified < oldest_artifact->modified) oldest_artifact = file;
    }
  }
  if (!oldest_artifact) {
    result.fresh = false;
    result.message = fmt::format("no build artifact matches {} under {}: build first",
                                 fmt::join(build.artifacts, ", "), workdir.string());
    return result;
  }
  std::optional<FileTime> newest_source;
  for (const std::string& pattern : build.sources) {
    for (FileTime& file : files.Match(workdir, pattern)) {
      if (!newest_source || file.modified > newest_source->modified) newest_source = file;
    }
  }
  if (newest_source && newest_source->modified > oldest_artifact->modified) {
    result.fresh = false;
    result.message = fmt::format(
        "the build is stale: source {} (modified {}) is newer than artifact {} (built {}); "
        "rebuild first",
        newest_source->path.string(), FormatUtc(newest_source->modified),
        oldest_artifact->path.string(), FormatUtc(oldest_artifact->modified));
  }
  return result;
}

GpuIdleness CheckGpuIdle(const GpuStatus& gpus, double max_utilisation_pct, bool allow_busy) {
  GpuIdleness result;
  std::optional<double> busiest = gpus.MaxUtilisationPct();
  if (!busiest) {
    result.note = gpus.source == "none" ? "no GPU information (" + gpus.note + "); going on"
                                        : "the GPUs report no utilisation; going on";
    return result;
  }
  if (*busiest <= max_utilisation_pct) return result;
  if (allow_busy) {
    result.quotable = false;
    result.message = fmt::format(
        "a GPU is {:g} % busy (limit {:g} %); going on because of --allow-busy-gpu, and every row "
        "of this sweep is marked not quotable",
        *busiest, max_utilisation_pct);
  } else {
    result.refuse = true;
    result.message = fmt::format(
        "a GPU is {:g} % busy (limit {:g} %, from {}): its numbers would not be quotable; wait "
        "for it to go idle, or pass --allow-busy-gpu to mark the rows not quotable",
        *busiest, max_utilisation_pct, gpus.source);
  }
  return result;
}

std::string CheckMinimumUnits(std::optional<int64_t> units, int64_t min_units,
                              const std::string& unit_name) {
  if (min_units <= 0 || !units || *units >= min_units) return "";
  return fmt::format(
      "{} {}s is shorter than the minimum of {} for a quotable run (GPU clocks may not have "
      "ramped up); the row is marked not quotable",
      *units, unit_name, min_units);
}

std::string DescribeExit(int exit_code) {
  if (exit_code > 128 && exit_code <= 128 + 64) {
    const int signal_number = exit_code - 128;
    return fmt::format("was killed by signal {} ({}; exit status {})", signal_number,
                       strsignal(signal_number), exit_code);
  }
  return fmt::format("exited with status {}", exit_code);
}

}  // namespace gpuroof
