#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

// A small streaming JSON emitter with two-space indentation. Numbers are written at full
// precision (shortest round-trip form); unset optionals and non-finite doubles become null.
class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  JsonWriter& Key(std::string_view key);
  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& UInt(uint64_t value);
  JsonWriter& Double(double value);
  JsonWriter& Double(const std::optional<double>& value);  // null when unset
  JsonWriter& Int(const std::optional<int64_t>& value);    // null when unset
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  // The document so far, with a final newline once the top value is closed.
  std::string str() const;

 private:
  void BeforeValue();
  void Newline();
  JsonWriter& Open(char bracket);   // an object or array starts
  JsonWriter& Close(char bracket);  // and ends

  std::string out_;
  std::vector<bool> first_in_scope_;  // per open scope: nothing written in it yet
  bool after_key_ = false;
};

// While one lives on this thread, JsonWriter::Double() writes whole numbers with a decimal point
// ("1.0", not "1"): a reader that types numbers by their text (Python's json module) then keeps
// doubles apart from integers. The values are the same; the Python module renders with it, the
// CLI's output is left as it is.
class JsonDoublesMarked : NonCopyable {
 public:
  JsonDoublesMarked();
  ~JsonDoublesMarked();

 private:
  bool saved_;
};

// `text` as a JSON string literal, quotes included. Visible for testing.
std::string JsonQuote(std::string_view text);

}  // namespace gpuroof
