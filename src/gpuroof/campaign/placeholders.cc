#include "gpuroof/campaign/placeholders.h"

#include <fmt/format.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// Walks `text`, calling `literal` for plain text and `name` for each placeholder.
void Scan(std::string_view text, const std::string& source,
          const std::function<void(std::string_view)>& literal,
          const std::function<void(const std::string&)>& name) {
  size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
      literal(text.substr(i, 1));
      i += 2;
      continue;
    }
    if (c == '}') {
      throw InputError(source,
                       fmt::format("stray '}}' in \"{}\" (write '}}}}' for a brace)", text));
    }
    if (c == '{') {
      size_t close = text.find('}', i + 1);
      if (close == std::string_view::npos) {
        throw InputError(source, fmt::format("unclosed '{{' in \"{}\"", text));
      }
      std::string placeholder(text.substr(i + 1, close - i - 1));
      if (placeholder.empty() || placeholder.find('{') != std::string::npos) {
        throw InputError(source, fmt::format("bad placeholder in \"{}\"", text));
      }
      name(placeholder);
      i = close + 1;
      continue;
    }
    size_t next = text.find_first_of("{}", i);
    if (next == std::string_view::npos) next = text.size();
    literal(text.substr(i, next - i));
    i = next;
  }
}

}  // namespace

std::vector<std::string> PlaceholderNames(std::string_view text, const std::string& source) {
  std::vector<std::string> names;
  Scan(
      text, source, [](std::string_view) {},
      [&](const std::string& name) { names.push_back(name); });
  return names;
}

std::string ExpandPlaceholders(std::string_view text,
                               const std::map<std::string, std::string>& values,
                               const std::string& source) {
  std::string out;
  Scan(
      text, source, [&](std::string_view piece) { out += piece; },
      [&](const std::string& name) {
        auto it = values.find(name);
        if (it == values.end()) {
          throw InputError(source, fmt::format("unknown placeholder {{{}}} in \"{}\"", name, text));
        }
        out += it->second;
      });
  return out;
}

}  // namespace gpuroof
