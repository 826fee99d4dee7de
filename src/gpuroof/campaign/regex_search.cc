#include "gpuroof/campaign/regex_search.h"

#include <regex.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

namespace {

// A compiled expression, freed on scope exit.
class CompiledRegex : NonCopyable {
 public:
  CompiledRegex(const std::string& pattern, const std::string& source) {
    // REG_NEWLINE: '.' and [^...] stop at line ends and ^/$ match at them, as in grep; POSIX's
    // default lets '.' run across lines, so 'fps: (.*)' would take the rest of the output.
    int rc = regcomp(&regex_, pattern.c_str(), REG_EXTENDED | REG_NEWLINE);
    if (rc != 0) {
      char message[256] = {};
      regerror(rc, &regex_, message, sizeof message);
      throw InputError(source, "'" + pattern + "' is not a valid regular expression: " + message);
    }
  }
  ~CompiledRegex() { regfree(&regex_); }
  const regex_t* get() const { return &regex_; }
  size_t groups() const { return regex_.re_nsub; }

 private:
  regex_t regex_{};
};

}  // namespace

void CheckRegex(const std::string& pattern, const std::string& source) {
  CompiledRegex compiled(pattern, source);
}

std::optional<std::string> RegexFirstMatch(const std::string& pattern, const std::string& text,
                                           const std::string& source) {
  CompiledRegex compiled(pattern, source);
  regmatch_t matches[2] = {};
  if (regexec(compiled.get(), text.c_str(), 2, matches, 0) != 0) return std::nullopt;
  const regmatch_t& chosen =
      compiled.groups() >= 1 && matches[1].rm_so >= 0 ? matches[1] : matches[0];
  return text.substr(static_cast<size_t>(chosen.rm_so),
                     static_cast<size_t>(chosen.rm_eo - chosen.rm_so));
}

}  // namespace gpuroof
