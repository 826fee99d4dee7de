#include "gpuroof/readers/reader_registry.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/kineto_json_reader.h"
#include "gpuroof/readers/nsys_report_export.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {

namespace {

enum class Format { kNsysSqlite, kNsysReport, kUnknown };

Format Sniff(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, sizeof header);
  if (in.gcount() == 16 &&
      std::string_view(header, 16) == std::string_view("SQLite format 3\0", 16)) {
    return Format::kNsysSqlite;
  }
  if (IsNsysReportName(path)) return Format::kNsysReport;
  return Format::kUnknown;
}

}  // namespace

std::string SupportedFormats() {
  return "Kineto JSON traces (.json, .json.gz), Nsight Systems SQLite exports (.sqlite) and "
         "reports (.nsys-rep, exported with nsys)";
}

std::string TraceFileExtension(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "";
  if (Sniff(path) == Format::kNsysSqlite) return ".sqlite";
  if (!IsKinetoJsonFile(path)) return "";
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {};
  in.read(magic, sizeof magic);
  const bool gzip = in.gcount() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
                    static_cast<unsigned char>(magic[1]) == 0x8b;
  return gzip ? ".json.gz" : ".json";
}

void CheckTraceFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw InputError(path.string(), "no such file");
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(path.string(),
                     "is a directory, expected a trace file (" + SupportedFormats() + ")");
  }
  // A pipe (`<(gunzip -c t.json.gz)`), FIFO or device: the format is told from the first bytes
  // and the reader opens the file again, so a stream would reach it with its head cut off (and
  // a FIFO without a writer would block the open forever). Refused before it is opened.
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw InputError(path.string(),
                     "is not a regular file (a pipe, FIFO or device?): a trace is read more than "
                     "once; save it to a file first");
  }
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) {
    throw InputError(path.string(), fmt::format("cannot be read: {}", std::strerror(errno)));
  }
  std::fclose(file);
}

Trace ReadTrace(const std::filesystem::path& path, const ReadOptions& options) {
  CheckTraceFile(path);
  std::error_code ec;
  if (IsKinetoJsonFile(path)) {
    KinetoReadOptions kineto_options;
    static_cast<ReadScope&>(kineto_options) = options;
    return ReadKinetoJson(path, kineto_options);
  }
  const Format format = Sniff(path);
  std::string name = path.filename().string();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (format != Format::kNsysSqlite && format != Format::kNsysReport &&
      std::filesystem::file_size(path, ec) > 0 && !ec &&
      (name.ends_with(".json") || name.ends_with(".json.gz"))) {
    // Named like a Kineto trace, and no nsys file either (the content decides, whatever the
    // name): "not an SQLite database" would send the user the wrong way.
    throw InputError(path.string(),
                     "is named like a Kineto JSON trace but does not start like one (a JSON "
                     "object, or an array of event objects, after any whitespace)");
  }
  const NsysReadOptions& nsys_options = options;
  switch (format) {
    case Format::kNsysSqlite:
      return ReadNsysSqlite(path, nsys_options);
    case Format::kNsysReport: {
      PosixProcessRunner spawn;
      ProcessRunner& runner = options.runner != nullptr ? *options.runner : spawn;
      // A new export is read where nsys wrote it, before it replaces <stem>.sqlite: one that
      // cannot be read never costs the user an older export (ResolveNsysReport keeps it).
      std::optional<Trace> fresh;
      std::string note;
      const std::filesystem::path sqlite = ResolveNsysReport(
          path, runner, nullptr,
          [&](const std::filesystem::path& partial) {
            fresh = ReadNsysSqlite(partial, nsys_options);
          },
          &note);
      Trace trace = fresh ? std::move(*fresh) : ReadNsysSqlite(sqlite, nsys_options);
      trace.source = sqlite.string();
      trace.metadata["exported_from"] = path.string();
      if (!note.empty()) trace.diagnostics.Note(note);
      return trace;
    }
    case Format::kUnknown:
      break;
  }
  // Fall through to the SQLite reader for its precise "empty / not SQLite" message.
  return ReadNsysSqlite(path, nsys_options);
}

}  // namespace gpuroof
