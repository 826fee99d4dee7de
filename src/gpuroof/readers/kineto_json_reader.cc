#include "gpuroof/readers/kineto_json_reader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/readers/gzip_input.h"
#include "gpuroof/readers/json_structure_scanner.h"
#include "gpuroof/readers/kineto_event_kinds.h"
#include "gpuroof/readers/kineto_trace_builder.h"

namespace gpuroof {

namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

// Top-level values larger than this (other than traceEvents) are skipped, not parsed; a note
// says so for the ones read, and distributedInfo's rank is still found (LongTopLevelValue).
constexpr size_t kMaxCapturedBytes = size_t{16} << 20;
// How far past the start of a damaged event its end is looked for (FindDamagedEventEnd).
constexpr uint64_t kMaxDamagedEventBytes = uint64_t{1} << 20;
// How far past an event's end the start of the next one is looked for before that end is
// trusted (ReadEvents): a long run of whitespace between events must not be kept in the buffer.
constexpr uint64_t kMaxEndLookaheadBytes = 4096;
// Bytes readable past any document handed to simdjson, which reads ahead in 64-byte blocks.
constexpr size_t kPadding = simdjson::SIMDJSON_PADDING + JsonStructureScanner::kBlockBytes;

bool IsSpace(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && IsSpace(text.back()))
    text.remove_suffix(1);
  return text;
}

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string_view text) : text_(text) {}
  size_t Read(char* out, size_t size) override {
    size_t n = std::min(size, text_.size());
    std::memcpy(out, text_.data(), n);
    text_.remove_prefix(n);
    return n;
  }
  bool compressed() const override { return false; }

 private:
  std::string_view text_;
};

// A JSON number or string holding an integer ("7", 7); nullopt otherwise.
std::optional<int64_t> ReadInteger(od::value value) {
  od::json_type type;
  if (value.type().get(type) != SUCCESS) return std::nullopt;
  std::string_view text;
  if (type == od::json_type::number) {
    return ParseInteger(TrimRight(value.raw_json_token()));
  }
  if (type == od::json_type::string && value.get_string().get(text) == SUCCESS) {
    return ParseInteger(text);
  }
  return std::nullopt;
}

// A string value's text between its quotes, still escaped. Stage 1 validated it (UTF-8,
// control characters), so without a backslash it is the string itself: most names are never
// copied or unescaped. INCORRECT_TYPE when the value is not a string; STRING_ERROR when it
// starts as one but something other than ',', '}' or ']' follows its closing quote: the string
// held a stray unescaped quote (pytorch #121219 writes names such as "@"\xef\xbf\xbdsP(0): x"),
// which On Demand would not notice in an event whose other fields are never read.
error_code ReadRawString(od::value value, std::string_view& out) {
  std::string_view raw = value.raw_json_token();
  std::string_view token = TrimRight(raw);
  if (token.empty() || token.front() != '"') return simdjson::INCORRECT_TYPE;
  // The token runs to the next structural character, which the buffer always holds.
  char next = raw.data()[raw.size()];
  if (token.size() < 2 || token.back() != '"' || (next != ',' && next != '}' && next != ']')) {
    return simdjson::STRING_ERROR;
  }
  out = token.substr(1, token.size() - 2);
  return SUCCESS;
}

// ts / dur: the number's text as written (exact decimal parsing happens later, only for the
// events that need it).
error_code ReadTimeText(od::value value, std::optional<std::string_view>& out) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  std::string_view text;
  if (type == od::json_type::number) {
    out = TrimRight(value.raw_json_token());
    return SUCCESS;
  }
  out = std::string_view();  // present but not a number
  if (type != od::json_type::string) return SUCCESS;
  if (error_code e = ReadRawString(value, text)) return e;
  out = text;
  return SUCCESS;
}

error_code ReadId(od::value value, KinetoId& out) {
  od::json_type type;
  if (error_code e = value.type().get(type)) return e;
  std::string_view text;
  if (type == od::json_type::number) {
    out.type = KinetoId::Type::kNumber;
    out.text = TrimRight(value.raw_json_token());
  } else if (type == od::json_type::string) {
    if (error_code e = ReadRawString(value, text)) return e;
    out.type = KinetoId::Type::kString;
    out.text = text;
  }
  return SUCCESS;  // other types: absent for our purposes
}

// A string field; values of another type are ignored (left empty). Fails on a damaged string.
error_code ReadString(od::value value, std::string_view& out) {
  error_code e = ReadRawString(value, out);
  if (e == SUCCESS) return SUCCESS;
  out = {};
  return e == simdjson::INCORRECT_TYPE ? SUCCESS : e;
}

error_code ReadDims(od::value value, std::array<uint32_t, 3>& out) {
  od::array array;
  if (value.get_array().get(array) != SUCCESS) return SUCCESS;
  size_t i = 0;
  for (auto element : array) {
    od::value item;
    if (error_code e = std::move(element).get(item)) return e;
    std::optional<int64_t> n = ReadInteger(item);
    if (i < out.size() && n && *n >= 0) out[i] = static_cast<uint32_t>(*n);
    ++i;
  }
  return SUCCESS;
}

