#include "gpuroof/analyses/window.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

namespace {

std::string FormatNs(int64_t ns) {
  double abs = std::fabs(static_cast<double>(ns));
  if (abs >= 1e9) return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
  if (abs >= 1e6) return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6);
  if (abs >= 1e3) return fmt::format("{:.3f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{} ns", ns);
}

std::string ListNvtxNames(const Trace& trace) {
  std::vector<uint32_t> seen;
  std::string out;
  for (const NvtxRange& range : trace.nvtx_ranges) {
    if (std::find(seen.begin(), seen.end(), range.name) != seen.end()) continue;
    seen.push_back(range.name);
    if (seen.size() > 8) {
      out += ", ...";
      break;
    }
    if (!out.empty()) out += ", ";
    out += fmt::format("'{}'", trace.strings.Get(range.name));
  }
  return out;
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

int64_t ParseDurationNs(std::string_view text, std::string_view source) {
  auto fail = [&]() -> int64_t {
    throw InputError(std::string(source),
                     fmt::format("'{}' is not a time (use ns, or a number with a us, ms or s "
                                 "suffix, e.g. 1.5ms)",
                                 text));
  };
  std::string_view number = text;
  double scale = 1.0;
  auto ends_with = [&number](std::string_view suffix) {
    return number.size() > suffix.size() && number.substr(number.size() - suffix.size()) == suffix;
  };
  if (ends_with("ns")) {
    number.remove_suffix(2);
  } else if (ends_with("us")) {
    number.remove_suffix(2);
    scale = 1e3;
  } else if (ends_with("ms")) {
    number.remove_suffix(2);
    scale = 1e6;
  } else if (ends_with("s")) {
    number.remove_suffix(1);
    scale = 1e9;
  }
  if (number.empty()) return fail();
  double value = 0;
  auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || ptr != number.data() + number.size() || !std::isfinite(value)) {
    return fail();
  }
  double ns = std::round(value * scale);
  if (std::fabs(ns) > 9.0e18) return fail();
  return static_cast<int64_t>(ns);
}

WindowSpec ParseWindowSpec(std::string_view text) {
  WindowSpec spec;
  spec.text = std::string(text);
  if (text == "processing") return spec;
  if (text == "all") {
    spec.kind = WindowSpec::Kind::kAll;
    return spec;
  }
  if (text == "steady") {
    spec.kind = WindowSpec::Kind::kSteady;
    return spec;
  }
  if (text.substr(0, 5) == "nvtx:") {
    spec.kind = WindowSpec::Kind::kNvtx;
    std::string_view rest = text.substr(5);
    size_t hash = rest.rfind('#');
    if (hash != std::string_view::npos) {
      std::string_view instance = rest.substr(hash + 1);
      if (instance == "*") {
        spec.instance = 0;
      } else {
        int value = 0;
        auto [ptr, ec] = std::from_chars(instance.data(), instance.data() + instance.size(), value);
        if (ec != std::errc() || ptr != instance.data() + instance.size() || value < 1) {
          throw InputError("--window", fmt::format("'{}': the instance after '#' must be a "
                                                   "number from 1, or '*' for all instances",
                                                   text));
        }
        spec.instance = value;
      }
      rest = rest.substr(0, hash);
    }
    if (rest.empty())
      throw InputError("--window", fmt::format("'{}': missing the range name", text));
    spec.nvtx_name = std::string(rest);
    return spec;
  }
  size_t colon = text.find(':');
  if (colon != std::string_view::npos) {
    spec.kind = WindowSpec::Kind::kRange;
    spec.start_ns = ParseDurationNs(text.substr(0, colon), "--window");
    spec.end_ns = ParseDurationNs(text.substr(colon + 1), "--window");
    if (spec.end_ns <= spec.start_ns) {
      throw InputError("--window", fmt::format("'{}': the end must be after the start", text));
    }
    return spec;
  }
  throw InputError("--window", fmt::format("unknown window policy '{}' (use processing, all, "
                                           "START:END such as 2ms:10ms, nvtx:NAME[#N|#*], or "
                                           "steady)",
                                           text));
}

Window ResolveWindow(const Trace& trace, const WindowSpec& spec, const DeviceSpan& device,
                     int64_t trace_first_start_ns, int64_t trace_last_end_ns) {
  Window window;
  window.text = spec.text;
  switch (spec.kind) {
    case WindowSpec::Kind::kProcessing:
      if (device.has_kernels) {
        window.policy = "processing";
        window.start_ns = device.first_kernel_start_ns;
        window.end_ns = device.last_kernel_end_ns;
        if (device.has_d2h) window.end_ns = std::max(window.end_ns, device.last_d2h_end_ns);
        return window;
      }
      window.note = "no kernel on this device: the processing window falls back to all GPU ops";
      [[fallthrough]];
    case WindowSpec::Kind::kAll:
      window.policy = "all";
      window.start_ns = device.first_start_ns;
      window.end_ns = device.last_end_ns;
      return window;
    case WindowSpec::Kind::kRange:
      window.policy = "range";
      window.start_ns = trace_first_start_ns + spec.start_ns;
      window.end_ns = trace_first_start_ns + spec.end_ns;
      break;
    case WindowSpec::Kind::kSteady: {
      // The processing window, cut where its warm-up ends.
      Window whole =
          ResolveWindow(trace, WindowSpec{}, device, trace_first_start_ns, trace_last_end_ns);
      return SteadyWindow(ComputeSteadyState(trace, device.device_id, whole, spec.steady_units),
                          spec.text);
    }
    case WindowSpec::Kind::kNvtx: {
      window.policy = "nvtx";
      std::vector<const NvtxRange*> ranges = FindNvtxRanges(trace, spec.nvtx_name);
      if (ranges.empty()) {
        std::string names = ListNvtxNames(trace);
        throw InputError(trace.source, fmt::format("no NVTX range named '{}' ({})", spec.nvtx_name,
                                                   names.empty() ? "the trace has no NVTX ranges"
                                                                 : "ranges include " + names));
      }
      if (spec.instance == 0) {
        window.start_ns = ranges.front()->start_ns;
        window.end_ns = ranges.front()->end_ns;
        for (const NvtxRange* range : ranges)
          window.end_ns = std::max(window.end_ns, range->end_ns);
      } else if (static_cast<size_t>(spec.instance) > ranges.size()) {
        throw InputError(trace.source, fmt::format("NVTX range '{}' has {} instance(s), no #{}",
                                                   spec.nvtx_name, ranges.size(), spec.instance));
      } else {
        const NvtxRange* range = ranges[static_cast<size_t>(spec.instance - 1)];
        window.start_ns = range->start_ns;
        window.end_ns = range->end_ns;
      }
      break;
    }
  }
  if (window.end_ns <= trace_first_start_ns || window.start_ns >= trace_last_end_ns ||
      window.end_ns <= window.start_ns) {
    throw InputError(trace.source,
                     fmt::format("window '{}' lies outside the trace's GPU activity, which spans "
                                 "{} from its first op (the window is {} to {})",
                                 spec.text, FormatNs(trace_last_end_ns - trace_first_start_ns),
                                 FormatNs(window.start_ns - trace_first_start_ns),
                                 FormatNs(window.end_ns - trace_first_start_ns)));
  }
  return window;
}

}  // namespace gpuroof
