#include "trace_file.h"

#include <utility>

namespace gpuroof::python {

TraceFile::TraceFile(std::string path, int threads) : path_(std::move(path)), threads_(threads) {}

const Trace& TraceFile::Read(ReadOptions options, std::vector<std::string>* warnings) {
  options.threads = threads_;
  const Key key{static_cast<int>(options.detail), options.api_calls, options.kernels_only,
                options.memory_kinds, options.demangled_names};
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<Trace>& trace = reads_[key];
  if (!trace) {
    try {
      trace = std::make_unique<Trace>(ReadTrace(path_, options));
    } catch (...) {
      reads_.erase(key);
      throw;
    }
    if (first_ == nullptr) first_ = trace.get();
    if (trace->diagnostics.records_skipped() > 0 && warnings != nullptr) {
      warnings->push_back(path_ + ": " + trace->diagnostics.Summary());
    }
  }
  return *trace;
}

}  // namespace gpuroof::python
