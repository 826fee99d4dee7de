#include "file_arguments.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/nsys_report_export.h"

#include "output_options.h"
#include "rank_inputs.h"

namespace gpuroof {

namespace {

namespace fs = std::filesystem;

// The options whose values are files the command writes.
constexpr std::array<std::string_view, 5> kOutputOptions = {"output", "json", "markdown", "html",
                                                            "history-append"};
// The named options whose values are traces the command reads (positionals are too).
constexpr std::array<std::string_view, 2> kInputOptions = {"baseline", "current"};
// The named options whose values are other files the command reads: a history of runs, a
// sweep's env stamp. An output must not replace them either.
constexpr std::array<std::string_view, 2> kReadFileOptions = {"history", "env"};

bool HasLongName(const CLI::Option& option, const auto& names) {
  const std::vector<std::string>& own = option.get_lnames();
  return std::any_of(own.begin(), own.end(), [&names](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  });
}

// Whether two output paths name one file, existing or not, under any spelling.
bool SameOutput(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  const fs::path first = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path second = fs::weakly_canonical(b, ec);
  return !ec && first == second;
}

// Whether `output` names the SQLite export an nsys report `input` is read through (existing or
// about to be made): writing it would destroy the data just read, or an export nsys may not be
// there to make again.
bool OverwritesExport(const fs::path& output, const fs::path& input) {
  return IsNsysReportName(input) && SameOutput(output, NsysExportPath(input));
}

// Whether `output` names the file `input` names, or a trace read from the directory `input`.
bool Overwrites(const fs::path& output, const fs::path& input) {
  std::error_code ec;
  if (fs::equivalent(output, input, ec)) return true;  // false, with ec, when either is missing
  if (OverwritesExport(output, input)) return true;
  if (!fs::is_directory(input, ec)) return false;
  // The traces the directory search itself would read, by identity: through symbolic links to
  // files or sub-directories too (it follows them), and never a file there it would leave out.
  // Searched even when the output does not exist yet: it may name the export a report found
  // there is about to get.
  try {
    const RankInputs found = FindRankInputs({input.string()});
    return std::any_of(found.paths.begin(), found.paths.end(), [&output](const std::string& path) {
      std::error_code unused;
      return fs::equivalent(output, path, unused) || OverwritesExport(output, path);
    });
  } catch (const InputError&) {
    if (!fs::is_regular_file(output, ec)) return false;
    // No trace there, or one reached twice (the command refuses that itself): a trace file
    // below the directory, as the search would tell it, is still never replaced.
    const fs::path folder = fs::weakly_canonical(input, ec);
    const fs::path file = fs::weakly_canonical(output, ec);
    if (ec) return false;
    auto [end, unused] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
    return end == folder.end() && TellFoundFile(output) == FoundFile::kTrace;
  }
}

// The files the command reads: its positional arguments and --baseline/--current.
std::vector<std::string> InputsOf(const CLI::App& command) {
  std::vector<std::string> inputs;
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0) continue;
    if (!option->nonpositional() || HasLongName(*option, kInputOptions)) {
      for (const std::string& value : option->results())
        inputs.push_back(value);
    }
  }
  return inputs;
}

// Every file the command reads, with the option that names it ("" for a positional one).
std::vector<std::pair<std::string, std::string>> FilesReadBy(const CLI::App& command) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0) continue;
    const bool positional = !option->nonpositional();
    if (positional || HasLongName(*option, kInputOptions) ||
        HasLongName(*option, kReadFileOptions)) {
      for (const std::string& value : option->results())
        files.emplace_back(positional ? "" : option->get_name(), value);
    }
  }
  return files;
}

}  // namespace

