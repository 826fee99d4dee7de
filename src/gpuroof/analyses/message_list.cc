#include "gpuroof/analyses/message_list.h"

#include <algorithm>

#include <fmt/format.h>

namespace gpuroof {

std::string ListFirst(const std::vector<std::string>& items, size_t shown, size_t total) {
  std::string text;
  for (size_t i = 0; i < items.size() && i < shown; ++i)
    text += (i == 0 ? "" : ", ") + items[i];
  const size_t listed = std::min(items.size(), shown);
  if (total > listed) text += fmt::format(" and {} more", total - listed);
  return text;
}

std::string ListFirst(const std::vector<std::string>& items, size_t shown) {
  return ListFirst(items, shown, items.size());
}

}  // namespace gpuroof
