// Fuzz target: the compare history reader (JSONL, one run per line).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuroof/analyses/regression/history.h"
#include "gpuroof/model/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    gpuroof::ParseHistory(text, "fuzz.jsonl");
  } catch (const gpuroof::InputError&) {
    // A clean refusal.
  }
  return 0;
}
