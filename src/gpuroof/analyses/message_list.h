// Lists in one-line messages: the first few items, then how many more.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpuroof {

// "a, b, c and 4 more": the first `shown` of `items`, then the count of the rest of `total`
// (at least items.size(); more where only the first items are held).
std::string ListFirst(const std::vector<std::string>& items, size_t shown, size_t total);
std::string ListFirst(const std::vector<std::string>& items, size_t shown);

}  // namespace gpuroof
