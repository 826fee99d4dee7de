#pragma once

#include <optional>
#include <string>

namespace gpuroof {

// The first match of a POSIX extended regular expression (glibc's, so `\w`, `\s` and `\b` work)
// in `text`, matched line by line (REG_NEWLINE: `.` never crosses a newline, `^`/`$` match at line
// ends): group 1 when the pattern has one, else the whole match; unset when nothing matches.
// POSIX regex rather than std::regex: the patterns come from users, and glibc's engine neither
// recurses per character nor trips g++ 12's -Wmaybe-uninitialized under the sanitizers.
// Throws InputError naming `source` when the pattern is invalid.
std::optional<std::string> RegexFirstMatch(const std::string& pattern, const std::string& text,
                                           const std::string& source);

// Throws InputError naming `source` when `pattern` is not a valid expression.
void CheckRegex(const std::string& pattern, const std::string& source);

}  // namespace gpuroof
