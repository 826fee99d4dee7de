// Cell texts shared by the text and Markdown renderings of `gpuroof compare`, so both print a
// metric the same way.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuroof/analyses/regression/gate.h"
#include "gpuroof/format/table_text.h"

namespace gpuroof {

// "iteration time [train_step]", "GPU compute busy / iter", "kernel NAME", "copy H2D busy / iter
// (report)", "launches / iter".
std::string MetricLabel(const MetricComparison& m);
// A kernel metric as the text tables show it: "kernel " + its base name (ShortKernelName, the
// rule of every text table: docs/formats.md "Tables") + its launch shape + `suffix`, since its
// key holds the whole demangled signature; `full` when the name has no base name.
std::string ShortKernelLabel(const std::string& kernel_key, const std::string& full,
                             std::string_view suffix);
// Labels that read the same for different full labels get " #1", " #2" in row order, so that
// every printed label stands for one metric.
void NumberAlikeLabels(std::vector<std::string>& shown, const std::vector<std::string>& full);
// A metric label cut to `width`, its end kept: what tells rows apart (a kernel's launch shape,
// "(report)", a " #2") is there.
std::string ShortenMetricLabel(const std::string& label, size_t width);
// The layout of compare's text tables: the metric first, cut by ShortenMetricLabel; the line
// under a table that cut some says they are whole in `whole_names_in`.
TextTableOptions CompareTableOptions(std::string whole_names_in);
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
