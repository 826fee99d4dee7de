#pragma once

#include <filesystem>
#include <string_view>

namespace gpuroof {

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// failed run never leaves a truncated file over a good one. An existing file keeps its
// permissions, and through a symbolic link the file it names is replaced, not the link. A
// character device or a pipe (/dev/null, a FIFO) is written directly: a rename would replace it.
// Throws InputError naming `path`.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace gpuroof
