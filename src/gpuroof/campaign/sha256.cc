#include "gpuroof/campaign/sha256.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

Sha256::Sha256() : context_{} {
  sha256_init(&context_);
}

void Sha256::Update(std::string_view bytes) {
  sha256_update(&context_, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
}

std::string Sha256::HexDigest() {
  uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&context_, SHA256_DIGEST_SIZE, digest);
  std::string hex;
  for (uint8_t byte : digest)
    hex += fmt::format("{:02x}", byte);
  return hex;
}

std::string Sha256Hex(std::string_view bytes) {
  Sha256 hash;
  hash.Update(bytes);
  return hash.HexDigest();
}

std::string Sha256OfFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path.string(), std::string("cannot read: ") + std::strerror(errno));
  Sha256 hash;
  std::string chunk(1 << 16, '\0');
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    hash.Update(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) throw InputError(path.string(), "cannot read");
  return hash.HexDigest();
}

}  // namespace gpuroof
