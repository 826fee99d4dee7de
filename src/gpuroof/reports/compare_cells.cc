#include "gpuroof/reports/compare_cells.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "gpuroof/format/number_format.h"
#include "gpuroof/model/kernel_names.h"

namespace gpuroof {

std::string RatioPercent(double ratio, int decimals) {
  double percent = 100.0 * (ratio - 1.0);
  // Rounding noise around 1 (a geometric mean of equal values) would print as "-0.0%".
  if (std::fabs(percent) < 0.5 * std::pow(10.0, -decimals)) percent = 0.0;
  return fmt::format("{:+.{}f}%", percent, decimals);
}

std::string MetricLabel(const MetricComparison& m) {
  std::string label;
  switch (m.level) {
    case MetricLevel::kIteration:
      label = fmt::format("iteration time [{}]", m.name);
      break;
    case MetricLevel::kGpuBusy:
      label = "GPU compute busy / iter" +
              (m.name.size() > 6 ? m.name.substr(6) : std::string());  // " [dev N]"
      break;
    case MetricLevel::kCopyBusy:
      label = fmt::format("copy {} busy / iter", m.name);
      break;
    case MetricLevel::kCommBusy:
      label = fmt::format("{} busy / iter", m.name);
      break;
    case MetricLevel::kRange:
      label = fmt::format("range [{}]", m.name);
      break;
    case MetricLevel::kIdle:
      label = "GPU idle / iter" + (m.name.size() > 8 ? m.name.substr(8) : std::string());
      break;
    case MetricLevel::kKernel:
      label = "kernel " + m.name;
      break;
    case MetricLevel::kLaunches:
      label = "launches / iter";
      break;
    case MetricLevel::kBytes:
      label = "bytes / iter";
      break;
    case MetricLevel::kEngineTotal:
      label = fmt::format("engine {} busy (whole profile)", m.name);
      break;
    case MetricLevel::kKernelTotal:
      // History mode names its row "compute kernel time / launch (this run's mix)".
      label =
          m.name == "compute kernels" ? std::string("compute kernel time (baseline mix)") : m.name;
      break;
  }
  if (!m.gated) label += " (report)";
  return label;
}

namespace {

// A count per iteration: a median of an even number of iterations can be a half (0.5 launches),
// which must not print as 0 or 1. Whole values print without decimals; "-0" never prints.
std::string CountText(double value, bool sign) {
  if (value == 0) return sign ? "+0" : "0";
  return sign ? fmt::format("{:+}", value) : fmt::format("{}", value);
}

}  // namespace

std::string SideValue(const MetricComparison& m, const std::optional<SideSummary>& side) {
  if (!side || side->n == 0) return "-";
  switch (m.level) {
    case MetricLevel::kLaunches:
      return CountText(side->median, false);
    case MetricLevel::kBytes:
      return HumanBytes(side->median);
    default:
      return HumanDurationNs(side->median);
  }
}

std::string SideValueWithSpread(const MetricComparison& m, const std::optional<SideSummary>& side) {
  std::string value = SideValue(m, side);
  if (!side || side->n < 2 || m.method == "exact" || m.level == MetricLevel::kKernelTotal)
    return value;
  return fmt::format("{} ±{:.1f}%", value, 100.0 * side->iqr_rel / 2.0);
}

std::string DeltaCell(const MetricComparison& m) {
  if (m.method == "exact" && m.delta) {
    // fmt::format, not string +: GCC 12 sees a false -Wrestrict overlap in the latter at -O3.
    const std::string delta =
        m.level == MetricLevel::kBytes
            ? fmt::format("{}{}", *m.delta >= 0 ? "+" : "-", HumanBytes(std::fabs(*m.delta)))
            : CountText(*m.delta, true);
    return fmt::format("{} (exact)", delta);
  }
  if (m.level == MetricLevel::kIdle && m.delta) {
    // A shift in time, not a ratio: idle time can be ~0.
    auto signed_duration = [](double ns) {
      return fmt::format("{}{}", ns < 0 ? "-" : "+", HumanDurationNs(std::fabs(ns)));
    };
    std::string cell = signed_duration(*m.delta);
    if (m.delta_ci_low && m.delta_ci_high) {
      cell += fmt::format(" [{}, {}]", signed_duration(*m.delta_ci_low),
                          signed_duration(*m.delta_ci_high));
    } else {
      cell += " (low n)";
    }
    if (m.delta_of_iteration)
      cell += fmt::format(" ({:+.1f}% of iter)", 100 * *m.delta_of_iteration);
    return cell;
  }
  if (!m.ratio) return "-";
  if (!m.ci_low || !m.ci_high) return fmt::format("{} (low n)", RatioPercent(*m.ratio));
  return fmt::format("{} [{}, {}]", RatioPercent(*m.ratio), RatioPercent(*m.ci_low),
                     RatioPercent(*m.ci_high));
}

std::string PValueCell(const MetricComparison& m) {
  if (!m.p_value) return "-";
  const double p = m.p_adjusted.value_or(*m.p_value);
  if (p < 1e-9) return "<1e-9";
  return fmt::format("{:.2g}", p);
}

std::string CountCell(const MetricComparison& m) {
  auto n = [](const std::optional<SideSummary>& side) {
    return side ? std::to_string(side->n) : std::string("-");
  };
  return n(m.baseline) + "/" + n(m.current);
}

std::string VerdictCell(const MetricComparison& m) {
  std::string cell(VerdictLabel(m.verdict));
  if (m.verdict == Verdict::kLowN && m.low_n_over_threshold) cell += " (over threshold)";
  // The impact matters where the interval says something changed (or may have).
  if (m.impact && (m.verdict == Verdict::kRegressed || m.verdict == Verdict::kImproved ||
                   m.verdict == Verdict::kInconclusive || m.verdict == Verdict::kWithinNoise)) {
    cell += fmt::format(" (impact {:+.1f}%)", 100.0 * *m.impact);
  }
  return cell;
}

std::string ShortKernelLabel(const std::string& kernel_key, const std::string& full,
                             std::string_view suffix) {
  const size_t shape = kernel_key.find(" <<<");
  const std::string base = ShortKernelName(kernel_key.substr(0, shape));
  if (base.empty()) return full;
  return fmt::format("kernel {}{}{}", base,
                     shape == std::string::npos ? "" : kernel_key.substr(shape), suffix);
}

void NumberAlikeLabels(std::vector<std::string>& shown, const std::vector<std::string>& full) {
  std::map<std::string, std::vector<std::string>> full_labels;  // shown -> distinct full labels
  for (size_t i = 0; i < shown.size(); ++i) {
    std::vector<std::string>& seen = full_labels[shown[i]];
    if (std::find(seen.begin(), seen.end(), full[i]) == seen.end()) seen.push_back(full[i]);
  }
  for (size_t i = 0; i < shown.size(); ++i) {
    const std::vector<std::string>& seen = full_labels[shown[i]];
    if (seen.size() < 2) continue;
    const size_t index = std::find(seen.begin(), seen.end(), full[i]) - seen.begin();
    shown[i] += fmt::format(" #{}", index + 1);
  }
}

// A metric label cut to `width`: what tells rows apart is at its end (a kernel's launch shape,
// "(report)", a " #2"), so the name before it is cut with "…" and the end kept; the launch shape
// goes first when both do not fit, then the whole label is cut.
std::string ShortenMetricLabel(const std::string& label, size_t width) {
  constexpr size_t kLeastHead = 24;  // "kernel " and 17 characters of the name
  const size_t shape = label.find(" <<<");
  size_t mark = label.rfind(" (report)");
  if (mark == std::string::npos) {
    // A trailing " #N" given by TextLabels.
    const size_t number = label.rfind(" #");
    if (number != std::string::npos && number + 2 < label.size() &&
        label.find_first_not_of("0123456789", number + 2) == std::string::npos) {
      mark = number;
    }
  }
  // Kept ends, longest first: from the launch shape on; then "(report)" or the number alone.
  for (const size_t end_at : {shape, mark}) {
    if (end_at == std::string::npos) continue;
    const std::string head = label.substr(0, std::min(shape, end_at));
    const std::string end = label.substr(end_at);
    const size_t end_width = DisplayWidth(end);
    if (end_width + kLeastHead > width) continue;
    const size_t room = width - end_width;
    // A launch shape left out between them is marked as a cut is.
    if (head.size() < end_at && DisplayWidth(head) < room) return head + "…" + end;
    return CutToWidth(head, room) + end;
  }
  return CutToWidth(label, width);
}

TextTableOptions CompareTableOptions(std::string whole_names_in) {
  TextTableOptions options;
  options.indent = "";
  options.names_last = false;  // the metric stays the first column
  options.shorten_name = ShortenMetricLabel;
  options.whole_names_in = std::move(whole_names_in);
  return options;
}

// "a.sqlite  1 profile  NVIDIA H200  steady iters 480/500 (warm-up 20 dropped)".
std::string SideLine(const std::vector<ProfileSummary>& profiles) {
  if (profiles.empty()) return "-";
  std::string paths;
  size_t iterations = 0;
  size_t steady = 0;
  size_t dropped = 0;
  for (const ProfileSummary& p : profiles) {
    paths += (paths.empty() ? "" : ", ") + p.path;
    iterations += p.iterations;
    steady += p.steady_iterations;
    dropped += p.warmup_dropped;
  }
  std::string line = fmt::format("{}  {} profile{}  {}", paths, profiles.size(),
                                 profiles.size() == 1 ? "" : "s", profiles.front().device_model);
  if (profiles.front().has_iterations) {
    line += fmt::format("  steady iters {}/{} (warm-up {} dropped)", steady, iterations, dropped);
  } else {
    line += "  per-launch samples (no iterations)";
  }
  return line;
}

std::string ModeLine(const CompareResult& r) {
  const GateSettings& s = r.settings;
  if (s.across_hardware) {
    return fmt::format("mode: EXPLORATORY across hardware, not a gate ({} statistics)  alpha={:g}",
                       CompareModeName(r.mode), s.alpha);
  }
  auto percent = [](double fraction) { return fmt::format("{:g}%", 100.0 * fraction); };
  switch (r.mode) {
    case CompareMode::kSingleRun:
      return fmt::format(
          "mode: single-run  alpha={:g}  min-effect={}  floor={} (kernels {})  "
          "target={}",
          s.alpha, percent(s.min_effect), percent(s.floor_time), percent(s.floor_kernel),
          percent(s.target));
    case CompareMode::kMultiRun:
      return fmt::format(
          "mode: multi-run (run-level pooled t)  alpha={:g}  min-effect={}  "
          "floor=0  target={}",
          s.alpha, percent(s.min_effect), percent(s.target));
    case CompareMode::kHistory:
      break;
  }
  return fmt::format(
      "mode: history (one-sided prediction interval)  alpha={:g}  min-effect={}  "
      "target={}",
      s.alpha, percent(s.min_effect), percent(s.target));
}

std::string SummaryLine(const CompareResult& r) {
  const CompareSummary& s = r.summary;
  std::string rows;
  for (const auto& [verdict, count] : s.rows)
    rows += fmt::format("{}{} {}", rows.empty() ? "" : ", ", count, VerdictLabel(verdict));
  const std::string below = s.below_impact == 0
                                ? std::string()
                                : fmt::format(" + {} kernel{} under the impact threshold",
                                              s.below_impact, s.below_impact == 1 ? "" : "s");
  return fmt::format(
      "{} metric{}: {} gated{} ({} checked, {} LOW-N, {} inconclusive; {} regressed), {} "
      "report-only; rows: {}",
      r.metrics.size(), r.metrics.size() == 1 ? "" : "s", s.gated, below, s.checked, s.low_n,
      s.inconclusive, s.regressed, s.reported, rows.empty() ? "none" : rows);
}

std::string ResultLine(const CompareResult& r) {
  std::string reasons;
  for (const std::string& reason : r.verdict_reasons)
    reasons += (reasons.empty() ? "" : "; ") + reason;
  const std::string exit = fmt::format(" -> exit {}", r.exit_code);
  if (r.verdict == "regression") {
    return fmt::format("REGRESSION ({} gated metric{}){}", r.summary.failed,
                       r.summary.failed == 1 ? "" : "s", exit);
  }
  if (r.verdict == "inconclusive")
    return "INCONCLUSIVE (--fail-on inconclusive): " + reasons + exit;
  if (r.verdict == "exploratory") {
    return fmt::format("EXPLORATORY (across hardware, not a gate){}{}",
                       r.exit_code == 1 ? ": --fail-on matched" : "", exit);
  }
  if (r.verdict == "pass-with-warnings") return "PASS WITH WARNINGS: " + reasons + exit;
  return fmt::format("PASS ({} gated, all checked, none regressed){}", r.summary.gated, exit);
}

std::string HistoryRunsText(const CompareResult& r) {
  std::string text = fmt::format("{} run{} used", r.history_used, r.history_used == 1 ? "" : "s");
  const size_t left_out = r.history_entries - std::min(r.history_entries, r.history_used);
  if (left_out == 0) return text + ", none left out";
  return fmt::format("{}; {} left out: {}", text, left_out, fmt::join(r.history_left_out, "; "));
}

std::string DevicesLine(const CompareResult& r) {
  if (r.device_matching == "id") {
    return fmt::format(
        "devices: several active GPUs per profile, matched by id (baseline {}, "
        "current {})",
        fmt::join(r.baseline_devices, ","), fmt::join(r.current_devices, ","));
  }
  if (r.baseline_devices.empty() || r.baseline_devices == r.current_devices) return "";
  return fmt::format(
      "devices: one active GPU per profile, matched by position (baseline device {}, current "
      "device {})",
      fmt::join(r.baseline_devices, ","), fmt::join(r.current_devices, ","));
}

bool HasKernelTrims(const CompareResult& r) {
  for (const MetricComparison& m : r.metrics)
    if (m.baseline_trim || m.current_trim) return true;
  return false;
}

std::string TrimCell(const MetricComparison& m) {
  auto dropped = [](const std::optional<WarmupTrim>& t) {
    return t ? std::to_string(t->dropped) : std::string("-");
  };
  std::string cell = dropped(m.baseline_trim) + "/" + dropped(m.current_trim);
  const bool unsteady = (m.baseline_trim && m.baseline_trim->no_steady_state > 0) ||
                        (m.current_trim && m.current_trim->no_steady_state > 0);
  return unsteady ? cell + " (no steady state)" : cell;
}

}  // namespace gpuroof
