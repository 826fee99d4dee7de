#pragma once

#include <filesystem>
#include <string_view>

namespace gpuroof {

// Writes `content` to `path` through a temporary file in the same folder and a rename, so a
// failed run never leaves a truncated file over a good one. Throws InputError naming `path`.
void WriteFileAtomically(const std::filesystem::path& path, std::string_view content);

}  // namespace gpuroof
