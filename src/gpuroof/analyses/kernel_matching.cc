#include "gpuroof/analyses/kernel_matching.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "gpuroof/model/edit_distance.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/model/kernel_names.h"

namespace gpuroof {

namespace {

std::string QuotedList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names)
    out += (out.empty() ? "'" : ", '") + name + "'";
  return out;
}

}  // namespace

std::string KernelMatch::Disclosure(const std::string& typed) const {
  size_t count = static_cast<size_t>(std::count(signatures.begin(), signatures.end(), true));
  switch (rule) {
    case KernelMatchRule::kExact:
      return "";
    case KernelMatchRule::kBaseName:
      return fmt::format(
          "kernel '{}' matched by its base name '{}' ({} launch shape(s) or "
          "signatures)",
          typed, base_name, count);
    case KernelMatchRule::kSubstring:
      return fmt::format(
          "kernel '{}' taken as the one kernel whose name contains it: '{}' ({} "
          "launch shape(s) or signatures)",
          typed, base_name, count);
  }
  return "";
}

KernelMatch MatchKernelSignatures(const Trace& trace, const std::string& typed) {
  const size_t n = trace.signatures.size();
  std::vector<std::string> base(n);
  std::vector<bool> kernel(n, false);
  for (size_t s = 0; s < n; ++s) {
    const OpSignature& signature = trace.signatures[s];
    kernel[s] = IsKernelEngine(signature.engine);
    if (kernel[s]) base[s] = ShortKernelName(trace.strings.Get(signature.name));
  }
  auto match = [&](auto&& rule) {
    std::vector<bool> matches(n, false);
    bool any = false;
    for (size_t s = 0; s < n; ++s) {
      matches[s] = kernel[s] && rule(s);
      any = any || matches[s];
    }
    return any ? matches : std::vector<bool>{};
  };
  KernelMatch found;
  found.signatures = match([&](size_t s) {
    const OpSignature& signature = trace.signatures[s];
    return trace.strings.Get(signature.name) == typed ||
           trace.strings.Get(signature.detail_name) == typed;
  });
  if (!found.signatures.empty()) {
    for (size_t s = 0; s < n && found.base_name.empty(); ++s) {
      if (found.signatures[s]) found.base_name = base[s];
    }
    return found;
  }
  found.signatures = match([&](size_t s) { return base[s] == typed; });
  if (!found.signatures.empty()) {
    found.rule = KernelMatchRule::kBaseName;
    found.base_name = typed;
    return found;
  }

  // A substring: it must name one kernel (one base name), or the choice would be a guess.
  std::map<std::string, size_t> containing;  // base name -> signatures
  for (size_t s = 0; s < n; ++s) {
    if (!kernel[s]) continue;
    const OpSignature& signature = trace.signatures[s];
    if (trace.strings.Get(signature.name).find(typed) != std::string_view::npos ||
        trace.strings.Get(signature.detail_name).find(typed) != std::string_view::npos) {
      ++containing[base[s]];
    }
  }
  if (containing.size() == 1) {
    found.rule = KernelMatchRule::kSubstring;
    found.base_name = containing.begin()->first;
    found.signatures = match([&](size_t s) { return base[s] == found.base_name; });
    return found;
  }
  if (containing.size() > 1) {
    std::vector<std::string> some;
    for (const auto& [name, count] : containing) {
      if (some.size() == 5) break;
      some.push_back(name);
    }
    throw InputError(
        trace.source,
        fmt::format("'{}' is part of {} kernels' names ({}{}): name one whole", typed,
                    containing.size(), QuotedList(some), containing.size() > 5 ? ", ..." : ""));
  }
  std::vector<std::pair<size_t, std::string>> distances;
  for (size_t s = 0; s < n; ++s) {
    if (!kernel[s]) continue;
    std::pair<size_t, std::string> entry{EditDistance(typed, base[s]), base[s]};
    if (std::find(distances.begin(), distances.end(), entry) == distances.end()) {
      distances.push_back(entry);
    }
  }
  if (distances.empty()) {
    throw InputError(trace.source,
                     fmt::format("no kernel named '{}' (the trace has no kernels)", typed));
  }
  std::sort(distances.begin(), distances.end());
  std::vector<std::string> closest;
  for (size_t i = 0; i < distances.size() && i < 5; ++i)
    closest.push_back(distances[i].second);
  throw InputError(trace.source,
                   fmt::format("no kernel named '{}' (closest: {})", typed, QuotedList(closest)));
}

}  // namespace gpuroof
