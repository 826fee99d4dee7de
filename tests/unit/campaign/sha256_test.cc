// SHA-256 against the FIPS 180-4 / NIST CAVS example vectors.
#include "gpuroof/campaign/sha256.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "campaign/fake_system.h"

namespace gpuroof {
namespace {

TEST(Sha256, FipsVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      Sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                "klmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(Sha256Hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

// 55, 56 and 64 bytes are where the padding needs one block or two.
TEST(Sha256, PaddingBoundariesAndChunkingAgree) {
  for (size_t length : {55u, 56u, 63u, 64u, 65u, 119u, 120u}) {
    std::string text(length, 'x');
    Sha256 pieces;
    for (char c : text)
      pieces.Update(std::string_view(&c, 1));
    EXPECT_EQ(pieces.HexDigest(), Sha256Hex(text)) << length;
  }
  EXPECT_EQ(Sha256Hex(std::string(56, 'a')),
            "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
}

TEST(Sha256, OfFileAndMissingFile) {
  testing::ScratchDir dir;
  testing::WriteText(dir.path() / "f", "abc");
  EXPECT_EQ(Sha256OfFile(dir.path() / "f"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_THROW(Sha256OfFile(dir.path() / "missing"), InputError);
}

}  // namespace
}  // namespace gpuroof
