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
// "12 metrics: 3 gated (1 checked, 2 LOW-N; 0 regressed, 0 inconclusive), 9 report-only;
// rows: 2 LOW-N, 1 INCONCLUSIVE, 9 ~" — counted from the rows the table shows.
std::string SummaryLine(const CompareResult& result);
// The verdict with what it rests on: "PASS WITH WARNINGS: iteration time LOW-N (+28.9% over
// threshold), 4 < 6 steps -> exit 0", "REGRESSION (2 gated metrics) -> exit 1", ...
std::string ResultLine(const CompareResult& result);
// History mode: "7 runs used; 3 left out: 3 recorded with --iteration-range fwd", "10 runs
// used, none left out".
std::string HistoryRunsText(const CompareResult& result);
// "devices: one active GPU per profile, matched by position (baseline device 0, current device
// 1)"; empty when there is nothing to say (one device, same id on both sides).
std::string DevicesLine(const CompareResult& result);
// Whether any metric carries a per-kernel warm-up trim (the table then shows a warm-up column).
bool HasKernelTrims(const CompareResult& result);
// "2045/1 (no steady state)": launches dropped per side; "-" where the side has no trim.
std::string TrimCell(const MetricComparison& m);
// A signed percentage of a ratio: 1.052 -> "+5.2%".
std::string RatioPercent(double ratio, int decimals = 1);

}  // namespace gpuroof
