#include "gpuroof/readers/gzip_input.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <sys/stat.h>
#include <zlib.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

namespace {

// A FILE* that closes itself.
struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

size_t ReadFile(std::FILE* file, const std::string& source, char* out, size_t size) {
  size_t n = std::fread(out, 1, size, file);
  if (n < size && std::ferror(file)) {
    throw InputError(source, fmt::format("read error: {}", std::strerror(errno)));
  }
  return n;
}

class PlainSource : public ByteSource {
 public:
  PlainSource(FilePtr file, std::string source) : file_(std::move(file)), source_(source) {}
  size_t Read(char* out, size_t size) override { return ReadFile(file_.get(), source_, out, size); }
  bool compressed() const override { return false; }

 private:
  FilePtr file_;
  std::string source_;
};

class GzipSource : public ByteSource, NonCopyable {
 public:
  GzipSource(FilePtr file, std::string source, const InflateLimits& limits)
      : file_(std::move(file)), source_(std::move(source)), limits_(limits), input_(kInputBytes) {
    struct stat st {};
    if (::fstat(::fileno(file_.get()), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      file_bytes_ = static_cast<uint64_t>(st.st_size);
    }
    // 15 + 32: any window size, gzip or zlib header detected automatically.
    if (inflateInit2(&stream_, 15 + 32) != Z_OK) {
      throw InputError(source_, "cannot initialise zlib");
    }
  }
  ~GzipSource() override { inflateEnd(&stream_); }

  bool compressed() const override { return true; }

  size_t Read(char* out, size_t size) override {
    size_t produced = 0;
    while (produced < size && !finished_) {
      if (stream_.avail_in == 0 && !RefillInput()) {
        if (member_open_) {
          throw InputError(source_, fmt::format("truncated gzip data: the compressed file ends "
                                                "at byte {} inside a gzip member",
                                                consumed_));
        }
        finished_ = true;
        break;
      }
      if (!member_open_) {
        // Bytes after a complete member: another member (concatenated .gz files), or the end.
        member_open_ = true;
        if (inflateReset(&stream_) != Z_OK) throw InputError(source_, "cannot reset zlib");
      }
      size_t chunk = std::min<size_t>(size - produced, 1u << 30);
      stream_.next_out = reinterpret_cast<Bytef*>(out + produced);
      stream_.avail_out = static_cast<uInt>(chunk);
      uInt before_in = stream_.avail_in;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      consumed_ += before_in - stream_.avail_in;
      produced += chunk - stream_.avail_out;
      inflated_ += chunk - stream_.avail_out;
      CheckLimits();
      if (rc == Z_STREAM_END) {
        member_open_ = false;
      } else if (rc == Z_BUF_ERROR) {
        continue;  // needs more input: refilled at the top of the loop
      } else if (rc != Z_OK) {
        throw InputError(source_, fmt::format("corrupt gzip data near compressed byte {}: {}",
                                              consumed_, stream_.msg ? stream_.msg : "zlib error"));
      }
    }
    return produced;
  }

 private:
  static constexpr size_t kInputBytes = 256 * 1024;

  void CheckLimits() const {
    if (inflated_ > limits_.max_bytes) {
      throw InputError(source_, fmt::format("gzip data inflates past {} MiB, the limit on "
                                            "decompressed size (a gzip bomb?)",
                                            limits_.max_bytes >> 20));
    }
    // Past max_ratio times the file's size (when known), the whole file inflates more than that.
    if (file_bytes_ > 0 && limits_.max_ratio > 0 && inflated_ > limits_.file_ratio_after_bytes &&
        inflated_ / limits_.max_ratio >= file_bytes_ &&
        inflated_ > limits_.max_ratio * file_bytes_) {
      ThrowRatio(file_bytes_);
    }
    if (inflated_ > limits_.ratio_after_bytes && consumed_ > 0 &&
        inflated_ / consumed_ > limits_.max_ratio) {
      ThrowRatio(consumed_);
    }
  }

  [[noreturn]] void ThrowRatio(uint64_t compressed) const {
    throw InputError(source_, fmt::format("gzip data inflates more than {}x ({} MiB from {} "
                                          "compressed bytes): refused as a gzip bomb",
                                          limits_.max_ratio, inflated_ >> 20, compressed));
  }

  bool RefillInput() {
    size_t n = ReadFile(file_.get(), source_, input_.data(), input_.size());
    stream_.next_in = reinterpret_cast<Bytef*>(input_.data());
    stream_.avail_in = static_cast<uInt>(n);
    return n > 0;
  }

  FilePtr file_;
  std::string source_;
  InflateLimits limits_;
  std::vector<char> input_;
  z_stream stream_{};
  uint64_t file_bytes_ = 0;  // the compressed file's size; 0 when unknown (not a regular file)
  uint64_t consumed_ = 0;    // compressed bytes handed to zlib so far
  uint64_t inflated_ = 0;    // bytes inflated so far
  bool member_open_ = true;  // inside a gzip member (the file starts with one)
  bool finished_ = false;
};

}  // namespace

bool HasGzipMagic(std::string_view head) {
  return head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
         static_cast<unsigned char>(head[1]) == 0x8b;
}

std::unique_ptr<ByteSource> OpenByteSource(const std::filesystem::path& path,
                                           const InflateLimits& limits) {
  std::string source = path.string();
  FilePtr file(std::fopen(source.c_str(), "rb"));
  if (!file) throw InputError(source, fmt::format("cannot open: {}", std::strerror(errno)));
  char head[2] = {};
  size_t n = std::fread(head, 1, sizeof head, file.get());
  std::rewind(file.get());
  if (HasGzipMagic(std::string_view(head, n))) {
    return std::make_unique<GzipSource>(std::move(file), std::move(source), limits);
  }
  return std::make_unique<PlainSource>(std::move(file), std::move(source));
}

}  // namespace gpuroof
