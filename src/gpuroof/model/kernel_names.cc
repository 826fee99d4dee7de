#include "gpuroof/model/kernel_names.h"

#include <cstdlib>
#include <memory>

#include <cxxabi.h>

namespace gpuroof {
namespace {

constexpr std::string_view kAnonymousNamespace = "(anonymous namespace)";

// Whether the "()" at `at` ends the name "operator" (after a scope or a space, or first).
bool IsCallOperator(std::string_view name, size_t at) {
  constexpr std::string_view kOperator = "operator";
  if (!name.substr(at).starts_with("()") || !name.substr(0, at).ends_with(kOperator)) return false;
  const size_t before = at - kOperator.size();
  return before == 0 || name[before - 1] == ':' || name[before - 1] == ' ';
}

// Position of the '(' that opens the parameter list: the first one outside template arguments
// that does not open "(anonymous namespace)". npos when there is none (extern "C" names). A '<'
// or '>' inside parentheses within template arguments is a comparison ("enable_if<((8)>(0))>"),
// not a bracket.
size_t ParameterListStart(std::string_view name) {
  int angle_depth = 0;
  int paren_depth = 0;  // parentheses inside template arguments
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (angle_depth > 0 && c == '(') {
      ++paren_depth;
    } else if (angle_depth > 0 && c == ')' && paren_depth > 0) {
      --paren_depth;
    } else if (paren_depth > 0) {
      continue;
    } else if (c == '<') {
      ++angle_depth;
    } else if (c == '>' && angle_depth > 0) {
      --angle_depth;
    } else if (c == '(' && angle_depth == 0) {
      if (name.substr(i).starts_with(kAnonymousNamespace)) {
        i += kAnonymousNamespace.size() - 1;
        continue;
      }
      // The call operator's own "()" is part of its name ("functor::operator()<float>(float*)").
      if (IsCallOperator(name, i)) {
        ++i;
        continue;
      }
      return i;
    }
  }
  return std::string_view::npos;
}

// Drops a trailing template argument list ("scale<float, 2>" -> "scale"); a '<' or '>' inside
// parentheses there is a comparison, not a bracket.
std::string_view StripTrailingTemplate(std::string_view name) {
  if (!name.ends_with('>')) return name;
  int depth = 0;
  int paren_depth = 0;
  for (size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++paren_depth;
    if (name[i] == '(' && paren_depth > 0) --paren_depth;
    if (paren_depth > 0) continue;
    if (name[i] == '>') ++depth;
    if (name[i] == '<' && --depth == 0) return name.substr(0, i);
  }
  return name;
}

}  // namespace

std::string DemangleKernelName(std::string_view mangled) {
  std::string copy(mangled);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(copy.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || demangled == nullptr) return copy;
  return std::string(demangled.get());
}

std::string ShortKernelName(std::string_view demangled) {
  std::string_view name = demangled.substr(0, ParameterListStart(demangled));
  name = StripTrailingTemplate(name);
  // The return type of a template function ("void scale") ends at the last space; inside
  // template arguments there is none left after the strip above.
  if (size_t space = name.rfind(' '); space != std::string_view::npos) {
    name = name.substr(space + 1);
  }
  if (size_t scope = name.rfind("::"); scope != std::string_view::npos) {
    name = name.substr(scope + 2);
  }
  return name.empty() ? std::string(demangled) : std::string(name);
}

}  // namespace gpuroof
