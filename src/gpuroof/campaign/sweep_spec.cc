#include "gpuroof/campaign/sweep_spec.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "gpuroof/analyses/window.h"
#include "gpuroof/campaign/placeholders.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/utf8.h"

namespace gpuroof {

namespace {

// Each profiler with its name in a sweep file: the parser and ProfilerName read the same list.
struct NamedProfiler {
  ProfilerKind kind;
  std::string_view name;
};

constexpr NamedProfiler kProfilerNames[] = {{ProfilerKind::kNsys, "nsys"},
                                            {ProfilerKind::kRecord, "record"},
                                            {ProfilerKind::kCommand, "command"}};

class SpecParser {
 public:
  explicit SpecParser(std::string source) : source_(std::move(source)) {}

  SweepSpec Parse(const std::string& text) {
    // toml++ 3.3.0 (Debian 12) has undefined behaviour on some invalid non-ASCII input
    // (marzer/tomlplusplus#295, fixed upstream by #305): it only ever sees valid UTF-8.
    if (std::optional<size_t> bad = FirstInvalidUtf8(text)) {
      throw InputError(source_,
                       fmt::format("not valid UTF-8 (byte {}): TOML files are UTF-8", *bad));
    }
    toml::table root;
    try {
      root = toml::parse(text, source_);
    } catch (const toml::parse_error& e) {
      throw InputError(fmt::format("{}:{}", source_, e.source().begin.line),
                       fmt::format("TOML syntax error: {}", e.description()));
    }
    spec_.source = source_;
    CheckKeys(root, {"command", "parameters", "configurations", "grid", "run", "build", "guards"});
    ParseCommand(Table(root, "command", true));
    ParseParameters(Table(root, "parameters", false));
    const toml::table* grid = Table(root, "grid", false);
    ParseConfigurations(root, grid != nullptr);
    if (grid != nullptr) ExpandGrid(*grid);
    ParseRun(Table(root, "run", false));
    ParseBuild(Table(root, "build", false));
    ParseGuards(Table(root, "guards", false));
    CheckPlaceholders();
    return std::move(spec_);
  }

 private:
  std::string Origin(const toml::node& node) const {
    return fmt::format("{}:{}", source_, node.source().begin.line);
  }
  std::string Origin(const toml::key& key) const {
    return fmt::format("{}:{}", source_, key.source().begin.line);
  }

  [[noreturn]] void Fail(const toml::node& node, const std::string& problem) const {
    throw InputError(Origin(node), problem);
  }

  void CheckKeys(const toml::table& table, std::initializer_list<std::string_view> allowed) const {
    for (auto&& [key, node] : table) {
      if (std::find(allowed.begin(), allowed.end(), key.str()) == allowed.end()) {
        std::string names;
        for (std::string_view name : allowed)
          names += (names.empty() ? "" : ", ") + std::string(name);
        throw InputError(Origin(key),
                         fmt::format("unknown key '{}' (expected one of: {})", key.str(), names));
      }
    }
  }

  const toml::table* Table(const toml::table& parent, std::string_view name, bool required) {
    const toml::node* node = parent.get(name);
    if (node == nullptr) {
      if (required) throw InputError(source_ + ":1", fmt::format("missing table [{}]", name));
      return nullptr;
    }
    if (!node->is_table()) Fail(*node, fmt::format("'{}' must be a table", name));
    return node->as_table();
  }

  std::string String(const toml::node& node, std::string_view what) const {
    if (!node.is_string()) Fail(node, fmt::format("{} must be a string", what));
    return node.as_string()->get();
  }

  // A parameter value as the text placeholders expand to.
  std::string ValueText(const toml::node& node, std::string_view what) const {
    if (node.is_string()) return node.as_string()->get();
    if (node.is_integer()) return std::to_string(node.as_integer()->get());
    if (node.is_floating_point()) return fmt::format("{}", node.as_floating_point()->get());
    if (node.is_boolean()) return node.as_boolean()->get() ? "true" : "false";
    Fail(node, fmt::format("{} must be a string, number or boolean", what));
  }

