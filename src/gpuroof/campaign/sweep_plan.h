#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpuroof/campaign/sweep_spec.h"

namespace gpuroof {

// One configuration with every parameter resolved (defaults, then the configuration's values,
// then --set), and the names its results are filed under.
struct PlannedRun {
  std::string label;
  std::map<std::string, std::string> values;  // every parameter
  std::string key;                            // "label=c3;cap=1500": the rows' results key
  std::string params;                         // every parameter, "name=value;..." in file order
  std::string file_stem;                      // label and key values, safe as a file name
  std::optional<int64_t> units;
};

// What names a row of probes.csv or ladder.csv: the configuration (its results key, label and
// every parameter) and the build that ran it. Both files' first four columns.
struct ResultRowIdentity {
  std::string key;
  std::string label;
  std::string params;
  std::string build;
};

inline ResultRowIdentity RowIdentity(const PlannedRun& run, const std::string& build) {
  return {run.key, run.label, run.params, build};
}

struct SweepPlan {
  std::vector<std::string> key_parameters;  // the parameters of the key, label aside
  std::vector<PlannedRun> runs;             // in file order
};

// Resolves the configurations to run. The results key is [run] key when given, else every
// parameter whose value differs between configurations; parameters changed with --set always
// join it, so an override never files its rows over the unchanged ones. `overrides` are
// "name=value"; `only` keeps the configurations with those labels. Throws InputError for an
// unknown --set parameter or --only label, units that are not a positive whole number (at the
// units line), and two configurations that would write the same file.
SweepPlan PlanSweep(const SweepSpec& spec, const std::vector<std::string>& overrides,
                    const std::vector<std::string>& only);

// The command's argv and environment additions for one run, placeholders expanded.
std::vector<std::string> ExpandArgv(const SweepSpec& spec, const PlannedRun& run,
                                    const std::filesystem::path& trace,
                                    const std::filesystem::path& results);
std::vector<std::pair<std::string, std::string>> ExpandEnv(const SweepSpec& spec,
                                                           const PlannedRun& run,
                                                           const std::filesystem::path& trace,
                                                           const std::filesystem::path& results);

// `text` reduced to [A-Za-z0-9._+-] (others become '_', and so does a leading '.'), so it is one
// path component that never names a hidden file, a parent folder or another folder.
std::string SafeFileComponent(const std::string& text);

// "<date>_<build>[_<tag>]", each part made safe.
std::string ResultsFolderName(const std::string& date, const std::string& build,
                              const std::string& tag);

}  // namespace gpuroof