error_code ReadArgs(od::value value, KinetoEvent::Args& args) {
  od::object object;
  if (value.get_object().get(object) != SUCCESS) return SUCCESS;
  for (auto field_result : object) {
    od::field field;
    if (error_code e = std::move(field_result).get(field)) return e;
    od::raw_json_string key = field.key();
    od::value v = field.value();
    switch (key.raw()[0]) {
      case 'd':
        if (key.unsafe_is_equal("device")) args.device = ReadInteger(v);
        break;
      case 's':
        if (key.unsafe_is_equal("stream")) {
          args.stream = ReadInteger(v);
        } else if (key.unsafe_is_equal("shared memory")) {
          args.shared_memory_bytes = ReadInteger(v);
        }
        break;
      case 'c':
        if (key.unsafe_is_equal("correlation")) {
          args.correlation = ReadInteger(v);
        } else if (key.unsafe_is_equal("context")) {
          args.context = ReadInteger(v);
        }
        break;
      case 'b':
        if (key.unsafe_is_equal("bytes")) {
          args.bytes = ReadInteger(v);
        } else if (key.unsafe_is_equal("block")) {
          if (error_code e = ReadDims(v, args.block)) return e;
        }
        break;
      case 'g':
        if (key.unsafe_is_equal("grid")) {
          if (error_code e = ReadDims(v, args.grid)) return e;
        }
        break;
      case 'f':
        if (key.unsafe_is_equal("fromDevice")) args.from_device = ReadInteger(v);
        break;
      case 'E':
      case 'e':
        if (key.unsafe_is_equal("External id") || key.unsafe_is_equal("external id")) {
          args.external_id = ReadInteger(v);
        } else if (key.unsafe_is_equal("est. achieved occupancy %")) {
          args.est_occupancy_pct = ReadInteger(v);
        }
        break;
      case 't':
        if (key.unsafe_is_equal("toDevice")) args.to_device = ReadInteger(v);
        break;
      default:
        break;
    }
  }
  return SUCCESS;
}

// One event object, in one pass over its fields in file order (On Demand is forward-only).
// `name` is left escaped (see ReadRawString). Returns early, leaving the rest of the object
// unread, once the category and name show an event gpuroof does not use (most of a trace:
// cpu_op, python_function, flows); `*used` tells which.
error_code ReadEvent(od::object object, const KinetoTraceBuilder& builder, KinetoEvent& event,
                     bool* used) {
  bool has_category = false;
  bool has_name = false;
  // Only complete ('X') events are records: of others (flows, instants, metadata) the category
  // and name are enough to count them.
  bool values_wanted = true;
  *used = true;
  for (auto field_result : object) {
    od::field field;
    if (error_code e = std::move(field_result).get(field)) return e;
    od::raw_json_string key = field.key();
    od::value value = field.value();
    error_code e = SUCCESS;
    switch (key.raw()[0]) {
      case 'p':
        if (key.unsafe_is_equal("ph")) {
          e = ReadString(value, event.phase);
          values_wanted = event.phase == "X";
        } else if (values_wanted && key.unsafe_is_equal("pid")) {
          e = ReadId(value, event.pid);
        }
        break;
      case 'c':
        if (key.unsafe_is_equal("cat")) {
          e = ReadString(value, event.category);
          event.kind = ClassifyKinetoCategory(event.category);
          has_category = true;
        }
        break;
      case 'n':
        if (key.unsafe_is_equal("name")) {
          od::json_type type{};
          event.name_not_string =
              value.type().get(type) == SUCCESS && type != od::json_type::string;
          e = ReadString(value, event.name);
          has_name = true;
        }
        break;
      case 't':
        if (!values_wanted) break;
        if (key.unsafe_is_equal("ts")) {
          e = ReadTimeText(value, event.ts);
        } else if (key.unsafe_is_equal("tid")) {
          e = ReadId(value, event.tid);
        }
        break;
      case 'd':
        if (values_wanted && key.unsafe_is_equal("dur")) e = ReadTimeText(value, event.dur);
        break;
      case 'a':
        if (values_wanted && key.unsafe_is_equal("args") &&
            (!has_category || KinetoTraceBuilder::NeedsArgs(event.kind))) {
          e = ReadArgs(value, event.args);
        }
        break;
      default:
        break;
    }
    if (e != SUCCESS) return e;
    if (has_category && has_name && (!values_wanted || !builder.IsUsed(event.kind, event.name))) {
      // Stop here; a non-'X' event of a used kind is still counted (as skipped) by Add().
      *used = builder.IsUsed(event.kind, event.name);
      return SUCCESS;
    }
  }
  *used = builder.IsUsed(event.kind, event.name);
  return SUCCESS;
}

// Reads the top-level scalar members of a JSON object whose text comes in pieces, without
// keeping the text: how the rank is read from a distributedInfo too large to capture (its
// pg_config lists every process group's ranks). One byte at a time, only on such values.
class TopLevelScalarFinder {
 public:
  void Feed(std::string_view text) {
    for (char c : text)
      Step(c);
  }
  // The value of the top-level member `key` as written: a number's text, or a string's text
  // between its quotes (still escaped). Empty when absent or not a scalar.
  std::string Get(std::string_view key) const {
    auto it = std::find_if(found_.begin(), found_.end(),
                           [&](const auto& member) { return member.first == key; });
    return it == found_.end() ? std::string() : it->second;
  }

 private:
  // Keys and values longer than this are not kept (no wanted one is).
  static constexpr size_t kLongest = 64;
  enum class Phase {
    kStart,
    kBeforeKey,
    kKey,
    kAfterKey,
    kBeforeValue,
    kString,
    kScalar,
    kNested,
    kAfterValue,
    kDone
  };

