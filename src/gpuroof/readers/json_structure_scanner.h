// Finds where JSON values end without parsing them: the one pass that lets the Kineto reader
// cut a multi-GB event array into chunks of whole events for simdjson.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpuroof {

// Tracks string and nesting state over a JSON text fed in pieces. It looks only at quotes,
// backslashes and brackets ({ [ and } ] are not told apart: the parser that reads the values
// checks that they match). 64 bytes per step with bit masks, so it runs at several GB/s.
class JsonStructureScanner {
 public:
  static constexpr size_t kBlockBytes = 64;

  // Starts at `depth` (the nesting level of the text about to be scanned), outside any string.
  explicit JsonStructureScanner(int depth = 0) : depth_(depth) {}

  static constexpr size_t kNone = ~size_t{0};

  struct Result {
    size_t scanned = 0;  // bytes consumed from `data`
    bool left = false;   // a bracket took the depth below `record_depth`; `scanned` ends there
    // The offset of the first byte that the string state says cannot be JSON, or kNone: a byte
    // other than whitespace, ',', ':', '}' or ']' right after a string's closing quote. Valid
    // JSON has none, so from a quote before it on (a stray unescaped quote) the string state may
    // be inverted and the ends found after it wrong. Scanning goes on as if the text were valid.
    size_t not_json_at = kNone;
  };

  // Scans whole 64-byte blocks of `data[0, size)`; the rest waits for more data (or for
  // ScanTail() at the end of the input). Appends to `ends` the offset just past every closing
  // bracket after which the depth equals `record_depth` (one element of a container at that
  // level ended). Stops just past the first closing bracket that takes the depth below
  // `record_depth` (the enclosing container ended). Offsets are relative to `data`.
  Result Scan(const char* data, size_t size, int record_depth, std::vector<size_t>& ends);

  // Like Scan(), then also the final piece shorter than 64 bytes (the input ended there).
  Result ScanTail(const char* data, size_t size, int record_depth, std::vector<size_t>& ends);

  int depth() const { return depth_; }
  bool in_string() const { return in_string_ != 0; }

 private:
  // Returns the offset in the block just past the bracket that left `record_depth`, or kStayed.
  static constexpr size_t kStayed = ~size_t{0};
  size_t ScanBlock(const char* block, size_t base, int record_depth, std::vector<size_t>& ends);

  int depth_ = 0;
  uint64_t in_string_ = 0;      // all ones while inside a string at a block boundary
  uint64_t escaped_ = 0;        // 1 when the previous block ended in an unescaped backslash
  uint64_t after_closing_ = 0;  // 1 when the previous block ended in a string's closing quote
  size_t not_json_at_ = kNone;  // of the current Scan() call
};

}  // namespace gpuroof