void CheckOutputFiles(const CLI::App& command) {
  const std::vector<std::pair<std::string, std::string>> inputs = FilesReadBy(command);
  std::vector<std::pair<std::string, std::string>> outputs;  // (option, file)
  std::string to_stdout;                                     // the option that writes to stdout
  for (const CLI::Option* option : command.get_options()) {
    if (option->count() == 0 || !HasLongName(*option, kOutputOptions)) continue;
    for (const std::string& value : option->results()) {
      // An empty name would silently mean stdout (or fail only after the analysis).
      if (value.empty()) {
        throw InputError(option->get_name(), "an empty file name; give a file, or '-' for stdout");
      }
      if (value != "-") {
        outputs.emplace_back(option->get_name(), value);
      } else if (to_stdout.empty()) {
        to_stdout = option->get_name();
      } else {
        // stdout holds one document, which a pipe's reader can parse (docs/cli.md).
        throw InputError("-", fmt::format("{} and {} both write to stdout; give one of them a file",
                                          to_stdout, option->get_name()));
      }
    }
  }
  for (const auto& [option, output] : outputs) {
    // Found now, not after the analysis: the folder the output goes in.
    std::error_code ec;
    const fs::path folder = fs::path(output).parent_path();
    if (!folder.empty() && !fs::is_directory(folder, ec)) {
      throw InputError(output,
                       fmt::format("cannot create output: the folder {} {}", folder.string(),
                                   fs::exists(folder, ec) ? "is not a folder" : "does not exist"));
    }
    for (const auto& [read_by, input] : inputs) {
      // Appending the run to the history it was gated against is what --history-append is for.
      if (option == "--history-append" && read_by == "--history") continue;
      if (!Overwrites(output, input)) continue;
      std::string what;
      if (OverwritesExport(output, input)) {
        what = fmt::format("the export {} of the nsys report {}", NsysExportPath(input).string(),
                           input);
      } else if (fs::is_directory(input, ec)) {
        what = fmt::format("a trace in the {}directory {}",
                           read_by.empty() ? "input " : read_by + " ", input);
      } else if (!read_by.empty()) {
        what = fmt::format("the {} file {}", read_by, input);
      } else {
        what = "the input trace " + input;
      }
      throw InputError(output,
                       fmt::format("{} would overwrite {}; choose another file", option, what));
    }
  }
  // Two outputs in one file: the later would replace the earlier without a word.
  for (size_t later = 1; later < outputs.size(); ++later) {
    for (size_t earlier = 0; earlier < later; ++earlier) {
      if (!SameOutput(outputs[earlier].second, outputs[later].second)) continue;
      throw InputError(outputs[later].second,
                       fmt::format("{} and {} name the same file; each output needs its own",
                                   outputs[earlier].first, outputs[later].first));
    }
  }
}

// Whether two regular files hold the same bytes: a copy of one run's trace is the same run
// (cheap unless the sizes agree; then read until the first difference).
bool SameContent(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (!fs::is_regular_file(a, ec) || !fs::is_regular_file(b, ec)) return false;
  const auto size = fs::file_size(a, ec);
  if (ec || size != fs::file_size(b, ec) || ec) return false;
  std::ifstream first(a, std::ios::binary);
  std::ifstream second(b, std::ios::binary);
  if (!first || !second) return false;
  constexpr size_t kChunk = 1 << 16;
  std::vector<char> x(kChunk);
  std::vector<char> y(kChunk);
  while (first && second) {
    first.read(x.data(), kChunk);
    second.read(y.data(), kChunk);
    if (first.gcount() != second.gcount() ||
        !std::equal(x.begin(), x.begin() + first.gcount(), y.begin())) {
      return false;
    }
  }
  return first.eof() && second.eof();
}

bool SameFileOrBytes(const std::string& a, const std::string& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec) || SameContent(a, b);
}

