#include "gpuroof/analyses/range_selection.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

// NAME@N or NAME@*: the base name and the instance (0 for '*'); nullopt when `text` is not of
// that form.
std::optional<std::pair<std::string_view, int>> SplitInstance(std::string_view text) {
  const size_t at = text.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == text.size()) return std::nullopt;
  std::string_view suffix = text.substr(at + 1);
  if (suffix == "*") return std::make_pair(text.substr(0, at), 0);
  int value = 0;
  auto [ptr, ec] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), value);
  if (ec != std::errc() || ptr != suffix.data() + suffix.size() || value < 1) return std::nullopt;
  return std::make_pair(text.substr(0, at), value);
}

// A NAME@N whose N is a whole number but no instance number (0, negative, or past int): why;
// empty otherwise.
std::string BadInstanceNumber(std::string_view text) {
  const size_t at = text.rfind('@');
  if (at == std::string_view::npos || at == 0 || at + 1 == text.size()) return {};
  std::string_view digits = text.substr(at + 1);
  if (digits.front() == '-' || digits.front() == '+') digits.remove_prefix(1);
  if (digits.empty() ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return {};
  }
  std::string_view suffix = text.substr(at + 1);
  if (suffix.front() == '+') suffix.remove_prefix(1);
  long long value = 0;
  auto [ptr, ec] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), value);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && value > INT_MAX)) {
    return fmt::format("instance number {} is too large", text.substr(at + 1));
  }
  if (ec == std::errc() && value < 1) {
    return fmt::format("instance numbers count from 1 (got @{})", text.substr(at + 1));
  }
  return {};
}

bool IsFamilyMatch(const Trace& trace, const std::vector<const NvtxRange*>& ranges,
                   std::string_view name) {
  if (ranges.empty()) return false;
  std::string_view first = trace.strings.Get(ranges.front()->name);
  return first != name && !NumberedFamily(first).empty();
}

}  // namespace

std::vector<const NvtxRange*> FindNvtxRanges(const Trace& trace, std::string_view name) {
  // "NAME#*" asks for the numbered family NAME#1, NAME#2, ... (Kineto's ProfilerStep#N).
  const bool family_only = name.ends_with("#*");
  if (family_only) name.remove_suffix(2);
  std::vector<const NvtxRange*> exact;
  std::vector<const NvtxRange*> undomained;
  std::vector<const NvtxRange*> numbered;
  for (const NvtxRange& range : trace.nvtx_ranges) {
    std::string_view full = trace.strings.Get(range.name);
    if (!family_only && full == name) {
      exact.push_back(&range);
    } else if (size_t colon = full.find(':');
               !family_only && colon != std::string_view::npos && full.substr(colon + 1) == name) {
      undomained.push_back(&range);
    } else if (NumberedFamily(full) == name) {
      numbered.push_back(&range);
    }
  }
  if (!exact.empty()) return exact;
  // A name without its domain must not merge two domains' ranges into one selection.
  for (const NvtxRange* range : undomained) {
    std::string_view other = trace.strings.Get(range->name);
    std::string_view first = trace.strings.Get(undomained.front()->name);
    if (other != first) {
      throw InputError(trace.source,
                       fmt::format("range name '{}' is in more than one domain ('{}', '{}'): give "
                                   "the full name",
                                   name, first, other));
    }
  }
  return undomained.empty() ? numbered : undomained;
}

std::string_view NumberedFamily(std::string_view name) {
  const size_t hash = name.rfind('#');
  if (hash == std::string_view::npos || hash + 1 == name.size()) return {};
  for (char c : name.substr(hash + 1)) {
    if (c < '0' || c > '9') return {};
  }
  return name.substr(0, hash);
}

