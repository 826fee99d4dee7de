#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuroof {

// Flags shared by every command that prints a result.
struct OutputOptions {
  std::string format = "table";
  std::string output_path;  // empty: stdout
  bool strict = false;
  bool quiet = false;
};

// Adds --format (limited to `formats`, e.g. {"table", "csv", "json"}), -o/--output, --strict and
// --quiet to `command`.
void AddOutputOptions(CLI::App& command, OutputOptions& options,
                      const std::vector<std::string>& formats);

// Sends `content` to stdout, or atomically to the output file. Throws InputError naming the
// file when it cannot be written.
void EmitOutput(const OutputOptions& options, const std::string& content);

// The renderers of one report, one per --format it offers (markdown may be missing).
template <typename Report>
struct ReportFormats {
  std::string (*table)(const Report&) = nullptr;
  std::string (*csv)(const Report&) = nullptr;
  std::string (*json)(const Report&) = nullptr;
  std::string (*markdown)(const Report&) = nullptr;
};

// Writes one result file of a file option (--json FILE, --markdown FILE, --html FILE): "-" is
// stdout, anything else is written atomically.
void WriteResultFile(const std::string& path, const std::string& content);

// The help text of every command's trace arguments: which files gpuroof reads.
inline constexpr const char* kTraceFilesHelp =
    "Trace files: nsys exports (.sqlite, .nsys-rep) or PyTorch/Kineto JSON (.json, .json.gz)";

// Renders `report` in the chosen --format and emits it (EmitOutput).
template <typename Report>
void RenderAndEmit(const OutputOptions& options, const Report& report,
                   const ReportFormats<Report>& formats) {
  auto render = formats.table;
  if (options.format == "csv") render = formats.csv;
  if (options.format == "json") render = formats.json;
  if (options.format == "markdown" && formats.markdown) render = formats.markdown;
  EmitOutput(options, render(report));
}

// "gpuroof: note: <path>: <where>: <note>" on stderr, unless the note is empty or --quiet.
void PrintNote(const OutputOptions& options, const std::string& path, const std::string& where,
               const std::string& note);

}  // namespace gpuroof