  std::vector<std::string> StringList(const toml::node& node, std::string_view what,
                                      std::vector<std::string>* origins = nullptr) const {
    if (!node.is_array()) Fail(node, fmt::format("{} must be a list of strings", what));
    std::vector<std::string> out;
    for (const toml::node& element : *node.as_array()) {
      out.push_back(String(element, std::string(what) + " elements"));
      if (origins != nullptr) origins->push_back(Origin(element));
    }
    return out;
  }

  void ParseCommand(const toml::table* command) {
    CheckKeys(*command, {"argv", "workdir", "env"});
    const toml::node* argv = command->get("argv");
    if (argv == nullptr)
      throw InputError(Origin(*command), "[command] needs argv = [\"program\", ...]");
    spec_.argv = StringList(*argv, "argv", &spec_.argv_origins);
    if (spec_.argv.empty() || spec_.argv[0].empty()) Fail(*argv, "argv must name a program");
    if (const toml::node* workdir = command->get("workdir")) {
      spec_.workdir = String(*workdir, "workdir");
      spec_.workdir_origin = Origin(*workdir);
    }
    if (const toml::node* env = command->get("env")) {
      if (!env->is_table()) Fail(*env, "env must be a table of NAME = \"value\"");
      spec_.env_origin = Origin(*env);
      for (auto&& [name, value] : *env->as_table()) {
        spec_.env.emplace_back(std::string(name.str()), String(value, "env values"));
      }
    }
  }

  void ParseParameters(const toml::table* parameters) {
    if (parameters == nullptr) return;
    // toml++ iterates keys sorted; the file's order is the order people expect in keys and names.
    std::vector<std::pair<const toml::key*, const toml::node*>> ordered;
    for (auto&& [name, value] : *parameters)
      ordered.emplace_back(&name, &value);
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      const toml::source_position& pa = a.first->source().begin;
      const toml::source_position& pb = b.first->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    for (const auto& [name_pointer, value_pointer] : ordered) {
      const toml::key& name = *name_pointer;
      const toml::node& value = *value_pointer;
      std::string key(name.str());
      if (std::find(std::begin(kBuiltinPlaceholders), std::end(kBuiltinPlaceholders), key) !=
          std::end(kBuiltinPlaceholders)) {
        throw InputError(Origin(name),
                         fmt::format("'{}' is reserved for gpuroof's own placeholder", key));
      }
      spec_.parameter_order.push_back(key);
      spec_.defaults[key] = ValueText(value, "parameter '" + key + "'");
    }
  }

  void ParseConfigurations(const toml::table& root, bool have_grid) {
    const toml::node* list = root.get("configurations");
    if (list == nullptr && have_grid) {
      // The grid alone makes the configurations: one base for it to expand, at the grid's line
      // (what a problem with a label it makes points at).
      const toml::node* grid = root.get("grid");
      spec_.configurations.push_back({"", {}, Origin(*grid)});
      return;
    }
    if (list == nullptr) {
      throw InputError(source_ + ":1",
                       "no [[configurations]] or [grid]: a sweep needs at least one");
    }
    if (list->is_array() && list->as_array()->empty())
      Fail(*list, "the configuration list is empty");
    if (!list->is_array_of_tables())
      Fail(*list, "configurations must be [[configurations]] tables");
    std::set<std::string> labels;
    for (const toml::node& element : *list->as_array()) {
      const toml::table& table = *element.as_table();
      SweepConfiguration configuration;
      configuration.origin = Origin(table);
      const toml::node* label = table.get("label");
      if (label == nullptr) Fail(table, "a configuration needs a label");
      configuration.label = String(*label, "label");
      if (configuration.label.empty()) Fail(*label, "the label is empty");
      if (!labels.insert(configuration.label).second) {
        Fail(*label, fmt::format("label '{}' is used twice", configuration.label));
      }
      for (auto&& [name, value] : table) {
        std::string key(name.str());
        if (key == "label") continue;
        if (spec_.defaults.count(key) == 0) {
          throw InputError(Origin(name), fmt::format("'{}' is not a parameter (declare it under "
                                                     "[parameters] with its default)",
                                                     key));
        }
        configuration.values[key] = ValueText(value, "parameter '" + key + "'");
      }
      spec_.configurations.push_back(std::move(configuration));
    }
  }

