#include "gpuroof/campaign/sweep_plan.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "gpuroof/campaign/placeholders.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

std::map<std::string, std::string> PlaceholderValues(const PlannedRun& run,
                                                     const std::filesystem::path& trace,
                                                     const std::filesystem::path& results) {
  std::map<std::string, std::string> values = run.values;
  values["label"] = run.label;
  values["trace"] = trace.string();
  values["results"] = results.string();
  return values;
}

// The results folder's own files (env.json, probes.csv, ladder.csv, manifest.csv): a trace named
// "<stem>.<ext>" must never be one of them, on a case-insensitive file system either.
constexpr const char* kReservedStems[] = {"env", "probes", "ladder", "manifest"};

bool IsReservedStem(const std::string& stem) {
  std::string lower = stem;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return std::find(std::begin(kReservedStems), std::end(kReservedStems), lower) !=
         std::end(kReservedStems);
}

std::string ReservedNamesText() {
  return "env.json, probes.csv, ladder.csv and manifest.csv";
}

std::map<std::string, std::string> ParseOverrides(const SweepSpec& spec,
                                                  const std::vector<std::string>& overrides) {
  std::map<std::string, std::string> out;
  for (const std::string& text : overrides) {
    size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw InputError("--set", fmt::format("'{}' is not name=value", text));
    }
    std::string name = text.substr(0, equals);
    if (spec.defaults.count(name) == 0) {
      throw InputError("--set", fmt::format("'{}' is not a parameter of {}", name, spec.source));
    }
    if (auto grid = spec.grid_origins.find(name); grid != spec.grid_origins.end()) {
      // Grid labels name the grid's values ("a_frames-100"): one value for all would run
      // duplicates under labels that name values not used.
      throw InputError("--set", fmt::format("'{}' is a [grid] parameter ({}): the grid's labels "
                                            "name its values; edit the grid list instead",
                                            name, grid->second));
    }
    out[name] = text.substr(equals + 1);
  }
  return out;
}

std::vector<std::string> KeyParameters(const SweepSpec& spec,
                                       const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> key;
  for (const std::string& name : spec.parameter_order) {
    bool chosen = false;
    if (!spec.key.empty()) {
      chosen = std::find(spec.key.begin(), spec.key.end(), name) != spec.key.end();
    } else {
      std::set<std::string> seen;
      for (const SweepConfiguration& configuration : spec.configurations) {
        auto it = configuration.values.find(name);
        seen.insert(it == configuration.values.end() ? spec.defaults.at(name) : it->second);
      }
      chosen = seen.size() > 1;
    }
    if (chosen || overrides.count(name) > 0) key.push_back(name);
  }
  return key;
}

std::optional<int64_t> ResolveUnits(const SweepSpec& spec, const PlannedRun& run) {
  if (spec.units.empty()) return std::nullopt;
  std::string text = ExpandPlaceholders(spec.units, run.values, spec.units_origin);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) {
    throw InputError(spec.units_origin,
                     fmt::format("units \"{}\" is '{}' for configuration '{}', not a positive "
                                 "whole number",
                                 spec.units, text, run.label));
  }
  return value;
}

}  // namespace

std::string SafeFileComponent(const std::string& text) {
  std::string out;
  for (char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '+' || c == '-';
    out += plain ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), '_');
  return out;
}

std::string ResultsFolderName(const std::string& date, const std::string& build,
                              const std::string& tag) {
  std::string name = SafeFileComponent(date) + "_" + SafeFileComponent(build);
  if (!tag.empty()) name += "_" + SafeFileComponent(tag);
  return name;
}

SweepPlan PlanSweep(const SweepSpec& spec, const std::vector<std::string>& overrides,
                    const std::vector<std::string>& only) {
  std::map<std::string, std::string> set = ParseOverrides(spec, overrides);
  for (const std::string& label : only) {
    bool known = std::any_of(spec.configurations.begin(), spec.configurations.end(),
                             [&](const SweepConfiguration& c) { return c.label == label; });
    if (!known) {
      std::string labels;
      for (const SweepConfiguration& c : spec.configurations)
        labels += (labels.empty() ? "" : ", ") + c.label;
      throw InputError(
          "--only", fmt::format("no configuration is labelled '{}' (labels: {})", label, labels));
    }
  }
  SweepPlan plan;
  plan.key_parameters = KeyParameters(spec, set);
  std::map<std::string, std::string> stems;  // file stem -> label, to refuse collisions
  for (const SweepConfiguration& configuration : spec.configurations) {
    PlannedRun run;
    run.label = configuration.label;
    run.values = spec.defaults;
    for (const auto& [name, value] : configuration.values)
      run.values[name] = value;
    for (const auto& [name, value] : set)
      run.values[name] = value;
    run.key = "label=" + run.label;
    run.file_stem = SafeFileComponent(run.label);
    for (const std::string& name : plan.key_parameters) {
      run.key += ";" + name + "=" + run.values.at(name);
      run.file_stem +=
          "__" + SafeFileComponent(name) + "-" + SafeFileComponent(run.values.at(name));
    }
    for (const std::string& name : spec.parameter_order)
      run.params += (run.params.empty() ? "" : ";") + name + "=" + run.values.at(name);
    if (IsReservedStem(run.file_stem)) {
      throw InputError(configuration.origin,
                       fmt::format("label '{}' would write {}.* over the results folder's own "
                                   "{}; choose another label",
                                   run.label, run.file_stem, ReservedNamesText()));
    }
    // Checked for every configuration, so --only never hides a label that cannot be run.
    if (!only.empty() && std::find(only.begin(), only.end(), configuration.label) == only.end()) {
      continue;
    }
    run.units = ResolveUnits(spec, run);
    auto [it, fresh] = stems.emplace(run.file_stem, run.label);
    if (!fresh) {
      throw InputError(configuration.origin,
                       fmt::format("configurations '{}' and '{}' would write the same files ({}); "
                                   "give them labels that differ in letters or digits",
                                   it->second, run.label, run.file_stem));
    }
    plan.runs.push_back(std::move(run));
  }
  return plan;
}

std::vector<std::string> ExpandArgv(const SweepSpec& spec, const PlannedRun& run,
                                    const std::filesystem::path& trace,
                                    const std::filesystem::path& results) {
  std::map<std::string, std::string> values = PlaceholderValues(run, trace, results);
  std::vector<std::string> argv;
  for (size_t i = 0; i < spec.argv.size(); ++i)
    argv.push_back(ExpandPlaceholders(spec.argv[i], values, spec.argv_origins[i]));
  return argv;
}

std::vector<std::pair<std::string, std::string>> ExpandEnv(const SweepSpec& spec,
                                                           const PlannedRun& run,
                                                           const std::filesystem::path& trace,
                                                           const std::filesystem::path& results) {
  std::map<std::string, std::string> values = PlaceholderValues(run, trace, results);
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& [name, value] : spec.env)
    env.emplace_back(name, ExpandPlaceholders(value, values, spec.env_origin));
  return env;
}

}  // namespace gpuroof
