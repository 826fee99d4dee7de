#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gpuroof {

using WallTime = std::chrono::system_clock::time_point;

// The wall clock, behind an interface so guards and stamps are tested at fixed times.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual WallTime Now() = 0;
};

class SystemClock : public Clock {
 public:
  WallTime Now() override { return std::chrono::system_clock::now(); }
};

struct FileTime {
  std::filesystem::path path;
  WallTime modified;
};

// Files matching a glob and their modification times (the freshness guard's view of a build).
class FileTimes {
 public:
  virtual ~FileTimes() = default;
  // Regular files under `base` whose path relative to `base` matches `pattern`, sorted by path.
  virtual std::vector<FileTime> Match(const std::filesystem::path& base,
                                      const std::string& pattern) = 0;
};

class DiskFileTimes : public FileTimes {
 public:
  std::vector<FileTime> Match(const std::filesystem::path& base,
                              const std::string& pattern) override;
};

// Whether `relative_path` ("a/b/c.so") matches `pattern`: `*`, `?` and `[...]` within one path
// segment, `**` for any number of whole segments (none included).
bool GlobMatch(std::string_view pattern, std::string_view relative_path);

// "2026-11-30T08:00:01Z" (UTC, whole seconds).
std::string FormatUtc(WallTime time);
// "2026-11-30" (UTC), for results folder names.
std::string FormatUtcDate(WallTime time);

}  // namespace gpuroof
