#pragma once

#include <string>
#include <vector>

namespace gpuroof {

// The candidate closest to `typed` by edit distance, when it is close enough to be the one
// meant (at most a third of its length away, and at most 3); "" otherwise.
std::string ClosestSpelling(const std::string& typed, const std::vector<std::string>& candidates);

}  // namespace gpuroof
