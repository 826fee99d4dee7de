#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuroof {

// A sweep file (docs/cli.md, "Sweep files"), as written. Every value keeps its "file:line"
// origin so later checks (units that are not a number, a build identity regex that matches
// nothing) can name the place.

// One configuration: a label and the parameters it changes from the defaults.
struct SweepConfiguration {
  std::string label;
  std::map<std::string, std::string> values;
  std::string origin;  // "file:line"
};

enum class ProfilerKind {
  kNsys,     // nsys profile, then nsys export --type sqlite
  kRecord,   // gpuroof's own recorder, as `gpuroof record` runs it
  kCommand,  // the command writes the trace itself at {trace}
};

struct BuildSpec {
  std::vector<std::string> identity_command;  // argv; stdout's first line is the identity
  std::string identity_file;                  // or: a file and a regex whose group 1 is it
  std::string identity_regex;
  std::string identity_origin;
  std::vector<std::string> artifacts;  // globs (`**` for any folders), relative to the workdir
  std::vector<std::string> sources;
  std::string freshness_origin;
};

struct SweepSpec {
  std::string source;  // the sweep file's path

  std::vector<std::string> argv;  // templates with {param} placeholders
  std::vector<std::string> argv_origins;
  std::string workdir = ".";
  std::string workdir_origin;  // "file:line" of workdir; "" when not given
  std::vector<std::pair<std::string, std::string>> env;  // additions; values are templates
  std::string env_origin;

  std::vector<std::string> parameter_order;  // as written
  std::map<std::string, std::string> defaults;
  std::vector<SweepConfiguration> configurations;
  // [grid] parameters -> "file:line" of their list: labels name their values, so --set refuses
  // them.
  std::map<std::string, std::string> grid_origins;

  std::string units;  // template, e.g. "{frames}"; empty: no units
  std::string units_origin;
  std::string unit_name = "frame";
  std::string window = "processing";
  std::string window_origin;
  std::vector<std::string> key;  // explicit results key (parameters); empty: label + varying
  ProfilerKind profiler = ProfilerKind::kNsys;
  std::string profiler_origin;
  bool record_nvtx = false;  // profiler "record": also record NVTX ranges (`record --nvtx`)

  BuildSpec build;

  double max_gpu_utilisation_pct = 5;
  int64_t min_units = 0;  // 0: every run is long enough
};

// Placeholders every template may use besides the parameters: the run's label, the trace path
// the run must write ({trace}) and the results folder.
inline constexpr const char* kBuiltinPlaceholders[] = {"label", "trace", "results"};

// The most configurations a [grid] may make (docs/cli.md, "Sweep files"): a larger grid, usually
// a typo, is refused with its count before it is expanded.
inline constexpr uint64_t kMaxGridConfigurations = 10000;

// The profiler's name in a sweep file's [run] table ("nsys", "record", "command").
std::string_view ProfilerName(ProfilerKind kind);

// Parses and checks a sweep file. Throws InputError with source "file:line" for TOML syntax
// errors, unknown tables or keys, wrong value types, unknown placeholders, duplicate labels and
// an empty configuration list.
SweepSpec ParseSweepSpec(const std::string& text, const std::string& source);

// Reads the file, then ParseSweepSpec(); a relative workdir becomes relative to the file's
// folder. Throws InputError naming the file when it is unreadable.
SweepSpec LoadSweepSpec(const std::string& path);

}  // namespace gpuroof
