#include "gpuroof/format/json_writer.h"

#include <fmt/format.h>

#include "gpuroof/format/number_format.h"

namespace gpuroof {

std::string JsonQuote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

void JsonWriter::Newline() {
  out_ += '\n';
  out_.append(first_in_scope_.size() * 2, ' ');
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_in_scope_.empty()) {
    if (!first_in_scope_.back()) out_ += ',';
    first_in_scope_.back() = false;
    Newline();
  }
}

JsonWriter& JsonWriter::Open(char bracket) {
  BeforeValue();
  out_ += bracket;
  first_in_scope_.push_back(true);
  return *this;
}

JsonWriter& JsonWriter::Close(char bracket) {
  bool empty = first_in_scope_.back();
  first_in_scope_.pop_back();
  if (!empty) Newline();
  out_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::BeginObject() {
  return Open('{');
}

JsonWriter& JsonWriter::EndObject() {
  return Close('}');
}

JsonWriter& JsonWriter::BeginArray() {
  return Open('[');
}

JsonWriter& JsonWriter::EndArray() {
  return Close(']');
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  BeforeValue();
  out_ += JsonQuote(key);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  BeforeValue();
  out_ += JsonQuote(value);
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
  return *this;
}

JsonWriter& JsonWriter::UInt(uint64_t value) {
  BeforeValue();
  out_ += std::to_string(value);
  return *this;
}

namespace {
thread_local bool doubles_marked = false;
}  // namespace

JsonDoublesMarked::JsonDoublesMarked() : saved_(doubles_marked) {
  doubles_marked = true;
}

JsonDoublesMarked::~JsonDoublesMarked() {
  doubles_marked = saved_;
}

JsonWriter& JsonWriter::Double(double value) {
  std::string text = ShortestDouble(value);
  if (text.empty()) return Null();
  if (doubles_marked && text.find_first_of(".eE") == std::string::npos) text += ".0";
  BeforeValue();
  out_ += text;
  return *this;
}

JsonWriter& JsonWriter::Double(const std::optional<double>& value) {
  return value ? Double(*value) : Null();
}

JsonWriter& JsonWriter::Int(const std::optional<int64_t>& value) {
  return value ? Int(*value) : Null();
}

JsonWriter& JsonWriter::Bool(bool value) {
  BeforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::Null() {
  BeforeValue();
  out_ += "null";
  return *this;
}

std::string JsonWriter::str() const {
  return first_in_scope_.empty() ? out_ + "\n" : out_;
}

}  // namespace gpuroof
