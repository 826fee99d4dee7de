#pragma once

#include <cstddef>
#include <string_view>

namespace gpuroof {

// Levenshtein distance (insertions, deletions, substitutions), for "did you mean" hints.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace gpuroof
