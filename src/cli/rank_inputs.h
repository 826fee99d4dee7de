// Which files `gpuroof ranks` reads: the files given, and the traces found in the directories
// given, told by their content.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace gpuroof {

struct RankInputs {
  std::vector<std::string> paths;  // files given in order, then each directory's traces sorted
  size_t not_traces = 0;           // files in the directories that are no trace, left out
  size_t json_not_traces = 0;      // ... of them, JSON documents without a traceEvents key
  size_t unreadable = 0;  // files there neither readable as a trace nor named like one, left out
  std::string first_unreadable;    // the first of them: "<file>: <problem>"
  size_t exported_twice = 0;       // .nsys-rep files left out for their .sqlite export beside them
  size_t older_exports = 0;        // ... of them, those whose export is older than the report
  std::string first_older_export;  // the first such export
  size_t directories_again = 0;    // directories reached again through a symbolic link, not re-read
};

// How the directory search tells a file it finds.
enum class FoundFile {
  kTrace,         // read as a rank (a trace that then cannot be read is reported as not analysed)
  kNotTrace,      // left out, counted: not a trace by its content, nor named like one
  kJsonNotTrace,  // left out, counted: a JSON object that ends without a top-level traceEvents
  kUnreadable,    // left out, counted: its first bytes cannot be read (corrupt gzip, only
                  // whitespace) and its name does not say trace (.json, .json.gz, .sqlite)
};

// The rule for one regular file found in a directory (and for an output file there: it would
// overwrite an input only when it is kTrace). `problem` gets why a kUnreadable file could not be
// told. Never throws InputError.
FoundFile TellFoundFile(const std::filesystem::path& file, std::string* problem = nullptr);

// Files are taken as given; directories are searched recursively, following symbolic links to
// directories (a directory reached a second time, e.g. through a link to its parent, is not
// searched again; counted), for Kineto JSON (.json, .json.gz) and nsys SQLite exports by content
// (TellFoundFile), and for .nsys-rep files by name (an .nsys-rep beside its own .sqlite export is
// left out: it is the same rank). Throws InputError naming the directory when it holds no trace,
// naming the path when it does not exist, and naming the second path when one file is reached
// twice (same device and inode: a file and its directory, a hard or symbolic link).
RankInputs FindRankInputs(const std::vector<std::string>& inputs);

}  // namespace gpuroof
