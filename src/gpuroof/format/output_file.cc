#include "gpuroof/format/output_file.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// Writes all of `content` to `fd`; false with errno set when a write fails.
bool WriteAll(int fd, std::string_view content) {
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<size_t>(n);
  }
  return true;
}

// A character device or a pipe (/dev/null, /dev/stdout, a FIFO, >(command)) is written as it is:
// renaming a file over it would replace the device or the pipe with a plain file.
void WriteInPlace(const std::string& target, std::string_view content) {
  int fd = open(target.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw InputError(target, std::string("cannot open output: ") + std::strerror(errno));
  const bool ok = WriteAll(fd, content);
  std::string reason = ok ? "" : std::strerror(errno);
  if (close(fd) != 0 && ok) reason = std::strerror(errno);
  if (!reason.empty()) throw InputError(target, "cannot write output: " + reason);
}

// The descriptor a path names when it is one of this process's own ("/dev/stdout" -> 1).
std::optional<int> OwnDescriptor(std::string_view path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    if (!path.starts_with(prefix)) continue;
    int fd = -1;
    const std::string_view digits = path.substr(prefix.size());
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
    if (error == std::errc() && end == digits.data() + digits.size() && fd >= 0 &&
        fcntl(fd, F_GETFD) != -1)
      return fd;
  }
  return std::nullopt;
}

}  // namespace

void WriteFileAtomically(const std::filesystem::path& requested, std::string_view content) {
  const std::string shown = requested.string();
  std::filesystem::path path = requested;
  mode_t mode = 0644;  // a new output is an ordinary file
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N name an open file of this process (the shell's
  // redirection): written through that descriptor, at its offset, after what stdio holds; a
  // rename would leave the shell writing to a deleted file, a new open would write over it.
  if (const std::optional<int> fd = OwnDescriptor(shown)) {
    std::fflush(nullptr);
    if (!WriteAll(*fd, content))
      throw InputError(shown, std::string("cannot write output: ") + std::strerror(errno));
    return;
  }
  if (shown.starts_with("/dev/") || shown.starts_with("/proc/"))
    return WriteInPlace(shown, content);
  struct stat existing {};
  if (stat(shown.c_str(), &existing) == 0) {
    if (S_ISDIR(existing.st_mode)) throw InputError(shown, "is a directory");
    if (S_ISCHR(existing.st_mode) || S_ISFIFO(existing.st_mode) || S_ISSOCK(existing.st_mode))
      return WriteInPlace(shown, content);
    if (!S_ISREG(existing.st_mode)) throw InputError(shown, "is not a regular file");
    // The file a symbolic link names is replaced, not the link, and keeps its permissions.
    std::error_code ec;
    std::filesystem::path resolved = std::filesystem::canonical(requested, ec);
    if (!ec) path = resolved;
    mode = existing.st_mode & 07777;
  }
  const std::string target = path.string();
  std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  std::string temp = (folder / fmt::format(".{}.XXXXXX", path.filename().string())).string();
  int fd = mkstemp(temp.data());
  if (fd < 0) throw InputError(shown, std::string("cannot create output: ") + std::strerror(errno));
  if (!WriteAll(fd, content)) {
    std::string reason = std::strerror(errno);
    close(fd);
    unlink(temp.c_str());
    throw InputError(shown, "cannot write output: " + reason);
  }
  // mkstemp creates 0600: give the file the mode it had, or an ordinary file's.
  fchmod(fd, mode);
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(temp.c_str());
    throw InputError(shown, std::string("cannot write output: ") + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    unlink(temp.c_str());
    throw InputError(shown, "cannot write output: " + reason);
  }
}

FolderLock::FolderLock(const std::filesystem::path& folder) {
  fd_ = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) {
    throw InputError(folder.string(), std::string("cannot open to lock: ") + std::strerror(errno));
  }
  while (flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    std::string reason = std::strerror(errno);
    close(fd_);
    throw InputError(folder.string(), "cannot lock: " + reason);
  }
}

FolderLock::~FolderLock() {
  flock(fd_, LOCK_UN);
  close(fd_);
}

}  // namespace gpuroof
