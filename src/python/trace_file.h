#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof::python {

// Which file a path named, and its state: device and inode, size, modification time (ns).
struct FileIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  int64_t size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileIdentity&) const = default;
};

// What the CLI prints about a trace it read (CheckDiagnostics), without the "gpuroof: warning: "
// and "gpuroof: note: " prefixes: "PATH: SUMMARY" when records were skipped, then "PATH: NOTE"
// for each reader note (batched copies, zero-length ops, the memory-rate note, ...).
std::vector<std::string> ReaderMessages(const Trace& trace);

// A trace file as the Python module holds it (gpuroof.Trace): read once per set of read options,
// on first use, and kept. Each analysis asks for exactly what its CLI command reads (less detail
// is faster, and the "inputs" part of the JSON, the diagnostics, depends on it), so results equal
// the CLI's, and `load(); analyze()` costs what `gpuroof analyze` does.
//
// The file is named by its absolute path, made when it is opened: a later read (or a CLI-backed
// call given the Trace) reads the same file whatever the working directory is then. Its identity
// (FileIdentity) is taken when it is opened; a later read first checks it and throws InputError
// when the file was replaced or changed since, rather than mix two files in one Trace. Traces and
// messages still name the file as the user gave it (Trace.source).
class TraceFile {
 public:
  // Throws InputError naming `path` when it cannot be examined (the reader's messages otherwise).
  TraceFile(std::string path, int threads);

  // The trace read with `options` (its thread count replaced by this file's), read now when it
  // is the first use of those options; then its ReaderMessages that no earlier read of this
  // file gave are added to `warnings`.
  // Thread-safe; reads without the GIL when the caller released it. Throws InputError, also when
  // the file changed since it was opened (CheckUnchanged).
  const Trace& Read(ReadOptions options, std::vector<std::string>* warnings);

  // Throws InputError naming the file when it is no longer the file that was opened (another
  // inode, size or modification time, or gone).
  void CheckUnchanged() const;

  // The first trace read (what Trace.devices, .metadata, ... show).
  const Trace& first() const { return *first_; }
  // As the user gave it.
  const std::string& path() const { return path_; }
  // What is read: absolute, made when the file was opened.
  const std::string& absolute_path() const { return absolute_path_; }

 private:
  using Key = std::tuple<int, bool, bool, bool, bool>;
  std::string path_;
  std::string absolute_path_;
  FileIdentity identity_;
  int threads_ = 0;
  std::mutex mutex_;
  std::map<Key, std::unique_ptr<Trace>> reads_;
  const Trace* first_ = nullptr;
  std::set<std::string> said_;  // the ReaderMessages given to `warnings` so far
};

}  // namespace gpuroof::python
