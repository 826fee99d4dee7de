#include "trace_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>

#include <fmt/format.h>
#include <sys/stat.h>

#include "gpuroof/model/errors.h"

namespace gpuroof::python {

namespace {

// The file's identity, or none when it cannot be examined (`error` then says why).
std::optional<FileIdentity> IdentityOf(const std::string& path, std::string& error) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    error = std::strerror(errno);
    return std::nullopt;
  }
  FileIdentity identity;
  identity.device = static_cast<uint64_t>(st.st_dev);
  identity.inode = static_cast<uint64_t>(st.st_ino);
  identity.size = static_cast<int64_t>(st.st_size);
  identity.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  return identity;
}

}  // namespace

TraceFile::TraceFile(std::string path, int threads) : path_(std::move(path)), threads_(threads) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path_, ec);
  if (ec) throw InputError(path_, fmt::format("cannot resolve the path: {}", ec.message()));
  // Not normalised: an absolute path stays as given, so results name the file as the CLI does.
  absolute_path_ = absolute.string();
  std::string error;
  // A path that cannot be examined is left to the reader, whose message the CLI gives too.
  if (std::optional<FileIdentity> identity = IdentityOf(absolute_path_, error)) {
    identity_ = *identity;
  }
}

void TraceFile::CheckUnchanged() const {
  std::string error;
  std::optional<FileIdentity> now = IdentityOf(absolute_path_, error);
  if (!now) {
    throw InputError(path_, fmt::format("cannot read the file again ({}): it was loaded from "
                                        "{}; load it again",
                                        error, absolute_path_));
  }
  if (!(*now == identity_)) {
    throw InputError(path_, fmt::format("the file changed since it was loaded (it was loaded "
                                        "from {}; size, modification time or inode differ): "
                                        "load it again",
                                        absolute_path_));
  }
}

std::vector<std::string> ReaderMessages(const Trace& trace) {
  std::vector<std::string> messages;
  if (trace.diagnostics.records_skipped() > 0) {
    messages.push_back(trace.source + ": " + trace.diagnostics.Summary());
  }
  for (const std::string& note : trace.diagnostics.notes())
    messages.push_back(trace.source + ": " + note);
  return messages;
}

const Trace& TraceFile::Read(ReadOptions options, std::vector<std::string>* warnings) {
  options.threads = threads_;
  const Key key{static_cast<int>(options.detail), options.api_calls, options.kernels_only,
                options.memory_kinds, options.demangled_names};
  std::lock_guard<std::mutex> lock(mutex_);
  std::unique_ptr<Trace>& trace = reads_[key];
  if (!trace) {
    try {
      if (first_ != nullptr) CheckUnchanged();
      trace = std::make_unique<Trace>(ReadTrace(absolute_path_, options));
    } catch (const InputError& error) {
      reads_.erase(key);
      // The reader names the absolute path; the user (and the CLI) name the path as given.
      if (error.source() == absolute_path_ && absolute_path_ != path_) {
        throw InputError(path_, error.problem());
      }
      throw;
    } catch (...) {
      reads_.erase(key);
      throw;
    }
    trace->source = path_;
    if (first_ == nullptr) first_ = trace.get();
    // Each message once per file: another read (more detail) says the same ones again.
    for (std::string& message : ReaderMessages(*trace)) {
      if (said_.insert(message).second && warnings != nullptr)
        warnings->push_back(std::move(message));
    }
  }
  return *trace;
}

}  // namespace gpuroof::python
