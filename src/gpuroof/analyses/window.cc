#include "gpuroof/analyses/window.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "gpuroof/analyses/device_steps.h"
#include "gpuroof/analyses/segments.h"
#include "gpuroof/analyses/steady_state.h"
#include "gpuroof/model/errors.h"

namespace gpuroof {

std::string FormatDurationNs(int64_t ns) {
  double abs = std::fabs(static_cast<double>(ns));
  if (abs >= 1e9) return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
  if (abs >= 1e6) return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6);
  if (abs >= 1e3) return fmt::format("{:.3f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{} ns", ns);
}

namespace {

// Whether a well-formed decimal number that std::from_chars found beyond double's range is too
// large rather than too small: the sign of its order of magnitude (beyond +-300 either way), from
// where its first nonzero digit stands and its exponent. No locale is involved, unlike strtod.
bool OrderIsPositive(std::string_view number) {
  const size_t e = number.find_first_of("eE");
  const std::string_view mantissa = number.substr(0, e);
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view digits = number.substr(e + 1);
    if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), exponent);
    if (ec == std::errc::result_out_of_range) return digits.front() != '-';
  }
  const size_t point = std::min(mantissa.find('.'), mantissa.size());
  const size_t first = mantissa.find_first_of("123456789");
  if (first == std::string_view::npos) return false;
  // "123" is of order 2, "0.001" of order -3.
  const int64_t order = first < point ? static_cast<int64_t>(point - first) - 1
                                      : -static_cast<int64_t>(first - point);
  return exponent > -order;
}

}  // namespace

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
  const bool whole = ptr == number.data() + number.size();
  if (ec == std::errc::result_out_of_range && whole) {
    // A number beyond double's range ("1e400s") is too large a time, not a malformed one; one
    // too small for it ("1e-400s") is 0.
    const double huge = std::numeric_limits<double>::infinity();
    value = !OrderIsPositive(number) ? 0.0 : number.front() == '-' ? -huge : huge;
  } else if (ec != std::errc() || !whole || !std::isfinite(value)) {
    return fail();
  }
  double ns = std::round(value * scale);
  if (!(std::fabs(ns) <= 9.0e18)) {
    throw InputError(std::string(source),
                     fmt::format("'{}' is too large: a time is at most 9e18 ns (9e9 s, about 285 "
                                 "years) either way{}",
                                 text,
                                 source == "--window"
                                     ? ", and less on a trace whose clock does not start near 0 "
                                       "(e.g. Kineto's, in ns since 1970: about 7.5e9 s)"
                                     : ""));
  }
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
    // The name is resolved against each trace (SelectRanges): "ProfilerStep#7" is a name, an
    // instance is NAME@N.
    spec.kind = WindowSpec::Kind::kNvtx;
    spec.nvtx_name = std::string(text.substr(5));
    if (spec.nvtx_name.empty())
      throw InputError("--window", fmt::format("'{}': missing the range name", text));
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
                                           "START:END such as 2ms:10ms, nvtx:NAME[@N|@*], or "
                                           "steady)",
                                           text));
}

namespace {

// The ops of any device that count in one of the instances' intervals by the window rule
// (OpCountsInWindow): the instances merged into disjoint spans, each op checked against the
// last span starting before its end (at or before it, for an op of zero length): an op reaching
// no further than that span's start cannot reach back into an earlier one.
OpSelection SelectOpsRunningIn(const Trace& trace, const RangeSelection& selection) {
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (const NvtxRange* range : selection.ranges)
    spans.emplace_back(range->start_ns, range->end_ns);
  std::sort(spans.begin(), spans.end());
  Segments merged;
  for (const auto& [start, end] : spans)
    AppendMerged(merged, start, end);
  OpSelection chosen;
  chosen.selected.reserve(trace.blocks.size());
  for (const ActivityBlock& block : trace.blocks) {
    std::vector<bool>& in = chosen.selected.emplace_back(block.size(), false);
    for (size_t i = 0; i < block.size(); ++i) {
      const int64_t start = block.start_ns[i];
      const int64_t end = block.end_ns[i];
      const bool point = start == end;
      auto after = std::partition_point(merged.begin(), merged.end(), [&](const auto& span) {
        return point ? span.first <= end : span.first < end;
      });
      if (after == merged.begin()) continue;
      Window span;
      span.start_ns = std::prev(after)->first;
      span.end_ns = std::prev(after)->second;
      in[i] = OpCountsInWindow(start, end, span);
    }
  }
  return chosen;
}

}  // namespace

