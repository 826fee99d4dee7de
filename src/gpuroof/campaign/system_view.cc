#include "gpuroof/campaign/system_view.h"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>
#include <fnmatch.h>

namespace gpuroof {

namespace {

std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) out.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool MatchSegments(const std::vector<std::string>& pattern, size_t p,
                   const std::vector<std::string>& path, size_t s) {
  if (p == pattern.size()) return s == path.size();
  if (pattern[p] == "**") {
    for (size_t skip = s; skip <= path.size(); ++skip) {
      if (MatchSegments(pattern, p + 1, path, skip)) return true;
    }
    return false;
  }
  if (s == path.size()) return false;
  if (fnmatch(pattern[p].c_str(), path[s].c_str(), FNM_PERIOD) != 0) return false;
  return MatchSegments(pattern, p + 1, path, s + 1);
}

std::tm UtcParts(WallTime time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  return parts;
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view relative_path) {
  return MatchSegments(Segments(pattern), 0, Segments(relative_path), 0);
}

std::vector<FileTime> DiskFileTimes::Match(const std::filesystem::path& base,
                                           const std::string& pattern) {
  namespace fs = std::filesystem;
  // Walk only below the pattern's literal leading folders ("build/" of "build/**/*.so").
  fs::path root = base;
  std::string rest = pattern;
  for (const std::string& segment : Segments(pattern)) {
    if (segment.find_first_of("*?[") != std::string::npos) break;
    size_t slash = rest.find('/');
    if (slash == std::string::npos) break;
    root /= segment;
    rest = rest.substr(slash + 1);
  }
  std::vector<FileTime> out;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return out;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    std::string relative = fs::relative(it->path(), root, ec).generic_string();
    if (ec || !GlobMatch(rest, relative)) continue;
    auto modified = fs::last_write_time(it->path(), ec);
    if (ec) continue;
    out.push_back({it->path(), std::chrono::time_point_cast<WallTime::duration>(
                                   std::chrono::file_clock::to_sys(modified))});
  }
  std::sort(out.begin(), out.end(),
            [](const FileTime& a, const FileTime& b) { return a.path < b.path; });
  return out;
}

std::string FormatUtc(WallTime time) {
  std::tm parts = UtcParts(time);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", parts.tm_year + 1900, parts.tm_mon + 1,
                     parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec);
}

std::string FormatUtcDate(WallTime time) {
  std::tm parts = UtcParts(time);
  return fmt::format("{:04}-{:02}-{:02}", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday);
}

}  // namespace gpuroof
