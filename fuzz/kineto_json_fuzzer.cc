// Fuzz target: Kineto (PyTorch profiler) JSON text through the reader, then every analysis; and
// read again as `ranks` reads it.
// Small read chunks and value limit, so inputs of a few KiB reach the chunk-boundary and
// over-long-value paths that real files reach at MiBs.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuroof/readers/kineto_json_reader.h"

#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuroof::KinetoReadOptions options;
  options.chunk_bytes = 256;
  options.max_value_bytes = 4096;
  gpuroof::fuzz::ReadAndAnalyse(
      [&] { return gpuroof::ReadKinetoJsonText(text, "fuzz.json", options); });
  // As `ranks` reads it: of each launch call only its end.
  options.launch_ends_only = true;
  gpuroof::fuzz::ReadAnd([&] { return gpuroof::ReadKinetoJsonText(text, "fuzz.json", options); },
                         gpuroof::fuzz::SummariseAsRank);
  return 0;
}