  void Keep(std::string& text, char c) {
    if (text.size() <= kLongest) text += c;
  }
  void Found() {
    if (key_.size() <= kLongest && value_.size() <= kLongest) found_.emplace_back(key_, value_);
  }
  void Step(char c) {
    switch (phase_) {
      case Phase::kStart:
        if (!IsSpace(c)) phase_ = c == '{' ? Phase::kBeforeKey : Phase::kDone;
        break;
      case Phase::kBeforeKey:
        if (c == '"') {
          key_.clear();
          phase_ = Phase::kKey;
        } else if (!IsSpace(c)) {
          phase_ = Phase::kDone;  // '}' (an empty object) or not JSON
        }
        break;
      case Phase::kKey:
      case Phase::kString:
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if (c == '"') {
          if (phase_ == Phase::kString) Found();
          phase_ = phase_ == Phase::kKey ? Phase::kAfterKey : Phase::kAfterValue;
          break;
        }
        Keep(phase_ == Phase::kKey ? key_ : value_, c);
        break;
      case Phase::kAfterKey:
        if (!IsSpace(c)) phase_ = c == ':' ? Phase::kBeforeValue : Phase::kDone;
        break;
      case Phase::kBeforeValue:
        if (IsSpace(c)) break;
        value_.clear();
        if (c == '"') {
          phase_ = Phase::kString;
        } else if (c == '{' || c == '[') {
          depth_ = 1;
          phase_ = Phase::kNested;
        } else {
          value_ += c;
          phase_ = Phase::kScalar;
        }
        break;
      case Phase::kScalar:
        if (IsSpace(c) || c == ',' || c == '}') {
          Found();
          phase_ = Phase::kAfterValue;
          Step(c);
        } else {
          Keep(value_, c);
        }
        break;
      case Phase::kNested:
        if (in_string_) {
          if (escaped_) {
            escaped_ = false;
          } else if (c == '\\') {
            escaped_ = true;
          } else if (c == '"') {
            in_string_ = false;
          }
        } else if (c == '"') {
          in_string_ = true;
        } else if (c == '{' || c == '[') {
          ++depth_;
        } else if ((c == '}' || c == ']') && --depth_ == 0) {
          phase_ = Phase::kAfterValue;
        }
        break;
      case Phase::kAfterValue:
        if (c == ',') {
          phase_ = Phase::kBeforeKey;
        } else if (!IsSpace(c)) {
          phase_ = Phase::kDone;  // '}': the end
        }
        break;
      case Phase::kDone:
        break;
    }
  }

  Phase phase_ = Phase::kStart;
  int64_t depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  std::string key_;
  std::string value_;
  std::vector<std::pair<std::string, std::string>> found_;
};

class KinetoJsonParser {
 public:
  KinetoJsonParser(ByteSource& input, std::string source, const KinetoReadOptions& options)
      : input_(input),
        source_(source),
        options_(options),
        capacity_(std::max<size_t>(options.chunk_bytes, 4096)),
        data_(new char[capacity_ + kPadding]),
        builder_(std::move(source), options) {
    std::memset(data_.get(), ' ', capacity_ + kPadding);
  }

  Trace Parse();

 private:
  uint64_t End() const { return base_ + size_; }
  char* Ptr(uint64_t offset) { return data_.get() + (offset - base_); }
  char At(uint64_t offset) const { return data_[offset - base_]; }
  // simdjson's capacity argument for a document starting at `offset`.
  size_t CapacityFrom(uint64_t offset) const { return capacity_ + kPadding - (offset - base_); }

  [[noreturn]] void Fail(uint64_t offset, std::string_view problem) const;
  // Reads more input, keeping the bytes from `keep` - 1 on (one byte before is kept so that a
  // batch of events can be wrapped in brackets in place). Grows the buffer when the kept bytes
  // fill it. False at the end of the input.
  bool ReadMore(uint64_t keep);
  int Peek();
  int SkipSpace();
  std::string ReadStringToken();
  std::string ReadScalarToken();
  // Reads the object or array at pos_ (not traceEvents). Returns true with its text in `out`
  // when it is at most kMaxCapturedBytes long; longer values are skipped without being kept,
  // their text fed to `finder` when one is given. `*bytes`: the value's length.
  bool CaptureContainer(std::string& out, uint64_t* bytes, TopLevelScalarFinder* finder);
  // What a top-level value too long to capture costs: said in a note; for distributedInfo, the
  // rank and world size `finder` read from it.
  void LongTopLevelValue(const std::string& key, uint64_t bytes,
                         const TopLevelScalarFinder& finder);
  void SetDistributedIdentity(std::optional<int64_t> rank, std::optional<int64_t> world_size);
  void ReadEvents(int depth, bool array_form);
  // An element of traceEvents that is not valid JSON.
  struct Damage {
    size_t index = 0;    // in the `ends` handed over
    uint64_t start = 0;  // its first byte, past the separators
    std::string_view problem;
  };
  // Adds the events ending at `ends` (the first starts after `region`) until one is not valid
  // JSON: that one is returned, not counted, and the events after it are left.
  std::optional<Damage> ProcessEvents(uint64_t region, std::span<const uint64_t> ends);
  error_code ProcessBatch(uint64_t region, std::span<const uint64_t> ends, size_t* done);
  std::optional<Damage> ProcessOneByOne(uint64_t region, std::span<const uint64_t> ends,
                                        size_t from);
  // Whether the '}' at `close` ends an event of traceEvents, judged by the bytes after it alone
  // (structure, not key names: files re-serialised with sorted keys start events with "args"):
  // the start of the next event (',', '{', then '}' or a string and ':') or the end of the array
  // (']' and then '}', ',' and a string, or the end of the input). `lenient` (the check of the
  // scanner's own ends): ']' alone, and ',' followed by anything but '{', also pass (what
  // follows is judged where it is read). kMore: the buffer ends before that can be told.
  enum class Boundary { kYes, kNo, kMore };
  Boundary MatchEventBoundary(uint64_t close, bool lenient = false) const;
  // The '}' that ends the damaged event starting at `start`, found without the string state
  // (which a stray quote inverted): the first one at an event boundary that does not look nested
  // in the event (see there), within kMaxDamagedEventBytes. Reads more input as needed; nullopt
  // when there is none.
  std::optional<uint64_t> FindDamagedEventEnd(uint64_t start);
  // The first byte from `from` on that is not a space or a comma (End() when none is buffered).
  uint64_t SkipSeparators(uint64_t from) const;
  void TopLevelValue(const std::string& key, const std::string& raw, uint64_t offset);
  // Unescapes the name of an event gpuroof keeps, when it has escapes, into scratch_.
  error_code Unescape(KinetoEvent& event);

