// Reading a trace file's bytes, inflating it on the fly when it is gzip-compressed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace gpuroof {

// A forward-only stream of bytes. Errors are thrown as InputError naming the file.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes into `out`; returns 0 only at the end of the data.
  virtual size_t Read(char* out, size_t size) = 0;
  // True when the bytes are inflated from gzip (error offsets then refer to the inflated data).
  virtual bool compressed() const = 0;
};

// True when `head` starts with the gzip magic bytes 1f 8b.
bool HasGzipMagic(std::string_view head);

// How far a gzip file may inflate (docs/reliability.md, "Resource limits"). A gzip bomb (a small
// file that inflates to many GiB, typically of whitespace) stops with a clear message at the
// first limit it passes, instead of being inflated to its end.
struct InflateLimits {
  // Inflated bytes, whatever the ratio: 64 GiB, ten times the largest traces seen.
  uint64_t max_bytes = uint64_t{64} << 30;
  // Inflated over compressed bytes. JSON traces compress 10-30x; deflate cannot exceed ~1032x,
  // which only bombs approach. Two checks, the first to pass refuses:
  // - against the compressed file's size (known when it is opened), once
  //   `file_ratio_after_bytes` have been inflated: past `max_ratio` times the file, the whole file
  //   inflates more than that, so a small bomb stops there (a 2 MB one after 400 MB);
  // - against the compressed bytes read so far, once `ratio_after_bytes` have been inflated: a
  //   large bomb stops there (a 10 MB one after 1 GiB, not 2 GB).
  uint64_t max_ratio = 200;
  uint64_t ratio_after_bytes = uint64_t{1} << 30;
  uint64_t file_ratio_after_bytes = uint64_t{64} << 20;
};

// Opens `path` for reading: a plain file, or a gzip file (any number of concatenated members,
// as `cat a.gz b.gz` makes) inflated in a streaming way with a fixed 256 KiB input buffer, so
// memory does not grow with the file. Throws InputError when the file cannot be opened; reads
// throw InputError for corrupt or truncated gzip data, with the compressed byte offset, and when
// the data inflates past `limits`.
std::unique_ptr<ByteSource> OpenByteSource(const std::filesystem::path& path,
                                           const InflateLimits& limits = {});

}  // namespace gpuroof