Window RangeWorkWindow(const Trace& trace, const RangeSelection& selection,
                       const RangeAttribution& attribution, int32_t device_id) {
  Window window;
  window.policy = "nvtx";
  window.text = "nvtx:" + selection.text;
  window.resolved = selection.Describe();
  // The ranges' own interval: the window when work is attributed by time overlap, or when none
  // of it ran on this device.
  int64_t range_start = selection.ranges.front()->start_ns;
  int64_t range_end = selection.ranges.front()->end_ns;
  for (const NvtxRange* range : selection.ranges) {
    range_start = std::min(range_start, range->start_ns);
    range_end = std::max(range_end, range->end_ns);
  }
  const bool on_gpu = std::all_of(selection.ranges.begin(), selection.ranges.end(),
                                  [](const NvtxRange* range) { return range->on_gpu; });
  if (attribution.method == AttributionMethod::kTimeOverlap || on_gpu) {
    window.note = on_gpu ? "GPU-timeline range: every op running in it counts (time overlap)"
                         : attribution.method_note;
    // One capture of several processes (ranks of a node): the device's window spans the ranges
    // of the process driving it, and counts the ops running in them, not in another rank's,
    // which run on their own clock offset. What is left out (or guessed) is said.
    RangeSelection own = selection;
    if (!on_gpu) {
      std::string left_out;
      own.ranges = DeviceProcessSteps(trace, device_id, selection.ranges, &left_out);
      if (!left_out.empty()) window.note += "; " + left_out;
    }
    window.start_ns = own.ranges.front()->start_ns;
    window.end_ns = own.ranges.front()->end_ns;
    for (const NvtxRange* range : own.ranges) {
      window.start_ns = std::min(window.start_ns, range->start_ns);
      window.end_ns = std::max(window.end_ns, range->end_ns);
    }
    // Several instances: the ops running in one of them, on any device (as one instance's
    // window counts them), not those between them (the span holds both).
    if (own.ranges.size() > 1) {
      window.work = std::make_shared<const OpSelection>(SelectOpsRunningIn(trace, own));
      window.note += "; ops running between the instances do not count";
    }
    return window;
  }
  bool any = false;
  std::set<const void*> seen;  // an op list shared by identical instances is scanned once
  for (const RangeInstanceWork& instance : attribution.instances) {
    if (!seen.insert(instance.ops.storage()).second) continue;
    for (OpRef op : instance.ops) {
      const ActivityBlock& block = trace.blocks[op.block];
      if (trace.streams[block.stream[op.index]].device_id != device_id) continue;
      window.start_ns =
          any ? std::min(window.start_ns, block.start_ns[op.index]) : block.start_ns[op.index];
      window.end_ns =
          any ? std::max(window.end_ns, block.end_ns[op.index]) : block.end_ns[op.index];
      any = true;
    }
  }
  window.work = std::make_shared<const OpSelection>(SelectAttributedOps(trace, attribution));
  if (!any) {
    window.start_ns = range_start;
    window.end_ns = range_end;
    window.note = fmt::format("range {} launched no GPU work on this device", window.resolved);
  } else if (attribution.other_thread_ops > 0) {
    window.note = OtherThreadNote(attribution.other_thread_ops);
  }
  return window;
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
        if (window.end_ns > window.start_ns) return window;
        // Whole-microsecond traces give sub-microsecond kernels no duration.
        window.note =
            "the kernels on this device take no time: the processing window falls back to all "
            "GPU ops";
      } else {
        window.note = "no kernel on this device: the processing window falls back to all GPU ops";
      }
      [[fallthrough]];
    case WindowSpec::Kind::kAll:
      window.policy = "all";
      window.start_ns = device.first_start_ns;
      window.end_ns = device.last_end_ns;
      return window;
    case WindowSpec::Kind::kRange: {
      window.policy = "range";
      // Times are from the trace's first op, whose clock may be far from 0 (Kineto: ns since
      // 1970, about 1.7e18): the sum must fit int64.
      const bool start_over =
          __builtin_add_overflow(trace_first_start_ns, spec.start_ns, &window.start_ns);
      const bool end_over =
          __builtin_add_overflow(trace_first_start_ns, spec.end_ns, &window.end_ns);
      if (start_over || end_over) {
        const bool late = end_over ? spec.end_ns > 0 : spec.start_ns > 0;
        throw InputError(
            trace.source,
            fmt::format(
                "--window '{}' is too large for this trace's clock: its first GPU op is "
                "at {} ns, so a time is at most {} {} that op",
                spec.text, trace_first_start_ns,
                FormatDurationNs(late ? std::numeric_limits<int64_t>::max() - trace_first_start_ns
                                      : trace_first_start_ns - std::numeric_limits<int64_t>::min()),
                late ? "after" : "before"));
      }
      break;
    }
    case WindowSpec::Kind::kSteady: {
      // The processing window, cut where its warm-up ends.
      Window whole =
          ResolveWindow(trace, WindowSpec{}, device, trace_first_start_ns, trace_last_end_ns);
      return SteadyWindow(
          trace, ComputeSteadyState(trace, device.device_id, whole, spec.steady_units), spec.text);
    }
    case WindowSpec::Kind::kNvtx: {
      RangeSelection selection = SelectRanges(trace, spec.nvtx_name, "--window");
      if (selection.instance == 0 && selection.ranges.size() > 1 && !selection.family &&
          !spec.nvtx_name.ends_with("@*")) {
        throw InputError(trace.source,
                         fmt::format("--window nvtx:{}: range '{}' has {} instances; choose one "
                                     "with nvtx:{}@N (1 to {}), or all with nvtx:{}@*",
                                     spec.nvtx_name, selection.name, selection.ranges.size(),
                                     spec.nvtx_name, selection.ranges.size(), spec.nvtx_name));
      }
      // GPU-timeline copies beside CPU instances are not instances of their own (as for units).
      std::string copies_note;
      if (selection.instance == 0) {
        DropGpuCopiesBesideCpu(selection.ranges, "'" + selection.name + "'", &copies_note);
      }
      Window work = RangeWorkWindow(trace, selection,
                                    AttributeGpuWork(trace, selection.ranges, spec.nvtx_scope),
                                    device.device_id);
      work.text = spec.text;
      if (!copies_note.empty()) {
        work.note = work.note.empty() ? copies_note : work.note + "; " + copies_note;
      }
      return work;
    }
  }
  if (window.end_ns <= trace_first_start_ns || window.start_ns >= trace_last_end_ns ||
      window.end_ns <= window.start_ns) {
    throw InputError(
        trace.source,
        fmt::format("window '{}' lies outside the trace's GPU activity, which spans "
                    "{} from its first op (the window is {} to {})",
                    spec.text, FormatDurationNs(trace_last_end_ns - trace_first_start_ns),
                    FormatDurationNs(window.start_ns - trace_first_start_ns),
                    FormatDurationNs(window.end_ns - trace_first_start_ns)));
  }
  // A window running past the last GPU op (or starting before the first) counts time the trace
  // may never have recorded as idle (a typo such as 10s for 10ms dilutes every duty cycle): kept
  // as asked, and said.
  if (window.start_ns < trace_first_start_ns) {
    window.note = fmt::format(
        "the window starts {} before the trace's first GPU op; that time counts as idle",
        FormatDurationNs(trace_first_start_ns - window.start_ns));
  }
  if (window.end_ns > trace_last_end_ns) {
    if (!window.note.empty()) window.note += "; ";
    window.note += fmt::format(
        "the window ends {} after the trace's last GPU op ({} from its first op); that time "
        "counts as idle",
        FormatDurationNs(window.end_ns - trace_last_end_ns),
        FormatDurationNs(trace_last_end_ns - trace_first_start_ns));
  }
  return window;
}

}  // namespace gpuroof
