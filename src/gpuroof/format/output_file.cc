#include "gpuroof/format/output_file.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

void WriteFileAtomically(const std::filesystem::path& path, std::string_view content) {
  const std::string target = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(target, "is a directory");
  std::filesystem::path folder = path.parent_path().empty() ? "." : path.parent_path();
  std::string temp = (folder / fmt::format(".{}.XXXXXX", path.filename().string())).string();
  int fd = mkstemp(temp.data());
  if (fd < 0)
    throw InputError(target, std::string("cannot create output: ") + std::strerror(errno));
  size_t written = 0;
  while (written < content.size()) {
    ssize_t n = write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      std::string reason = std::strerror(errno);
      close(fd);
      unlink(temp.c_str());
      throw InputError(target, "cannot write output: " + reason);
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; outputs are ordinary files.
  fchmod(fd, 0644);
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(temp.c_str());
    throw InputError(target, std::string("cannot write output: ") + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    std::string reason = std::strerror(errno);
    unlink(temp.c_str());
    throw InputError(target, "cannot write output: " + reason);
  }
}

}  // namespace gpuroof