std::string SomeRangeNames(const Trace& trace, std::string_view typed) {
  std::vector<std::string_view> names;
  for (const NvtxRange& range : trace.nvtx_ranges) {
    std::string_view name = trace.strings.Get(range.name);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  // A name copied from a text table may end in the "…" of a cut.
  constexpr std::string_view kEllipsis = "…";
  if (typed.ends_with(kEllipsis)) typed.remove_suffix(kEllipsis.size());
  auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string typed_lower = lower(typed);
  auto closeness = [&](std::string_view name) {
    if (typed_lower.empty()) return 2;
    const std::string name_lower = lower(name);
    if (name_lower.starts_with(typed_lower)) return 0;
    return name_lower.find(typed_lower) != std::string::npos ? 1 : 2;
  };
  std::sort(names.begin(), names.end(), [&](std::string_view a, std::string_view b) {
    const int ca = closeness(a);
    const int cb = closeness(b);
    return ca != cb ? ca < cb : a < b;
  });
  std::string list;
  const size_t shown = std::min<size_t>(names.size(), 8);
  for (size_t i = 0; i < shown; ++i)
    list += fmt::format("{}'{}'", i == 0 ? "" : ", ", names[i]);
  if (names.size() > shown) list += ", ...";
  return list;
}

std::string RangeSelection::Describe() const {
  if (instance > 0) return fmt::format("'{}' instance {} of {}", name, instance, instances_of_name);
  return fmt::format("'{}' ({} instance{})", name, ranges.size(), ranges.size() == 1 ? "" : "s");
}

RangeSelection SelectRanges(const Trace& trace, std::string_view text, std::string_view option) {
  RangeSelection by_name;
  by_name.text = std::string(text);
  by_name.ranges = FindNvtxRanges(trace, text);
  by_name.instances_of_name = by_name.ranges.size();
  by_name.family = text.ends_with("#*") || IsFamilyMatch(trace, by_name.ranges, text);
  by_name.name =
      by_name.family && !text.ends_with("#*") ? std::string(text) + "#*" : std::string(text);

  std::optional<RangeSelection> by_instance;
  std::string instance_problem;
  if (const std::string bad = BadInstanceNumber(text); !bad.empty()) {
    const std::string_view base = text.substr(0, text.rfind('@'));
    std::vector<const NvtxRange*> all = FindNvtxRanges(trace, base);
    if (!all.empty()) {
      const bool add_star = !base.ends_with("#*") && IsFamilyMatch(trace, all, base);
      const std::string name = std::string(base) + (add_star ? "#*" : "");
      instance_problem = fmt::format("{}; range '{}' has {} instance(s), @1 to @{}", bad, name,
                                     all.size(), all.size());
    }
  } else if (auto split = SplitInstance(text)) {
    const auto [base, instance] = *split;
    std::vector<const NvtxRange*> all = FindNvtxRanges(trace, base);
    if (!all.empty()) {
      RangeSelection selection;
      selection.text = std::string(text);
      selection.family = base.ends_with("#*") || IsFamilyMatch(trace, all, base);
      selection.name =
          selection.family && !base.ends_with("#*") ? std::string(base) + "#*" : std::string(base);
      selection.instances_of_name = all.size();
      selection.instance = instance;
      if (instance == 0) {
        selection.ranges = std::move(all);
        by_instance = std::move(selection);
      } else if (static_cast<size_t>(instance) <= all.size()) {
        selection.ranges = {all[static_cast<size_t>(instance - 1)]};
        by_instance = std::move(selection);
      } else {
        instance_problem = fmt::format("range '{}' has {} instance(s), no @{}", selection.name,
                                       all.size(), instance);
      }
    }
  }

  if (!by_name.ranges.empty() && by_instance) {
    throw InputError(
        trace.source,
        fmt::format("{} '{}' is ambiguous: it names range '{}' ({} instance(s)) and "
                    "reads as {}; rename one of the ranges",
                    option, text, text, by_name.ranges.size(), by_instance->Describe()));
  }
  if (!by_name.ranges.empty()) return by_name;
  if (by_instance) return *by_instance;
  if (!instance_problem.empty()) {
    throw InputError(trace.source, fmt::format("{} '{}': {}", option, text, instance_problem));
  }
  std::string hint;
  if (const size_t hash = text.rfind('#'); hash != std::string_view::npos && hash > 0) {
    std::string_view base = text.substr(0, hash);
    std::string_view number = text.substr(hash + 1);
    if (!number.empty() &&
        std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        !FindNvtxRanges(trace, base).empty()) {
      hint =
          fmt::format("; instance {} of range '{}' is written {}@{}", number, base, base, number);
    }
  }
  // Ranges the reader skipped for having no end (never closed before the capture ended) may
  // include the one asked for: said, not left to a warning `-q` hides.
  int64_t without_end = 0;
  for (const SkipCount& skip : trace.diagnostics.skips()) {
    if (skip.reason == "range without end") without_end += skip.count;
  }
  if (without_end > 0) {
    hint += fmt::format(
        "; {} range(s) without an end were skipped (never closed before the capture ended): it "
        "may be one of them",
        without_end);
  }
  const std::string names = SomeRangeNames(trace, text);
  throw InputError(trace.source,
                   fmt::format("{}: no NVTX range named '{}' ({}){}", option, text,
                               names.empty() ? "the trace has no NVTX or annotation ranges"
                                             : "ranges include " + names,
                               hint));
}

}  // namespace gpuroof
