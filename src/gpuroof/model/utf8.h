// UTF-8 validation, shared by the readers (which repair text) and the sweep-file parser (which
// refuses a file before a third-party parser sees it).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace gpuroof {

// The length (1-4) of the valid UTF-8 sequence starting at text[i], or 0 when the bytes there
// are not one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, or cut
// short by the end of `text`).
size_t ValidUtf8SequenceLength(std::string_view text, size_t i);

// The offset of the first byte that is not part of valid UTF-8, or nullopt when all of it is.
std::optional<size_t> FirstInvalidUtf8(std::string_view text);

}  // namespace gpuroof
