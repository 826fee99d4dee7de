#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace gpuroof {

// SHA-256 (FIPS 180-4), written out here so the manifest needs no crypto library.
class Sha256 {
 public:
  Sha256();
  void Update(std::string_view bytes);
  // The digest as 64 lower-case hex digits. Call once; the object is spent afterwards.
  std::string HexDigest();

 private:
  void Compress(const uint8_t* block);

  std::array<uint32_t, 8> state_;
  std::array<uint8_t, 64> buffer_{};
  size_t buffered_ = 0;
  uint64_t total_bytes_ = 0;
};

std::string Sha256Hex(std::string_view bytes);

// Digest of a file's content, read in chunks. Throws InputError naming the file when it cannot be
// read.
std::string Sha256OfFile(const std::filesystem::path& path);

}  // namespace gpuroof