  ByteSource& input_;
  std::string source_;
  KinetoReadOptions options_;
  size_t capacity_;
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  uint64_t base_ = 0;  // stream offset of data_[0]
  uint64_t pos_ = 0;   // stream offset of the next byte to look at
  bool eof_ = false;
  od::parser parser_;
  KinetoTraceBuilder builder_;
  std::vector<size_t> scan_ends_;
  std::vector<uint8_t> scratch_;
  std::vector<uint64_t> ends_;
  int64_t elements_ = 0;
  bool array_form_ = false;
};

void KinetoJsonParser::Fail(uint64_t offset, std::string_view problem) const {
  throw InputError(source_, fmt::format("{} (at byte {}{})", problem, offset,
                                        input_.compressed() ? " of the decompressed JSON" : ""));
}

bool KinetoJsonParser::ReadMore(uint64_t keep) {
  if (eof_) return false;
  keep = std::clamp(keep, base_, End());
  uint64_t from = keep > base_ ? keep - 1 : base_;
  size_t shift = static_cast<size_t>(from - base_);
  if (shift > 0) {
    std::memmove(data_.get(), data_.get() + shift, size_ - shift);
    size_ -= shift;
    base_ = from;
  }
  if (size_ == capacity_) {
    if (size_ >= options_.max_value_bytes) {
      Fail(keep, fmt::format("a JSON value longer than {} MiB starts here (an unterminated string "
                             "or a corrupt file?)",
                             options_.max_value_bytes >> 20));
    }
    size_t grown = std::min(capacity_ * 2, options_.max_value_bytes + 1);
    std::unique_ptr<char[]> bigger(new char[grown + kPadding]);
    std::memcpy(bigger.get(), data_.get(), size_);
    std::memset(bigger.get() + size_, ' ', grown + kPadding - size_);
    data_ = std::move(bigger);
    capacity_ = grown;
  }
  size_t n = input_.Read(data_.get() + size_, capacity_ - size_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  size_ += n;
  return true;
}

int KinetoJsonParser::Peek() {
  while (pos_ >= End()) {
    if (!ReadMore(pos_)) return -1;
  }
  return static_cast<unsigned char>(At(pos_));
}

int KinetoJsonParser::SkipSpace() {
  int c = Peek();
  while (c != -1 && IsSpace(static_cast<char>(c))) {
    ++pos_;
    c = Peek();
  }
  return c;
}

std::string KinetoJsonParser::ReadStringToken() {
  uint64_t start = pos_;
  uint64_t i = pos_ + 1;
  bool escaped = false;
  for (;;) {
    if (i >= End()) {
      if (!ReadMore(start)) Fail(start, "truncated JSON: the file ends inside a string");
      continue;
    }
    char c = At(i);
    if (escaped) {
      escaped = false;
    } else if (c == '\\') {
      escaped = true;
    } else if (c == '"') {
      break;
    }
    ++i;
  }
  pos_ = i + 1;
  return std::string(Ptr(start), static_cast<size_t>(pos_ - start));
}

std::string KinetoJsonParser::ReadScalarToken() {
  uint64_t start = pos_;
  for (;;) {
    if (pos_ >= End() && !ReadMore(start)) break;
    char c = At(pos_);
    if (IsSpace(c) || c == ',' || c == '}' || c == ']') break;
    ++pos_;
  }
  return std::string(Ptr(start), static_cast<size_t>(pos_ - start));
}

bool KinetoJsonParser::CaptureContainer(std::string& out, uint64_t* bytes,
                                        TopLevelScalarFinder* finder) {
  uint64_t start = pos_;
  JsonStructureScanner scanner(0);
  uint64_t scan = pos_;
  bool keep = true;
  out.clear();
  for (;;) {
    scan_ends_.clear();
    auto result = eof_ ? scanner.ScanTail(Ptr(scan), End() - scan, 0, scan_ends_)
                       : scanner.Scan(Ptr(scan), End() - scan, 0, scan_ends_);
    uint64_t stop = scan_ends_.empty() ? scan + result.scanned : scan + scan_ends_[0];
    if (keep && out.size() + (stop - scan) <= kMaxCapturedBytes) {
      out.append(Ptr(scan), static_cast<size_t>(stop - scan));
    } else {
      if (keep && finder != nullptr) finder->Feed(out);
      if (finder != nullptr) finder->Feed(std::string_view(Ptr(scan), stop - scan));
      keep = false;
      out.clear();
    }
    scan = stop;
    if (!scan_ends_.empty()) {
      pos_ = scan;
      *bytes = pos_ - start;
      return keep;
    }
    if (result.left) Fail(scan - 1, "unbalanced brackets");
    if (eof_) Fail(start, "truncated JSON: the file ends inside this value");
    ReadMore(scan);
  }
}

void KinetoJsonParser::ReadEvents(int depth, bool array_form) {
  array_form_ = array_form;
  JsonStructureScanner scanner(depth);
  uint64_t region = pos_;  // start of the bytes not yet handed over as events
  uint64_t scan = pos_;
  // Cuts out the damaged event that starts at `start`: it is counted as one malformed event and
  // scanning starts afresh after it, so that a stray quote costs that event alone
  // (docs/formats.md, "Kineto JSON traces"). False when no end for it is found.
  auto resync = [&](uint64_t start, std::string_view problem) {
    std::optional<uint64_t> close = FindDamagedEventEnd(start);
    if (!close) return false;
    builder_.AddMalformed(start, problem);
    ++elements_;
    region = scan = *close + 1;
    scanner = JsonStructureScanner(depth);
    return true;
  };
  // Hands over the events ending at ends_[from, to); true when a damaged one was cut out (the
  // scanner restarted: the other ends are void). `trusted`: the ends lie before any text that
  // cannot be JSON and each is followed by what may follow an event, so an event that fails to
  // parse (invalid UTF-8, a misplaced quote that left the structure whole) ends where the
  // scanner says: it alone is counted, and no boundary is searched for.
  auto hand_over = [&](size_t from, size_t to, bool trusted) {
    while (from < to) {
      std::span<const uint64_t> ends(ends_.data() + from, to - from);
      std::optional<Damage> damage = ProcessEvents(region, ends);
      if (!damage) {
        region = ends_[to - 1];
        return false;
      }
      if (!trusted && resync(damage->start, damage->problem)) return true;
      // Trusted, or no event boundary after it: the element as the scanner cut it is the
      // malformed event.
      builder_.AddMalformed(damage->start, damage->problem);
      ++elements_;
      from += damage->index;
      region = ends_[from++];
    }
    return false;
  };
  for (;;) {
    scan_ends_.clear();
    auto result = eof_ ? scanner.ScanTail(Ptr(scan), End() - scan, depth, scan_ends_)
                       : scanner.Scan(Ptr(scan), End() - scan, depth, scan_ends_);
    ends_.clear();
    for (size_t e : scan_ends_)
      ends_.push_back(scan + e);
    // Events ending before text that cannot be JSON are read first; the one around it was
    // damaged by a stray quote, unless its end cannot be found (then it is read as cut).
    uint64_t broken = result.not_json_at < result.scanned ? scan + result.not_json_at
                                                          : std::numeric_limits<uint64_t>::max();
    // An end that is not followed by what may follow an event ("ke"}rn5", or "ke"}, {"x5",
    // with a quote that no text after it flags) is false: the event around it is damaged too.
    // One look at the few bytes after each end.
    bool unsure = false;  // an end too near the end of the buffer to be judged yet
    for (size_t j = 0; j < ends_.size() && ends_[j] <= broken; ++j) {
      Boundary boundary = MatchEventBoundary(ends_[j] - 1, /*lenient=*/true);
      if (boundary == Boundary::kYes) continue;
      // Kilobytes of whitespace after an end (allowed between events) are not read up to the
      // next event to judge it: what follows will be judged where it is read.
      if (boundary == Boundary::kMore && End() - ends_[j] > kMaxEndLookaheadBytes) continue;
      if (boundary == Boundary::kNo) {
        broken = ends_[j] - 1;
      } else {
        ends_.resize(j);
        broken = std::numeric_limits<uint64_t>::max();
        unsure = true;
      }
      break;
    }
    size_t before_broken =
        static_cast<size_t>(std::lower_bound(ends_.begin(), ends_.end(), broken) - ends_.begin());
    if (hand_over(0, before_broken, true)) continue;
    if (unsure) {
      // Scanned again from the last event handed over, with more input.
      scan = region;
      scanner = JsonStructureScanner(depth);
      ReadMore(region);
      continue;
    }
    if (broken != std::numeric_limits<uint64_t>::max()) {
      uint64_t start = SkipSeparators(region);
      if (start <= broken && At(start) == '{') {
        if (resync(start, "a stray quote (text that cannot be JSON after a string)")) continue;
        region = start;  // only separators before it, which the search may have let go
      }
    }
    if (hand_over(before_broken, ends_.size(), false)) continue;
    scan += result.scanned;
    // Whether only separators follow the last event, up to `end`.
    auto blank_until = [&](uint64_t end) {
      for (uint64_t i = region; i < end; ++i) {
        if (!IsSpace(At(i)) && At(i) != ',') return false;
      }
      return true;
    };
    if (result.left) {
      if (!blank_until(scan - 1)) {
        // An object whose brackets or quotes do not balance (a stray quote hid some), or a
        // scalar among the events: counted, not fatal.
        uint64_t start = SkipSeparators(region);
        if (At(start) == '{' && resync(start, "unbalanced brackets or quotes")) continue;
        builder_.AddMalformed(region, "an element that is not an object");
      }
      pos_ = scan;
      return;
    }
    if (eof_) {
      if (array_form && !scanner.in_string() && blank_until(End())) {
        // The Trace Event Format allows a bare array without its closing bracket (a writer that
        // was killed still leaves a readable file).
        builder_.SetMetadata("kineto_unterminated_array", "true");
        pos_ = End();
        return;
      }
      // A string or bracket left open to the end: a stray quote, when an event boundary
      // follows the event it started in; else the file is truncated.
      uint64_t start = SkipSeparators(region);
      if (start < End() && At(start) == '{' &&
          resync(start, "a string or bracket that never closes (an unescaped quote?)")) {
        continue;
      }
      Fail(region, fmt::format("truncated JSON: the file ends inside traceEvents, after {} "
                               "complete events",
                               elements_));
    }
    // Only separators since the last event: none of it needs keeping, so any amount of
    // whitespace between events is never mistaken for one over-long value.
    if (scanner.depth() == depth && !scanner.in_string() && blank_until(scan)) region = scan;
    ReadMore(region);
  }
}

uint64_t KinetoJsonParser::SkipSeparators(uint64_t from) const {
  while (from < End() && (IsSpace(At(from)) || At(from) == ','))
    ++from;
  return from;
}

KinetoJsonParser::Boundary KinetoJsonParser::MatchEventBoundary(uint64_t close,
                                                                bool lenient) const {
  uint64_t i = close + 1;
  auto skip_space = [&] {
    while (i < End() && IsSpace(At(i)))
      ++i;
    return i < End();
  };
  // Out of buffered bytes: at the end of the input, only the end of a bare array fits.
  const Boundary more = eof_ ? Boundary::kNo : Boundary::kMore;
  if (!skip_space()) {
    if (eof_) return array_form_ || lenient ? Boundary::kYes : Boundary::kNo;
    return Boundary::kMore;
  }
  if (At(i) == ']') {
    if (lenient) return Boundary::kYes;
    ++i;
    if (!skip_space()) return eof_ ? Boundary::kYes : Boundary::kMore;
    if (At(i) == '}') return Boundary::kYes;
    if (At(i) != ',') return Boundary::kNo;
    ++i;
    if (!skip_space()) return more;
    return At(i) == '"' ? Boundary::kYes : Boundary::kNo;
  }
  if (At(i) != ',') return Boundary::kNo;
  ++i;
  if (!skip_space()) return more;
  if (At(i) != '{') return lenient ? Boundary::kYes : Boundary::kNo;
  ++i;
  if (!skip_space()) return more;
  if (At(i) == '}') return Boundary::kYes;  // an empty object
  if (At(i) != '"') return Boundary::kNo;
  // Any key: up to its closing quote, then ':'.
  for (++i; i < End() && At(i) != '"'; ++i) {
    if (At(i) == '\\') ++i;
  }
  if (i >= End()) return more;
  ++i;
  if (!skip_space()) return more;
  return At(i) == ':' ? Boundary::kYes : Boundary::kNo;
}

std::optional<uint64_t> KinetoJsonParser::FindDamagedEventEnd(uint64_t start) {
  const uint64_t limit =
      start + std::min<uint64_t>(kMaxDamagedEventBytes, options_.max_value_bytes / 2);
  // Brackets counted without the string state: a boundary-like '}' inside an array of objects
  // in the event's arguments ([{"a": 1}, {"b": 2}]) leaves two or more open and is passed over.
  // Any other depth (0 at the event's real end; 1 or below when its strings held brackets) is
  // taken. When every one looked nested, the first is taken.
  int64_t depth = 1;
  std::optional<uint64_t> first;
  uint64_t i = start + 1;
  for (;;) {
    bool need_more = false;
    for (; i < std::min(End(), limit); ++i) {
      char c = At(i);
      if (c == '{' || c == '[') {
        ++depth;
        continue;
      }
      if (c == ']') --depth;
      if (c != '}') continue;
      Boundary boundary = MatchEventBoundary(i);
      if (boundary == Boundary::kMore) {
        need_more = true;  // judged again, the '}' not yet counted
        break;
      }
      --depth;
      if (boundary != Boundary::kYes) continue;
      if (depth < 2) return i;
      if (!first) first = i;
    }
    if (!need_more && (i >= limit || eof_)) return first;
    ReadMore(start);  // at the end of the input, the candidate is judged again with eof_ set
  }
}

std::optional<KinetoJsonParser::Damage> KinetoJsonParser::ProcessEvents(
    uint64_t region, std::span<const uint64_t> ends) {
  size_t done = 0;
  std::optional<Damage> damage;
  if (ProcessBatch(region, ends, &done) != SUCCESS) damage = ProcessOneByOne(region, ends, done);
  elements_ += static_cast<int64_t>(damage ? damage->index : ends.size());
  return damage;
}

// Parses the events ending at `ends` as one JSON array: the separator before the first event
// (or the byte before it) becomes '[' and the byte after the last one ']', restored afterwards.
error_code KinetoJsonParser::ProcessBatch(uint64_t region, std::span<const uint64_t> ends,
                                          size_t* done) {
  uint64_t first = region;
  while (first < ends[0] && IsSpace(At(first)))
    ++first;
  uint64_t begin = At(first) == ',' ? first : region - 1;
  if (begin < base_) return simdjson::TAPE_ERROR;  // no byte to spare: one event at a time
  uint64_t last = ends.back();
  char saved_begin = At(begin);
  char saved_last = At(last);
  *Ptr(begin) = '[';
  *Ptr(last) = ']';
  error_code error = SUCCESS;
  od::document doc;
  od::array array;
  error = parser_.iterate(Ptr(begin), static_cast<size_t>(last + 1 - begin), CapacityFrom(begin))
              .get(doc);
  if (error == SUCCESS) error = doc.get_array().get(array);
  if (error == SUCCESS) {
    for (auto element : array) {
      od::object object;
      if ((error = element.get_object().get(object)) != SUCCESS) break;
      KinetoEvent event;
      bool used = false;
      if ((error = ReadEvent(object, builder_, event, &used)) != SUCCESS) break;
      if (used && (error = Unescape(event)) != SUCCESS) break;
      builder_.Add(event);
      ++*done;
    }
  }
  *Ptr(begin) = saved_begin;
  *Ptr(last) = saved_last;
  if (error == SUCCESS && *done != ends.size()) error = simdjson::TAPE_ERROR;
  return error;
}

// The fallback when a batch fails: each event on its own, up to the first that is malformed
// (invalid UTF-8, an unescaped quote or control character).
std::optional<KinetoJsonParser::Damage> KinetoJsonParser::ProcessOneByOne(
    uint64_t region, std::span<const uint64_t> ends, size_t from) {
  uint64_t previous = from == 0 ? region : ends[from - 1];
  for (size_t i = from; i < ends.size(); ++i) {
    uint64_t start = previous;
    while (start < ends[i] && (IsSpace(At(start)) || At(start) == ','))
      ++start;
    previous = ends[i];
    od::document doc;
    od::object object;
    KinetoEvent event;
    bool used = false;
    error_code error =
        parser_.iterate(Ptr(start), static_cast<size_t>(ends[i] - start), CapacityFrom(start))
            .get(doc);
    if (error == SUCCESS) error = doc.get_object().get(object);
    if (error == SUCCESS) error = ReadEvent(object, builder_, event, &used);
    if (error == SUCCESS && used) error = Unescape(event);
    if (error != SUCCESS) return Damage{i, start, simdjson::error_message(error)};
    builder_.Add(event);
  }
  return std::nullopt;
}

error_code KinetoJsonParser::Unescape(KinetoEvent& event) {
  if (event.name.find('\\') == std::string_view::npos ||
      !KinetoTraceBuilder::NeedsName(event.kind)) {
    return SUCCESS;
  }
  scratch_.resize(event.name.size() + simdjson::SIMDJSON_PADDING);
  uint8_t* out = scratch_.data();
  // raw_json_string points just past the opening quote.
  od::raw_json_string raw(reinterpret_cast<const uint8_t*>(event.name.data()));
  return parser_.unescape(raw, out).get(event.name);
}

void KinetoJsonParser::TopLevelValue(const std::string& key, const std::string& raw,
                                     uint64_t offset) {
  simdjson::padded_string padded(raw);
  od::document doc;
  if (parser_.iterate(padded).get(doc) != SUCCESS) Fail(offset, "invalid JSON value");
  if (key == "deviceProperties") {
    od::array devices;
    if (doc.get_array().get(devices) != SUCCESS) return;
    for (auto element : devices) {
      od::object object;
      if (element.get_object().get(object) != SUCCESS) continue;
      DeviceInfo device;
      bool has_id = false;
      for (auto field_result : object) {
        od::field field;
        if (std::move(field_result).get(field) != SUCCESS) break;
        if (field.key().unsafe_is_equal("id")) {
          std::optional<int64_t> id = ReadInteger(field.value());
          has_id = id.has_value();
          device.id = static_cast<int32_t>(id.value_or(0));
        } else if (field.key().unsafe_is_equal("name")) {
          std::string_view name;
          if (field.value().get_string().get(name) == SUCCESS) device.name = name;
        }
      }
      if (has_id) builder_.AddDevice(std::move(device));
    }
    return;
  }
  if (key == "distributedInfo") {
    // The rank of a distributed job (torch.distributed): `gpuroof ranks` tells ranks apart by it.
    od::object object;
    if (doc.get_object().get(object) != SUCCESS) return;
    std::optional<int64_t> rank;
    std::optional<int64_t> world_size;
    for (auto field_result : object) {
      od::field field;
      if (std::move(field_result).get(field) != SUCCESS) break;
      if (field.key().unsafe_is_equal("rank")) {
        rank = ReadInteger(field.value());
      } else if (field.key().unsafe_is_equal("world_size")) {
        world_size = ReadInteger(field.value());
      }
    }
    SetDistributedIdentity(rank, world_size);
    return;
  }
  if (key == "baseTimeNanoseconds") {
    // A scalar document: its text is the number (or a quoted number).
    std::string_view text = TrimRight(raw);
    if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
      text = text.substr(1, text.size() - 2);
    }
    std::optional<int64_t> base = ParseInteger(text);
    if (!base) Fail(offset, "baseTimeNanoseconds is not an integer");
    builder_.SetBaseTimeNs(*base);
    builder_.SetMetadata("kineto_base_time_ns", std::to_string(*base));
    return;
  }
  // Scalars worth showing with the trace; everything else is skipped.
  static constexpr std::string_view kKept[] = {
      "schemaVersion", "displayTimeUnit",      "traceName",
      "cupti_version", "cuda_runtime_version", "cuda_driver_version"};
  if (std::find(std::begin(kKept), std::end(kKept), key) == std::end(kKept)) return;
  std::string_view text_value;
  od::json_type type;
  if (doc.type().get(type) != SUCCESS) return;
  if (type == od::json_type::string) {
    if (doc.get_string().get(text_value) != SUCCESS) return;
  } else if (doc.raw_json_token().get(text_value) != SUCCESS) {
    return;
  }
  builder_.SetMetadata("kineto_" + key, std::string(TrimRight(text_value)));
}

