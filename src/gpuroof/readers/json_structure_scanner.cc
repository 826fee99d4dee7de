#include "gpuroof/readers/json_structure_scanner.h"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace gpuroof {

namespace {

struct BlockMasks {
  uint64_t quote = 0;
  uint64_t backslash = 0;
  uint64_t open = 0;   // { or [
  uint64_t close = 0;  // } or ]
  // What may follow a string's closing quote: whitespace (here: any byte up to 0x20), ',', ':',
  // and (from `close`) '}' or ']'.
  uint64_t after_string = 0;
};

// '{' (0x7b) and '[' (0x5b) differ only in bit 0x20, as do '}' and ']': OR-ing 0x20 folds each
// pair into one comparison.
BlockMasks Classify(const char* block) {
  BlockMasks m;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('{');
  const __m128i close = _mm_set1_epi8('}');
  const __m128i fold = _mm_set1_epi8(0x20);
  const __m128i space = _mm_set1_epi8(' ');
  const __m128i comma = _mm_set1_epi8(',');
  const __m128i colon = _mm_set1_epi8(':');
  for (int i = 0; i < 4; ++i) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i));
    __m128i folded = _mm_or_si128(v, fold);
    auto bits = [](__m128i eq) {
      return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(eq)));
    };
    int shift = 16 * i;
    m.quote |= bits(_mm_cmpeq_epi8(v, quote)) << shift;
    m.backslash |= bits(_mm_cmpeq_epi8(v, backslash)) << shift;
    m.open |= bits(_mm_cmpeq_epi8(folded, open)) << shift;
    m.close |= bits(_mm_cmpeq_epi8(folded, close)) << shift;
    __m128i blank = _mm_cmpeq_epi8(_mm_min_epu8(v, space), v);
    __m128i separator = _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, colon));
    m.after_string |= bits(_mm_or_si128(blank, separator)) << shift;
  }
#else
  for (int i = 0; i < 64; ++i) {
    char c = block[i];
    uint64_t bit = uint64_t{1} << i;
    if (c == '"') m.quote |= bit;
    if (c == '\\') m.backslash |= bit;
    if ((c | 0x20) == '{') m.open |= bit;
    if ((c | 0x20) == '}') m.close |= bit;
    if (static_cast<unsigned char>(c) <= ' ' || c == ',' || c == ':') m.after_string |= bit;
  }
#endif
  return m;
}

#if defined(__x86_64__)
// The same with 32-byte vectors, for CPUs with AVX2 (chosen at run time: the build targets
// plain x86-64).
__attribute__((target("avx2"))) BlockMasks ClassifyAvx2(const char* block) {
  const __m256i quote = _mm256_set1_epi8('"');
  const __m256i backslash = _mm256_set1_epi8('\\');
  const __m256i open = _mm256_set1_epi8('{');
  const __m256i close = _mm256_set1_epi8('}');
  const __m256i fold = _mm256_set1_epi8(0x20);
  const __m256i space = _mm256_set1_epi8(' ');
  const __m256i comma = _mm256_set1_epi8(',');
  const __m256i colon = _mm256_set1_epi8(':');
  BlockMasks m;
  for (int i = 0; i < 2; ++i) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + 32 * i));
    __m256i folded = _mm256_or_si256(v, fold);
    int shift = 32 * i;
    // (No lambda here: it would not inherit the avx2 target.)
    m.quote |= uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)))}
               << shift;
    m.backslash |=
        uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash)))}
        << shift;
    m.open |= uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, open)))}
              << shift;
    m.close |=
        uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(folded, close)))}
        << shift;
    __m256i blank = _mm256_cmpeq_epi8(_mm256_min_epu8(v, space), v);
    __m256i separator = _mm256_or_si256(_mm256_cmpeq_epi8(v, comma), _mm256_cmpeq_epi8(v, colon));
    m.after_string |=
        uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_or_si256(blank, separator)))}
        << shift;
  }
  return m;
}

const bool kHasAvx2 = __builtin_cpu_supports("avx2");
#endif

