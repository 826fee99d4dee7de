#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpuroof {

// Interned strings (kernel names, NVTX range names). Id 0 is always the empty string, so a
// column can hold 0 for "no name".
class StringTable {
 public:
  StringTable();
  // Returns the id of `text`, adding it when new.
  uint32_t Intern(std::string_view text);
  // Returns the id of `text` if it is present.
  bool Find(std::string_view text, uint32_t* id) const;
  std::string_view Get(uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::vector<std::string> strings_;
  std::unordered_map<std::string, uint32_t> ids_;
};

}  // namespace gpuroof