  // Refuses a grid that would make more than kMaxGridConfigurations, counted before anything is
  // expanded (a product past 2^64 included), so a typo'd grid fails at once and not out of memory.
  void CheckGridSize(const toml::table& grid,
                     const std::vector<std::pair<std::string, std::vector<std::string>>>& axes) {
    uint64_t count = spec_.configurations.size();
    bool overflow = false;
    std::string factors = count > 1 ? fmt::format("{} configurations", count) : "";
    for (const auto& [name, values] : axes) {
      overflow = __builtin_mul_overflow(count, values.size(), &count) || overflow;
      factors += fmt::format("{}{} {}", factors.empty() ? "" : " x ", name, values.size());
    }
    if (!overflow && count <= kMaxGridConfigurations) return;
    Fail(grid, fmt::format("[grid] makes {} configurations ({}), more than the {} a sweep may "
                           "have: shorten its lists or split the sweep",
                           overflow ? "more than 2^64" : std::to_string(count), factors,
                           kMaxGridConfigurations));
  }

  // [grid] name = [v1, v2, ...]: every configuration runs once per combination of the grid's
  // values (the first name varies slowest), labelled "<label>_<name>-<value>_...".
  void ExpandGrid(const toml::table& grid) {
    std::vector<std::pair<const toml::key*, const toml::node*>> ordered;
    for (auto&& [name, values] : grid)
      ordered.emplace_back(&name, &values);
    std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      return a.first->source().begin.line < b.first->source().begin.line;
    });
    std::vector<std::pair<std::string, std::vector<std::string>>> axes;
    for (const auto& [name, values] : ordered) {
      std::string key(name->str());
      if (spec_.defaults.count(key) == 0) {
        throw InputError(Origin(*name), fmt::format("grid '{}' is not a parameter (declare it "
                                                    "under [parameters] with its default)",
                                                    key));
      }
      if (!values->is_array() || values->as_array()->empty()) {
        Fail(*values, fmt::format("grid '{}' must be a non-empty list of values", key));
      }
      std::vector<std::string> texts;
      for (const toml::node& value : *values->as_array())
        texts.push_back(ValueText(value, "grid '" + key + "' values"));
      for (const SweepConfiguration& configuration : spec_.configurations) {
        if (configuration.values.count(key) > 0) {
          Fail(*values, fmt::format("'{}' is set by [grid] and by configuration '{}'", key,
                                    configuration.label));
        }
      }
      spec_.grid_origins[key] = Origin(*values);
      axes.emplace_back(key, std::move(texts));
    }
    CheckGridSize(grid, axes);
    std::vector<SweepConfiguration> expanded;
    std::set<std::string> labels;
    for (const SweepConfiguration& base : spec_.configurations) {
      std::vector<size_t> index(axes.size(), 0);
      while (true) {
        SweepConfiguration configuration = base;
        std::string label = base.label;
        for (size_t a = 0; a < axes.size(); ++a) {
          const std::string& value = axes[a].second[index[a]];
          configuration.values[axes[a].first] = value;
          label += (label.empty() ? "" : "_") + axes[a].first + "-" + value;
        }
        configuration.label = label;
        if (!labels.insert(label).second) {
          // The grid's values make the collision: its line, not the configuration's.
          throw InputError(Origin(grid), fmt::format("the grid makes label '{}' twice", label));
        }
        expanded.push_back(std::move(configuration));
        size_t a = axes.size();
        while (a > 0 && ++index[a - 1] == axes[a - 1].second.size())
          index[--a] = 0;
        if (a == 0) break;
      }
    }
    spec_.configurations = std::move(expanded);
  }