// Bit i of the result is the XOR of bits 0..i of x: 1 between an opening quote (included) and
// its closing quote (excluded).
uint64_t PrefixXor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

int LowestBit(uint64_t x) {
  return __builtin_ctzll(x);
}

}  // namespace

size_t JsonStructureScanner::ScanBlock(const char* block, size_t base, int record_depth,
                                       std::vector<size_t>& ends) {
#if defined(__x86_64__)
  BlockMasks m = kHasAvx2 ? ClassifyAvx2(block) : Classify(block);
#else
  BlockMasks m = Classify(block);
#endif
  // Characters escaped by a backslash; backslashes are rare, so a loop over them is cheap.
  uint64_t escaped = 0;
  uint64_t backslash = m.backslash;
  if (escaped_ != 0) {
    escaped |= 1;
    backslash &= ~uint64_t{1};
  }
  escaped_ = 0;
  while (backslash != 0) {
    int i = LowestBit(backslash);
    if (i == 63) {
      escaped_ = 1;
      break;
    }
    escaped |= uint64_t{1} << (i + 1);
    backslash &= ~(uint64_t{3} << i);  // the escaped character cannot escape another
  }
  uint64_t quotes = m.quote & ~escaped;
  uint64_t in_string = PrefixXor(quotes) ^ in_string_;
  in_string_ = static_cast<uint64_t>(static_cast<int64_t>(in_string) >> 63);
  // Text that cannot be JSON, the mark of a stray quote before it: a string's closing quote
  // followed by anything but whitespace, ',', ':', '}' or ']'. Only the byte right after it is
  // looked at (cheap): what a stray quote in a name leaves ("@"sP(0)") and, once the string
  // state is inverted, the first letter of the next string.
  uint64_t closing = quotes & ~in_string;
  uint64_t after_closing = (closing << 1) | after_closing_;
  after_closing_ = closing >> 63;
  uint64_t broken = after_closing & ~(m.after_string | m.close);
  if (broken != 0 && not_json_at_ == kNone) {
    not_json_at_ = base + static_cast<size_t>(LowestBit(broken));
  }
  uint64_t structural = (m.open | m.close) & ~in_string;
  while (structural != 0) {
    int i = LowestBit(structural);
    structural &= structural - 1;
    if ((m.open >> i) & 1) {
      ++depth_;
      continue;
    }
    --depth_;
    if (depth_ == record_depth) {
      ends.push_back(base + static_cast<size_t>(i) + 1);
    } else if (depth_ < record_depth) {
      // Whatever follows belongs to the caller; string state past this point is not tracked.
      in_string_ = 0;
      escaped_ = 0;
      after_closing_ = 0;
      return static_cast<size_t>(i) + 1;
    }
  }
  return kStayed;
}

JsonStructureScanner::Result JsonStructureScanner::Scan(const char* data, size_t size,
                                                        int record_depth,
                                                        std::vector<size_t>& ends) {
  not_json_at_ = kNone;
  size_t offset = 0;
  while (offset + kBlockBytes <= size) {
    size_t left_at = ScanBlock(data + offset, offset, record_depth, ends);
    if (left_at != kStayed) return {offset + left_at, true, not_json_at_};
    offset += kBlockBytes;
  }
  return {offset, false, not_json_at_};
}

JsonStructureScanner::Result JsonStructureScanner::ScanTail(const char* data, size_t size,
                                                            int record_depth,
                                                            std::vector<size_t>& ends) {
  Result result = Scan(data, size, record_depth, ends);
  if (result.left || result.scanned == size) return result;
  // The last partial block, padded with spaces (which change no state).
  char block[kBlockBytes];
  std::memset(block, ' ', sizeof block);
  size_t offset = result.scanned;
  std::memcpy(block, data + offset, size - offset);
  size_t left_at = ScanBlock(block, offset, record_depth, ends);
  if (left_at != kStayed) return {offset + left_at, true, not_json_at_};
  return {size, false, not_json_at_};
}

}  // namespace gpuroof