// compare's sides: within one side a trace twice, or a byte-identical copy of one, would be two
// runs with no run-to-run noise between them (a zero-width interval); across the sides, with
// several profiles on a side, a run on both sides next to runs that are not halves any true
// shift. An A/A check (`compare A A`, or the same profiles on both sides) stays allowed.
void CheckCompareSides(const std::vector<std::vector<std::string>>& sides) {
  for (const std::vector<std::string>& inputs : sides) {
    for (size_t later = 1; later < inputs.size(); ++later) {
      for (size_t earlier = 0; earlier < later; ++earlier) {
        std::error_code ec;
        if (fs::equivalent(inputs[earlier], inputs[later], ec)) continue;  // said elsewhere
        if (!SameContent(inputs[earlier], inputs[later])) continue;
        throw InputError(inputs[later],
                         fmt::format("has the same bytes as {}: a copy of one run is not a "
                                     "second run; give each run's own trace",
                                     inputs[earlier]));
      }
    }
  }
  if (sides.size() != 2 || (sides[0].size() < 2 && sides[1].size() < 2)) return;
  std::vector<std::pair<std::string, std::string>> shared;  // (current, baseline)
  for (const std::string& current : sides[1]) {
    for (const std::string& baseline : sides[0]) {
      if (SameFileOrBytes(baseline, current)) shared.emplace_back(current, baseline);
    }
  }
  const bool a_a = shared.size() == sides[0].size() && shared.size() == sides[1].size();
  if (shared.empty() || a_a) return;
  throw InputError(shared.front().first,
                   fmt::format("is on both sides (as {}) next to runs that are not: one run on "
                               "both sides halves any change; give each run on one side (or "
                               "the same runs on both, an A/A check)",
                               shared.front().second));
}

void CheckRepeatedInputs(const CLI::App& command) {
  const std::string& name = command.get_name();
  // Their positional arguments are not traces.
  if (name == "record" || name == "sweep" || name == "bench") return;
  // compare: within one side (--baseline, --current) a trace twice would be two runs; the two
  // positional profiles may be one file (an A/A check), except under --calibrate, where each is
  // one A/A run: a trace twice, or a copy, would be runs without run-to-run noise. ranks: any
  // trace twice is two ranks. The traces found in directory arguments are checked once found,
  // over the whole list of a rank set (FindRankInputs, rank_inputs.h).
  std::vector<std::vector<std::string>> groups;
  if (name == "compare") {
    for (std::string_view side : kInputOptions) {
      const CLI::Option* option = command.get_option_no_throw("--" + std::string(side));
      if (option != nullptr) groups.push_back(option->results());
    }
    const CLI::Option* calibrate = command.get_option_no_throw("--calibrate");
    const CLI::Option* profiles = command.get_option_no_throw("profiles");
    if (calibrate != nullptr && calibrate->count() > 0 && profiles != nullptr) {
      groups.push_back(profiles->results());
    }
  } else {
    groups.push_back(InputsOf(command));
  }
  const bool refuse = name == "compare" || name == "ranks";
  for (const std::vector<std::string>& inputs : groups) {
    for (size_t later = 1; later < inputs.size(); ++later) {
      for (size_t earlier = 0; earlier < later; ++earlier) {
        std::error_code ec;
        if (!fs::equivalent(inputs[earlier], inputs[later], ec)) continue;
        const std::string what = inputs[earlier] == inputs[later]
                                     ? std::string("is given twice")
                                     : fmt::format("is the same file as {}", inputs[earlier]);
        if (refuse) {
          throw InputError(inputs[later], what + ": each trace is one run (or rank); give it once");
        }
        const CLI::Option* quiet = command.get_option_no_throw("--quiet");
        if (quiet == nullptr || quiet->count() == 0) {
          fmt::print(MessageStream(), "gpuroof: warning: {}: {}; it is read and shown twice\n",
                     inputs[later], what);
        }
        break;
      }
    }
  }
  if (name == "compare") CheckCompareSides(groups);
}

void InstallFileArgumentChecks(CLI::App& app) {
  app.parse_complete_callback([&app]() {
    for (const CLI::App* command : app.get_subcommands()) {
      CheckOutputFiles(*command);
      CheckRepeatedInputs(*command);
    }
  });
}

}  // namespace gpuroof
