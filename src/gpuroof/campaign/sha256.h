#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nettle/sha2.h>

namespace gpuroof {

// SHA-256 (FIPS 180-4) from nettle: a maintained, tested implementation rather than our own.
class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The digest as 64 lower-case hex digits. Call once; the object is spent afterwards.
  std::string HexDigest();

 private:
  sha256_ctx context_;
};

std::string Sha256Hex(std::string_view bytes);

// Digest of a file's content, read in chunks. Throws InputError naming the file when it cannot be
// read.
std::string Sha256OfFile(const std::filesystem::path& path);

}  // namespace gpuroof
