#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuroof {

// Sweep files write parameters into the command as `{name}`; `{{` and `}}` are literal braces.
// Expansion is plain text substitution into one argv element: the result is passed to exec as one
// argument, never through a shell, so `;`, quotes or `$(...)` in a value stay literal.

// The placeholder names in `text`, in order of appearance. Throws InputError (with `source`)
// for an unclosed `{`, a stray `}` or an empty name.
std::vector<std::string> PlaceholderNames(std::string_view text, const std::string& source);

// `text` with each `{name}` replaced by values.at(name). Throws InputError naming `source` when a
// name has no value.
std::string ExpandPlaceholders(std::string_view text,
                               const std::map<std::string, std::string>& values,
                               const std::string& source);

}  // namespace gpuroof
