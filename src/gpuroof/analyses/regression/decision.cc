#include "gpuroof/analyses/regression/decision.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "gpuroof/model/engine.h"

namespace gpuroof {

std::string_view VerdictLabel(Verdict verdict) {
  switch (verdict) {
    case Verdict::kLowN:
      return "LOW-N";
    case Verdict::kRegressed:
      return "REGRESSED";
    case Verdict::kImproved:
      return "IMPROVED";
    case Verdict::kInconclusive:
      return "INCONCLUSIVE";
    case Verdict::kWithinNoise:
      return "WITHIN NOISE";
    case Verdict::kNoChange:
      return "~";
    case Verdict::kNew:
      return "NEW";
    case Verdict::kRemoved:
      return "REMOVED";
    case Verdict::kChanged:
      return "CHANGED";
  }
  return "?";
}

std::string_view VerdictId(Verdict verdict) {
  switch (verdict) {
    case Verdict::kLowN:
      return "low-n";
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kImproved:
      return "improved";
    case Verdict::kInconclusive:
      return "inconclusive";
    case Verdict::kWithinNoise:
      return "within-noise";
    case Verdict::kNoChange:
      return "no-change";
    case Verdict::kNew:
      return "new";
    case Verdict::kRemoved:
      return "removed";
    case Verdict::kChanged:
      return "changed";
  }
  return "?";
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
                        const GateSettings& settings) {
  KernelGating gating;
  if (share < settings.kernel_min_share || CollectiveKernel(key)) return gating;
  gating.gated = std::fabs(impact) >= settings.kernel_min_impact;
  gating.below_impact = !gating.gated;
  return gating;
}

}  // namespace gpuroof
