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

// Opens `path` for reading: a plain file, or a gzip file (any number of concatenated members,
// as `cat a.gz b.gz` makes) inflated in a streaming way with a fixed 256 KiB input buffer, so
// memory does not grow with the file. Throws InputError when the file cannot be opened; reads
// throw InputError for corrupt or truncated gzip data, with the compressed byte offset.
std::unique_ptr<ByteSource> OpenByteSource(const std::filesystem::path& path);

}  // namespace gpuroof
