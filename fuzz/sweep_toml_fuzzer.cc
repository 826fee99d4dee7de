// Fuzz target: the sweep file parser (TOML through toml++, then gpuroof's own checks).
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuroof/campaign/sweep_spec.h"
#include "gpuroof/model/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    gpuroof::ParseSweepSpec(text, "fuzz.toml");
  } catch (const gpuroof::InputError&) {
    // A clean refusal.
  }
  return 0;
}