void KinetoJsonParser::SetDistributedIdentity(std::optional<int64_t> rank,
                                              std::optional<int64_t> world_size) {
  if (rank) {
    builder_.SetMetadata("distributed_rank", std::to_string(*rank));
    builder_.SetMetadata("distributed_rank_origin", "distributedInfo.rank");
  }
  if (world_size) builder_.SetMetadata("distributed_world_size", std::to_string(*world_size));
}

void KinetoJsonParser::LongTopLevelValue(const std::string& key, uint64_t bytes,
                                         const TopLevelScalarFinder& finder) {
  std::string size = fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1 << 20));
  constexpr size_t kLimitMiB = kMaxCapturedBytes >> 20;
  if (key == "distributedInfo") {
    std::optional<int64_t> rank = ParseInteger(finder.Get("rank"));
    std::optional<int64_t> world_size = ParseInteger(finder.Get("world_size"));
    SetDistributedIdentity(rank, world_size);
    builder_.Note(fmt::format(
        "distributedInfo is {}, over the {} MiB read limit on top-level values: only its "
        "top-level rank and world_size were looked for ({}, {})",
        size, kLimitMiB, rank ? fmt::format("rank {}", *rank) : "no rank",
        world_size ? fmt::format("world size {}", *world_size) : "no world size"));
  } else if (key == "deviceProperties") {
    builder_.Note(
        fmt::format("deviceProperties is {}, over the {} MiB read limit on top-level "
                    "values: device names were not read",
                    size, kLimitMiB));
  }
}

