#pragma once

#include <filesystem>
#include <string_view>

#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// failed run never leaves a truncated file over a good one. An existing file keeps its
// permissions, and through a symbolic link the file it names is replaced, not the link. A
// character device or a pipe (/dev/null, a FIFO) is written directly: a rename would replace it.
// Throws InputError naming `path`.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

// Holds an exclusive flock on a folder for its lifetime (Linux locks folders as it locks files),
// for a read-modify-write of a file in it that WriteFileAtomically replaces: a lock on the file's
// inode would guard nothing once the file is renamed over, and a lock file would be left behind.
// Throws InputError naming the folder when it cannot be opened or locked.
class FolderLock : NonCopyable {
 public:
  explicit FolderLock(const std::filesystem::path& folder);
  ~FolderLock();

 private:
  int fd_ = -1;
};

}  // namespace gpuroof
