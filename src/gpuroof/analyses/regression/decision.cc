#include "gpuroof/analyses/regression/decision.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/enum_names.h"

namespace gpuroof {

namespace {

// Each verdict as the text table prints it and as the JSON writes it.
struct VerdictNames {
  Verdict verdict;
  std::string_view label;
  std::string_view id;
};
constexpr std::array<VerdictNames, 9> kVerdictNames = {{
    {Verdict::kLowN, "LOW-N", "low-n"},
    {Verdict::kRegressed, "REGRESSED", "regressed"},
    {Verdict::kImproved, "IMPROVED", "improved"},
    {Verdict::kInconclusive, "INCONCLUSIVE", "inconclusive"},
    {Verdict::kWithinNoise, "WITHIN NOISE", "within-noise"},
    {Verdict::kNoChange, "~", "no-change"},
    {Verdict::kNew, "NEW", "new"},
    {Verdict::kRemoved, "REMOVED", "removed"},
    {Verdict::kChanged, "CHANGED", "changed"},
}};
static_assert(kVerdictNames.size() == static_cast<size_t>(Verdict::kChanged) + 1,
              "every verdict has its names");

}  // namespace

std::string_view VerdictLabel(Verdict verdict) {
  const VerdictNames* names = FindRow(kVerdictNames, &VerdictNames::verdict, verdict);
  return names ? names->label : "?";
}

std::string_view VerdictId(Verdict verdict) {
  const VerdictNames* names = FindRow(kVerdictNames, &VerdictNames::verdict, verdict);
  return names ? names->id : "?";
}

Verdict Decide(double theta, double low, double high, double floor, const GateSettings& settings) {
  const double f = std::log1p(floor);
  const double e = std::log1p(settings.min_effect);
  const double t = std::log1p(settings.target);
  if (low > f && theta > e) return Verdict::kRegressed;
  if (high < -f && theta < -e) return Verdict::kImproved;
  if (high >= t) return Verdict::kInconclusive;
  if (low > 0 || high < 0) return Verdict::kWithinNoise;
  return Verdict::kNoChange;
}

bool LowNExceedsThreshold(double ratio, double floor, const GateSettings& settings) {
  return ratio - 1.0 > floor + settings.min_effect;
}

Verdict DecideHistory(double current, double history_mean, double half_width,
                      const GateSettings& settings) {
  const double e = std::log1p(settings.min_effect);
  const double delta = current - history_mean;
  if (delta > half_width && delta > e) return Verdict::kRegressed;
  if (delta < -half_width && delta < -e) return Verdict::kImproved;
  // Above the history's centre, and the band too wide to rule out a target-size regression: the
  // run's shift could be the target (the two-sided rule's INCONCLUSIVE, high = delta + q).
  if (delta > 0 && delta + half_width >= std::log1p(settings.target)) return Verdict::kInconclusive;
  if (delta > half_width || delta < -half_width) return Verdict::kWithinNoise;
  return Verdict::kNoChange;
}

bool RangeGated(double share_of_iteration, const std::string& name, const GateSettings& settings) {
  return share_of_iteration >= settings.range_min_share ||
         std::find(settings.gate_ranges.begin(), settings.gate_ranges.end(), name) !=
             settings.gate_ranges.end();
}

bool CollectiveKernel(std::string_view key) {
  return IsCollectiveKernelName(key);
}

KernelGating GateKernel(double share, double impact, std::string_view key,
                        const GateSettings& settings, double current_share) {
  KernelGating gating;
  if (std::max(share, current_share) < settings.kernel_min_share || CollectiveKernel(key))
    return gating;
  gating.gated = std::fabs(impact) >= settings.kernel_min_impact;
  gating.below_impact = !gating.gated;
  return gating;
}

}  // namespace gpuroof
