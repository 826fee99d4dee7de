// Fuzz target: a file's raw bytes through the reader registry, as `gpuroof analyze FILE` reads
// them: format sniffing, gzip inflation, Kineto JSON, and SQLite files (nsys exports), then every
// analysis.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuroof/readers/reader_registry.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path path = gpuroof::fuzz::WriteScratchFile(bytes, ".trace");
  gpuroof::ReadOptions options;
  options.threads = 1;
  gpuroof::fuzz::ReadAndAnalyse([&] { return gpuroof::ReadTrace(path, options); });
  return 0;
}