Trace KinetoJsonParser::Parse() {
  int c = Peek();
  // A UTF-8 byte-order mark.
  if (c == 0xEF && End() - pos_ >= 3 && static_cast<unsigned char>(At(pos_ + 1)) == 0xBB &&
      static_cast<unsigned char>(At(pos_ + 2)) == 0xBF) {
    pos_ += 3;
  }
  c = SkipSpace();
  if (c == -1) Fail(pos_, "empty file, expected a Kineto (PyTorch profiler) JSON trace");
  if (c == '[') {
    ++pos_;
    builder_.SetMetadata("kineto_container", "array");
    ReadEvents(1, true);
  } else if (c == '{') {
    ++pos_;
    bool has_events = false;
    c = SkipSpace();
    if (c == '}') ++pos_;
    while (c != '}') {
      if (c != '"') Fail(pos_, "expected a key string in the top-level JSON object");
      uint64_t key_offset = pos_;
      std::string raw_key = ReadStringToken();
      simdjson::padded_string padded_key(raw_key);
      std::string_view key_view;
      od::document key_doc;
      if (parser_.iterate(padded_key).get(key_doc) != SUCCESS ||
          key_doc.get_string().get(key_view) != SUCCESS) {
        Fail(key_offset, "invalid JSON string");
      }
      std::string key(key_view);
      if (SkipSpace() != ':') Fail(pos_, "expected ':' after a key in the top-level JSON object");
      ++pos_;
      c = SkipSpace();
      uint64_t value_offset = pos_;
      if (key == "traceEvents") {
        if (c != '[') Fail(pos_, "traceEvents is not an array");
        ++pos_;
        has_events = true;
        ReadEvents(2, false);
      } else if (c == '{' || c == '[') {
        std::string raw;
        uint64_t bytes = 0;
        TopLevelScalarFinder finder;
        if (CaptureContainer(raw, &bytes, key == "distributedInfo" ? &finder : nullptr)) {
          TopLevelValue(key, raw, value_offset);
        } else {
          LongTopLevelValue(key, bytes, finder);
        }
      } else if (c == '"') {
        TopLevelValue(key, ReadStringToken(), value_offset);
      } else if (c == -1) {
        Fail(pos_, "truncated JSON: the file ends after a key");
      } else {
        TopLevelValue(key, ReadScalarToken(), value_offset);
      }
      c = SkipSpace();
      if (c == ',') {
        ++pos_;
        c = SkipSpace();
      } else if (c == '}') {
        ++pos_;
        break;
      } else if (c == -1) {
        Fail(pos_, "truncated JSON: the file ends inside the top-level object");
      } else {
        Fail(pos_, "expected ',' or '}' in the top-level JSON object");
      }
    }
    if (!has_events) {
      Fail(0, "a JSON object without a traceEvents array: not a Chrome/Kineto trace");
    }
    builder_.SetMetadata("kineto_container", "object");
  } else {
    Fail(pos_, "not JSON: expected '{' or '[' (a Kineto / PyTorch profiler trace)");
  }
  if (SkipSpace() != -1) Fail(pos_, "unexpected data after the end of the JSON trace");
  if (input_.compressed()) builder_.SetMetadata("kineto_compression", "gzip");
  // Every byte is read: the parser's buffers and the window go back before Finish() joins the
  // launch calls (with them alive, that join was the read's memory peak).
  parser_ = od::parser{};
  data_.reset();
  std::vector<uint64_t>().swap(ends_);
  std::vector<size_t>().swap(scan_ends_);
  return builder_.Finish();
}

}  // namespace

