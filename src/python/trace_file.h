#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "gpuroof/model/trace.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof::python {

// A trace file as the Python module holds it (gpuroof.Trace): read once per set of read options,
// on first use, and kept. Each analysis asks for exactly what its CLI command reads (less detail
// is faster, and the "inputs" part of the JSON, the diagnostics, depends on it), so results equal
// the CLI's, and `load(); analyze()` costs what `gpuroof analyze` does.
class TraceFile {
 public:
  TraceFile(std::string path, int threads);

  // The trace read with `options` (its thread count replaced by this file's), read now when it
  // is the first use of those options; then the diagnostics summary, when records were skipped,
  // is added to `warnings` as "PATH: SUMMARY" (the CLI's warning line). Thread-safe; reads
  // without the GIL when the caller released it. Throws InputError.
  const Trace& Read(ReadOptions options, std::vector<std::string>* warnings);

  // The first trace read (what Trace.devices, .metadata, ... show).
  const Trace& first() const { return *first_; }
  const std::string& path() const { return path_; }

 private:
  using Key = std::tuple<int, bool, bool, bool, bool>;
  std::string path_;
  int threads_ = 0;
  std::mutex mutex_;
  std::map<Key, std::unique_ptr<Trace>> reads_;
  const Trace* first_ = nullptr;
};

}  // namespace gpuroof::python
