#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "gpuroof/format/report_document.h"
#include "gpuroof/model/non_copyable.h"

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

// What every breakdown command takes besides its own options (docs/cli.md): the trace files,
// --threads, and the output options.
struct BreakdownOptions {
  std::vector<std::string> traces;
  int threads = 0;  // reader threads, 0 = automatic
  OutputOptions output;
};

// Adds --format (limited to `formats`, e.g. {"table", "csv", "json"}), -o/--output, --strict and
// --quiet to `command`.
void AddOutputOptions(CLI::App& command, OutputOptions& options,
                      const std::vector<std::string>& formats);

// Sends `content` to stdout, or atomically to the output file. Throws InputError naming the
// file when it cannot be written.
void EmitOutput(const OutputOptions& options, const std::string& content);

// How one report renders: its tables as a document (--format table, csv, markdown; one writer per
// format, format/report_document.h) and its JSON schema (--format json).
template <typename Report>
struct ReportFormats {
  ReportDocument (*document)(const Report&) = nullptr;
  std::string (*json)(const Report&) = nullptr;
};

// Writes one result file of a file option (--json FILE, --markdown FILE, --html FILE): "-" is
// stdout, anything else is written atomically.
void WriteResultFile(const std::string& path, const std::string& content);

// The help text of every command's trace arguments: which files gpuroof reads.
inline constexpr const char* kTraceFilesHelp =
    "Trace files: nsys exports (.sqlite, .nsys-rep) or PyTorch/Kineto JSON (.json, .json.gz)";

// The trace files every trace-reading command takes (positional, at least one).
void AddTracesArgument(CLI::App& command, std::vector<std::string>& traces);
// --threads: reader threads, 0 = automatic.
void AddThreadsOption(CLI::App& command, int& threads);
// --window, naming the windows the command accepts (docs/cli.md, "Windows").
enum class WindowKinds { kWithSteady, kWithoutSteady };
void AddWindowOption(CLI::App& command, std::string& window, WindowKinds kinds);

// The document in --format table, csv or markdown.
std::string RenderDocument(const std::string& format, const ReportDocument& document);

// "gpuroof: note: <trace>: <device N>: <note>" on stderr for each section's left_out note when
// `format` has no place for the preamble and footer lines that say them (csv, csv-long).
void PrintLeftOutNotes(const OutputOptions& options, const std::string& format,
                       const ReportDocument& document);

// Renders `report` in the chosen --format and emits it (EmitOutput); what the table leaves out
// goes to stderr with a CSV (PrintLeftOutNotes).
template <typename Report>
void RenderAndEmit(const OutputOptions& options, const Report& report,
                   const ReportFormats<Report>& formats) {
  if (options.format == "json") {
    EmitOutput(options, formats.json(report));
  } else {
    const ReportDocument document = formats.document(report);
    PrintLeftOutNotes(options, options.format, document);
    EmitOutput(options, RenderDocument(options.format, document));
  }
}

// Where the commands print their notes, warnings and check failures: stderr, or the
// MessageCapture open on this thread (the Python module's in-process runs, which give each
// message once, as a Python warning, and never print it).
std::FILE* MessageStream();

// While alive, MessageStream() on this thread writes into memory; Take() returns what was
// written. One not taken (an exception ended the run) writes what it holds on stderr when it
// goes, as the command would have. Throws std::runtime_error when no memory stream opens.
class MessageCapture : NonCopyable {
 public:
  MessageCapture();
  ~MessageCapture();
  std::string Take();

 private:
  std::string Close();
  std::FILE* stream_ = nullptr;
  std::FILE* previous_ = nullptr;
  char* buffer_ = nullptr;
  size_t size_ = 0;
};

// "gpuroof: note: <path>: <where>: <note>" on stderr, unless the note is empty or --quiet.
void PrintNote(const OutputOptions& options, const std::string& path, const std::string& where,
               const std::string& note);

}  // namespace gpuroof
