#pragma once

#include <stdexcept>
#include <string>

namespace gpuroof {

// Input the user can fix: a missing or malformed file, a bad flag value, a window that does not
// fit the trace. `source` names the file (or the option) and `what()` is the full one-line
// message "<source>: <problem>". Readers convert every third-party error into this type.
class InputError : public std::runtime_error {
 public:
  InputError(std::string source, const std::string& problem)
      : std::runtime_error(source.empty() ? problem : source + ": " + problem),
        source_(std::move(source)),
        problem_(problem) {}
  const std::string& source() const { return source_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string source_;
  std::string problem_;
};

// A check the user asked for did not pass (--strict found data loss, a regression gate failed).
// Maps to exit code 1.
class CheckFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpuroof
