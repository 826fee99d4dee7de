// Cell texts shared by the text and Markdown renderings of `gpuroof compare`, so both print a
// metric the same way.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpuroof/analyses/regression/gate.h"

namespace gpuroof {

// "iteration time [train_step]", "GPU compute busy / iter", "kernel NAME", "copy H2D busy / iter
// (report)", "launches / iter".
std::string MetricLabel(const MetricComparison& m);
// A side's median in the metric's unit: "41.200 ms", "212", "1.05 MB"; "-" when absent.
std::string SideValue(const MetricComparison& m, const std::optional<SideSummary>& side);
// "41.200 ms ±0.4%" (± half the relative interquartile range), or just the value.
std::string SideValueWithSpread(const MetricComparison& m, const std::optional<SideSummary>& side);
// "+5.2% [+4.8%, +5.6%]", "+2 (exact)", "+5.2% (low n)", "-".
std::string DeltaCell(const MetricComparison& m);
// "<1e-9", "0.0011", "-".
std::string PValueCell(const MetricComparison& m);
// "480/478" (samples, or runs in multi-run mode).
std::string CountCell(const MetricComparison& m);
// "REGRESSED (impact +2.9%)", "~", "LOW-N (over threshold)".
std::string VerdictCell(const MetricComparison& m);
// "a.sqlite  1 profile  NVIDIA H200  steady iters 480/500 (warm-up 20 dropped)".
std::string SideLine(const std::vector<ProfileSummary>& profiles);
// "mode: single-run  alpha=0.01  min-effect=2%  floor=3% (kernels 5%)  target=5%".
std::string ModeLine(const CompareResult& result);
// The start and end of a label longer than ~110 characters, "..." between.
std::string ShortenedLabel(const std::string& label);
// A signed percentage of a ratio: 1.052 -> "+5.2%".
std::string RatioPercent(double ratio, int decimals = 1);

}  // namespace gpuroof