bool LooksLikeJson(std::string_view head) {
  if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
  while (!head.empty() && IsSpace(head.front()))
    head.remove_prefix(1);
  if (head.empty()) return false;
  if (head.front() == '{') return true;
  if (head.front() != '[') return false;
  // A trace as a bare array holds event objects: '[' then '{' (or ']'). A TOML table header
  // ("[grid]") or an INI section is no trace.
  head.remove_prefix(1);
  while (!head.empty() && IsSpace(head.front()))
    head.remove_prefix(1);
  return head.empty() || head.front() == '{' || head.front() == ']';
}

bool IsKinetoJsonFile(const std::filesystem::path& path) {
  std::unique_ptr<ByteSource> input = OpenByteSource(path);
  char head[512];
  size_t n = 0;
  while (n < sizeof head) {
    size_t got = input->Read(head + n, sizeof head - n);
    if (got == 0) break;
    n += got;
  }
  std::string_view view(head, n);
  if (view.empty() || !std::all_of(view.begin(), view.end(), IsSpace)) return LooksLikeJson(view);
  // Only whitespace so far (a padded file, or a gzip of whitespace): the first other byte
  // decides, or the file is said to be blank rather than "not an SQLite database".
  uint64_t skipped = n;
  for (;;) {
    n = input->Read(head, sizeof head);
    if (n == 0) {
      throw InputError(path.string(),
                       fmt::format("holds only whitespace ({} bytes{}): no trace in it", skipped,
                                   input->compressed() ? " once decompressed" : ""));
    }
    view = std::string_view(head, n);
    auto other = std::find_if_not(view.begin(), view.end(), IsSpace);
    if (other != view.end()) return *other == '{' || *other == '[';
    skipped += n;
    if (skipped > kMaxLeadingSpaceBytes) {
      throw InputError(path.string(), fmt::format("starts with more than {} MiB of whitespace",
                                                  kMaxLeadingSpaceBytes >> 20));
    }
  }
}

Trace ReadKinetoJson(const std::filesystem::path& path, const KinetoReadOptions& options) {
  std::unique_ptr<ByteSource> input = OpenByteSource(path, options.inflate);
  return KinetoJsonParser(*input, path.string(), options).Parse();
}

Trace ReadKinetoJsonText(std::string_view json, const std::string& source,
                         const KinetoReadOptions& options) {
  StringSource input(json);
  return KinetoJsonParser(input, source, options).Parse();
}

}  // namespace gpuroof