  void ParseRun(const toml::table* run) {
    if (run == nullptr) return;
    CheckKeys(*run, {"profiler", "record_nvtx", "units", "unit_name", "window", "key"});
    if (const toml::node* profiler = run->get("profiler")) {
      std::string name = String(*profiler, "profiler");
      spec_.profiler_origin = Origin(*profiler);
      const auto* named =
          std::find_if(std::begin(kProfilerNames), std::end(kProfilerNames),
                       [&name](const NamedProfiler& entry) { return entry.name == name; });
      if (named == std::end(kProfilerNames)) {
        Fail(*profiler, fmt::format("unknown profiler '{}' (nsys, record or command)", name));
      }
      spec_.profiler = named->kind;
    }
    if (const toml::node* nvtx = run->get("record_nvtx")) {
      if (!nvtx->is_boolean()) Fail(*nvtx, "record_nvtx must be true or false");
      // Only the recorder is told here; nsys and "command" decide what they trace themselves.
      if (spec_.profiler != ProfilerKind::kRecord) {
        Fail(*nvtx, "record_nvtx applies only to profiler = \"record\"");
      }
      spec_.record_nvtx = nvtx->as_boolean()->get();
    }
    if (const toml::node* units = run->get("units")) {
      spec_.units = ValueText(*units, "units");
      spec_.units_origin = Origin(*units);
    }
    if (const toml::node* unit_name = run->get("unit_name")) {
      spec_.unit_name = String(*unit_name, "unit_name");
      if (spec_.unit_name.empty() || spec_.unit_name.find_first_of(",\"\n ") != std::string::npos) {
        Fail(*unit_name, fmt::format("unit_name '{}' is not a plain word", spec_.unit_name));
      }
    }
    if (const toml::node* window = run->get("window")) {
      spec_.window = String(*window, "window");
      spec_.window_origin = Origin(*window);
      // Checked where it is written: a bad window fails here, under --dry-run too, not after
      // every configuration was profiled.
      WindowSpec parsed;
      try {
        parsed = ParseWindowSpec(spec_.window);
      } catch (const InputError& error) {
        Fail(*window, fmt::format("window \"{}\": {}", spec_.window, error.problem()));
      }
      // `units` counts the whole run's work: over a part of the run (after the warm-up, a time
      // span, a range's work) it would divide all of it by part of the time.
      const bool whole_run =
          parsed.kind == WindowSpec::Kind::kProcessing || parsed.kind == WindowSpec::Kind::kAll;
      if (!spec_.units.empty() && !whole_run) {
        Fail(*window, fmt::format("window \"{}\" covers part of a run, but units = \"{}\" counts "
                                  "the whole run's: use window = \"processing\", or leave units "
                                  "out",
                                  spec_.window, spec_.units));
      }
      // Otherwise every configuration would run, then fail its analysis for want of the range.
      if (spec_.profiler == ProfilerKind::kRecord && !spec_.record_nvtx &&
          spec_.window.rfind("nvtx:", 0) == 0) {
        Fail(*window, fmt::format("window \"{}\" needs NVTX ranges: with profiler = \"record\" "
                                  "set record_nvtx = true",
                                  spec_.window));
      }
    }
    if (const toml::node* key = run->get("key")) {
      spec_.key = StringList(*key, "key");
      for (const std::string& name : spec_.key) {
        if (spec_.defaults.count(name) == 0) {
          Fail(*key, fmt::format("key names '{}', which is not a parameter", name));
        }
      }
    }
  }

