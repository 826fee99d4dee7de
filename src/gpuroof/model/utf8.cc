#include "gpuroof/model/utf8.h"

namespace gpuroof {

size_t ValidUtf8SequenceLength(std::string_view text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  size_t length = 0;
  if (c < 0x80) {
    length = 1;
  } else if ((c & 0xE0) == 0xC0 && c >= 0xC2) {
    length = 2;
  } else if ((c & 0xF0) == 0xE0) {
    length = 3;
  } else if ((c & 0xF8) == 0xF0 && c <= 0xF4) {
    length = 4;
  }
  bool valid = length > 0 && i + length <= text.size();
  for (size_t k = 1; valid && k < length; ++k) {
    valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
  }
  if (valid && length == 3) {
    const auto c1 = static_cast<unsigned char>(text[i + 1]);
    valid = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
  } else if (valid && length == 4) {
    const auto c1 = static_cast<unsigned char>(text[i + 1]);
    valid = !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
  }
  return valid ? length : 0;
}

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = ValidUtf8SequenceLength(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::nullopt;
}

}  // namespace gpuroof
