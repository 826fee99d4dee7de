#include "gpuroof/model/string_table.h"

namespace gpuroof {

StringTable::StringTable() {
  Intern("");
}

uint32_t StringTable::Intern(std::string_view text) {
  auto it = ids_.find(std::string(text));
  if (it != ids_.end()) return it->second;
  auto id = static_cast<uint32_t>(strings_.size());
  strings_.emplace_back(text);
  ids_.emplace(strings_.back(), id);
  return id;
}

bool StringTable::Find(std::string_view text, uint32_t* id) const {
  auto it = ids_.find(std::string(text));
  if (it == ids_.end()) return false;
  *id = it->second;
  return true;
}

}  // namespace gpuroof