  void ParseBuild(const toml::table* build) {
    if (build == nullptr) return;
    CheckKeys(*build,
              {"identity_command", "identity_file", "identity_regex", "artifacts", "sources"});
    BuildSpec& spec = spec_.build;
    if (const toml::node* command = build->get("identity_command")) {
      spec.identity_command = StringList(*command, "identity_command");
      if (spec.identity_command.empty()) Fail(*command, "identity_command is empty");
      spec.identity_origin = Origin(*command);
    }
    const toml::node* file = build->get("identity_file");
    const toml::node* regex = build->get("identity_regex");
    if ((file == nullptr) != (regex == nullptr)) {
      Fail(file != nullptr ? *file : *regex, "identity_file and identity_regex go together");
    }
    if (file != nullptr) {
      if (!spec.identity_command.empty()) {
        Fail(*file, "give identity_command or identity_file + identity_regex, not both");
      }
      spec.identity_file = String(*file, "identity_file");
      spec.identity_regex = String(*regex, "identity_regex");
      spec.identity_origin = Origin(*regex);
    }
    const toml::node* artifacts = build->get("artifacts");
    const toml::node* sources = build->get("sources");
    if ((artifacts == nullptr) != (sources == nullptr)) {
      Fail(artifacts != nullptr ? *artifacts : *sources,
           "the freshness rule needs both artifacts and sources");
    }
    if (artifacts != nullptr) {
      spec.artifacts = StringList(*artifacts, "artifacts");
      spec.sources = StringList(*sources, "sources");
      spec.freshness_origin = Origin(*artifacts);
    }
  }

  void ParseGuards(const toml::table* guards) {
    if (guards == nullptr) return;
    CheckKeys(*guards, {"max_gpu_utilisation_pct", "min_units"});
    if (const toml::node* limit = guards->get("max_gpu_utilisation_pct")) {
      std::optional<double> value = limit->value<double>();
      if (!value || *value < 0 || *value > 100)
        Fail(*limit, "max_gpu_utilisation_pct must be 0..100");
      spec_.max_gpu_utilisation_pct = *value;
    }
    if (const toml::node* min_units = guards->get("min_units")) {
      if (!min_units->is_integer() || min_units->as_integer()->get() < 0) {
        Fail(*min_units, "min_units must be a whole number >= 0");
      }
      spec_.min_units = min_units->as_integer()->get();
    }
  }

  // Every placeholder must name a parameter or a built-in one, so a typo fails before any run.
  void CheckPlaceholders() const {
    auto check = [&](const std::string& text, const std::string& origin, bool builtins) {
      for (const std::string& name : PlaceholderNames(text, origin)) {
        bool builtin = std::find(std::begin(kBuiltinPlaceholders), std::end(kBuiltinPlaceholders),
                                 name) != std::end(kBuiltinPlaceholders);
        if (spec_.defaults.count(name) == 0 && !(builtins && builtin)) {
          throw InputError(origin, fmt::format("unknown placeholder {{{}}} in \"{}\"", name, text));
        }
      }
    };
    for (size_t i = 0; i < spec_.argv.size(); ++i)
      check(spec_.argv[i], spec_.argv_origins[i], true);
    for (const auto& [name, value] : spec_.env)
      check(value, spec_.env_origin, true);
    check(spec_.units, spec_.units_origin, false);
    bool writes_trace = false;
    for (const std::string& arg : spec_.argv) {
      for (const std::string& name : PlaceholderNames(arg, source_))
        writes_trace = writes_trace || name == "trace";
    }
    if (spec_.profiler == ProfilerKind::kCommand && !writes_trace) {
      throw InputError(spec_.profiler_origin,
                       "profiler \"command\" needs {trace} in argv: the path where the command "
                       "writes its trace");
    }
  }

  std::string source_;
  SweepSpec spec_;
};

}  // namespace

std::string_view ProfilerName(ProfilerKind kind) {
  for (const NamedProfiler& entry : kProfilerNames) {
    if (entry.kind == kind) return entry.name;
  }
  return "?";
}

SweepSpec ParseSweepSpec(const std::string& text, const std::string& source) {
  return SpecParser(source).Parse(text);
}

SweepSpec LoadSweepSpec(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path, "is a directory, expected a sweep file (TOML)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, std::string("cannot open: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(path, "cannot read");
  SweepSpec spec = ParseSweepSpec(text.str(), path);
  // A relative workdir is relative to the sweep file, so a sweep runs the same from any folder.
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  if (!folder.empty() && std::filesystem::path(spec.workdir).is_relative()) {
    std::filesystem::path workdir = (folder / spec.workdir).lexically_normal();
    if (!workdir.has_filename()) workdir = workdir.parent_path();  // "dir/." -> "dir"
    spec.workdir = workdir.string();
  }
  return spec;
}

}  // namespace gpuroof
