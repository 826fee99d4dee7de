// Environment variables set for one test and restored after it, for code that reads them
// (driver and library overrides) and for the programs a test starts, which inherit them.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace gpuroof::testsupport {

class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  void Set(const char* name, const std::string& value) {
    Remember(name);
    setenv(name, value.c_str(), 1);
  }
  void Unset(const char* name) {
    Remember(name);
    unsetenv(name);
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value.has_value()) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

 private:
  void Remember(const char* name) {
    if (saved_.count(name) != 0) return;
    const char* old = std::getenv(name);
    saved_[name] = old != nullptr ? std::optional<std::string>(old) : std::nullopt;
  }
  std::map<std::string, std::optional<std::string>> saved_;
};

}  // namespace gpuroof::testsupport
