#include "output_options.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "gpuroof/format/output_file.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

void AddOutputOptions(CLI::App& command, OutputOptions& options,
                      const std::vector<std::string>& formats) {
  command.add_option("--format", options.format, "Output format")
      ->transform(CLI::IsMember(formats, CLI::ignore_case))
      ->capture_default_str();
  command.add_option("-o,--output", options.output_path,
                     "Write the result to this file (atomically) instead of stdout ('-': stdout)");
  command.add_flag("--strict", options.strict,
                   "Fail (exit 1) when records a figure needs had to be skipped (data loss)");
  command.add_flag("-q,--quiet", options.quiet, "Do not print diagnostics summaries on stderr");
}

void WriteResultFile(const std::string& path, const std::string& content) {
  if (path == "-") {
    if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() ||
        std::fflush(stdout) != 0) {
      throw InputError("stdout", "cannot write the result");
    }
    return;
  }
  WriteFileAtomically(path, content);
}

void EmitOutput(const OutputOptions& options, const std::string& content) {
  WriteResultFile(options.output_path.empty() ? "-" : options.output_path, content);
}

void AddTracesArgument(CLI::App& command, std::vector<std::string>& traces) {
  command.add_option("traces", traces, kTraceFilesHelp)->required();
}

void AddThreadsOption(CLI::App& command, int& threads) {
  command.add_option("--threads", threads, "Reader threads (0 = automatic)")
      ->check([](const std::string& value) -> std::string {
        int parsed = 0;
        const char* end = value.data() + value.size();
        const auto [at, error] = std::from_chars(value.data(), end, parsed);
        if (error == std::errc() && at == end) return "";
        return "'" + value + "' is not a whole number (0 to 64; 0 = automatic)";
      })
      ->check(CLI::Range(0, 64));
}

void AddWindowOption(CLI::App& command, std::string& window, WindowKinds kinds) {
  command
      .add_option("--window", window,
                  kinds == WindowKinds::kWithSteady
                      ? "processing | all | START:END | nvtx:NAME[@N|@*] | steady"
                      : "processing | all | START:END | nvtx:NAME[@N|@*]")
      ->capture_default_str();
}

std::string RenderDocument(const std::string& format, const ReportDocument& document) {
  if (format == "csv") return RenderDocumentCsv(document);
  if (format == "markdown") return RenderDocumentMarkdown(document);
  return RenderDocumentText(document);
}

void PrintLeftOutNotes(const OutputOptions& options, const std::string& format,
                       const ReportDocument& document) {
  if (format != "csv" && format != "csv-long") return;
  for (const ReportSection& section : document.sections) {
    const std::string where =
        section.device ? fmt::format("device {}", *section.device) : std::string("left out");
    for (const std::string& note : section.left_out)
      PrintNote(options, section.trace, where, note);
  }
}

namespace {
thread_local std::FILE* captured_messages = nullptr;
}  // namespace

std::FILE* MessageStream() {
  return captured_messages != nullptr ? captured_messages : stderr;
}

MessageCapture::MessageCapture() {
  stream_ = open_memstream(&buffer_, &size_);
  if (stream_ == nullptr) throw std::runtime_error("cannot open a memory stream for messages");
  previous_ = captured_messages;
  captured_messages = stream_;
}

MessageCapture::~MessageCapture() {
  if (stream_ == nullptr) return;
  const std::string held = Close();
  std::fputs(held.c_str(), MessageStream());
}

std::string MessageCapture::Close() {
  captured_messages = previous_;
  std::fclose(stream_);  // sets buffer_ and size_ a last time
  stream_ = nullptr;
  std::string text(buffer_ != nullptr ? buffer_ : "", size_);
  std::free(buffer_);
  buffer_ = nullptr;
  return text;
}

std::string MessageCapture::Take() {
  if (stream_ == nullptr) return {};
  return Close();
}

void PrintNote(const OutputOptions& options, const std::string& path, const std::string& where,
               const std::string& note) {
  if (note.empty() || options.quiet) return;
  fmt::print(MessageStream(), "gpuroof: note: {}: {}: {}\n", path, where, note);
}

}  // namespace gpuroof
