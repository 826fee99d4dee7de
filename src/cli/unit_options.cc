#include "unit_options.h"

#include <charconv>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/analyses/window.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

void AddUnitOptions(CLI::App& command, UnitOptions& options) {
  command.add_option("--units", options.units, "Units of work (frames, batches...) in the window");
  command.add_option("--unit-name", options.unit_name, "What one unit is called")
      ->capture_default_str();
  command.add_option("--units-from", options.units_from,
                     "Count units in the window: kernel:NAME (launches) or nvtx:NAME (ranges)");
}

int64_t ParsePositiveCount(const std::string& text, const std::string& option) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) {
    throw InputError(option, fmt::format("must be a positive whole number, got '{}'", text));
  }
  return value;
}

UnitsSpec ParseUnitOptions(const UnitOptions& options, std::string* text) {
  if (!options.units.empty() && !options.units_from.empty()) {
    throw InputError("--units", "give either --units or --units-from, not both");
  }
  if (options.unit_name.empty() || options.unit_name.find_first_of(",\"\n ") != std::string::npos) {
    throw InputError("--unit-name", fmt::format("'{}' is not a plain word", options.unit_name));
  }
  UnitsSpec units;
  text->clear();
  if (!options.units.empty()) {
    units.kind = UnitsSpec::Kind::kFixed;
    units.count = ParsePositiveCount(options.units, "--units");
    *text = "--units " + options.units;
  } else if (!options.units_from.empty()) {
    units = ParseUnitsFrom(options.units_from);
    *text = "--units-from " + options.units_from;
  }
  units.unit_name = options.unit_name;
  return units;
}

void AddAttributeOption(CLI::App& command, std::string& value) {
  command.add_option("--attribute", value,
                     "Whose launches are a range's GPU work: process (any thread of the "
                     "process; the default for iteration ranges) or thread (the range's own "
                     "thread, as nsys projects nested ranges)");
}

std::optional<RangeScope> ParseAttribute(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (value == "thread") return RangeScope::kThread;
  if (value == "process") return RangeScope::kProcess;
  throw InputError("--attribute",
                   fmt::format("'{}' is not a scope (use thread or process)", value));
}

void ReadForRanges(const WindowSpec& window, const UnitsSpec& units, ReadOptions& read) {
  if (window.kind != WindowSpec::Kind::kNvtx && units.kind != UnitsSpec::Kind::kNvtxRanges) {
    return;
  }
  // The breakdown detail reads correlation ids and API calls when the file has NVTX ranges.
  if (read.detail == ReadDetail::kEngineLoad) read.detail = ReadDetail::kBreakdown;
  read.api_calls = true;
}

WindowSpec ParseWindowOptions(const std::string& window, const std::string& attribute) {
  WindowSpec spec = ParseWindowSpec(window);
  if (std::optional<RangeScope> scope = ParseAttribute(attribute)) spec.nvtx_scope = *scope;
  return spec;
}

void AddKernelKeyOption(CLI::App& command, std::string& key) {
  command.add_option("--key", key, "name | demangled | launch")->capture_default_str();
}

ReadOptions ApiCallReadOptions(const WindowSpec& window, int threads, bool every_call) {
  // Every call (api, findings): the calls, the ops' names, memory kinds and correlation ids, never
  // the kernel shapes or demangled names that only the launch keys need.
  ReadOptions read = BreakdownReadOptions(
      window, every_call ? ReadDetail::kBreakdown : ReadDetail::kFull, threads);
  read.api_calls = true;
  read.all_api_calls = every_call;
  return read;
}

int64_t ParsePositiveDurationNs(const std::string& text, const std::string& option) {
  const int64_t ns = ParseDurationNs(text, option);
  if (ns <= 0) throw InputError(option, fmt::format("must be longer than 0, got '{}'", text));
  return ns;
}

ReadOptions BreakdownReadOptions(const WindowSpec& window, ReadDetail detail, int threads) {
  ReadOptions read;
  read.threads = threads;
  read.detail = detail;
  read.api_calls = false;
  ReadForRanges(window, UnitsSpec{}, read);
  return read;
}

bool PrepareSteadyState(EngineLoadOptions& load, bool steady_report) {
  const bool steady_window = load.window.kind == WindowSpec::Kind::kSteady;
  if (steady_window) load.window.steady_units = UnitSeriesFrom(load.units);
  const bool compare = steady_window || steady_report;
  if (compare && load.units.kind == UnitsSpec::Kind::kFixed) {
    throw InputError("--units", fmt::format("a fixed count cannot be split between the warm-up "
                                            "and the steady state of {}; count units with "
                                            "--units-from kernel:NAME or nvtx:NAME instead",
                                            steady_window ? "--window steady" : "--steady-report"));
  }
  return compare;
}

}  // namespace gpuroof
