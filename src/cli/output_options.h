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

// Renders `report` in the chosen --format and emits it (EmitOutput).
template <typename Report>
void RenderAndEmit(const OutputOptions& options, const Report& report,
                   std::string (*text)(const Report&), std::string (*csv)(const Report&),
                   std::string (*json)(const Report&)) {
  const auto render = options.format == "csv" ? csv : options.format == "json" ? json : text;
  EmitOutput(options, render(report));
}

// "gpuroof: note: <path>: <where>: <note>" on stderr, unless the note is empty or --quiet.
void PrintNote(const OutputOptions& options, const std::string& path, const std::string& where,
               const std::string& note);

}  // namespace gpuroof
