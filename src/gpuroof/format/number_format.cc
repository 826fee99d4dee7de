#include "gpuroof/format/number_format.h"

#include <cmath>

#include <fmt/format.h>

namespace gpuroof {

std::string ShortestDouble(double value) {
  if (!std::isfinite(value)) return {};
  return fmt::format("{}", value);
}

std::string ShortestDouble(const std::optional<double>& value) {
  return value ? ShortestDouble(*value) : std::string();
}

std::string FixedDouble(const std::optional<double>& value, int decimals) {
  if (!value || !std::isfinite(*value)) return "-";
  // A non-zero value that would round to zero says how small it is: a cost is never "0.00".
  const double step = std::pow(10.0, -decimals);
  if (*value != 0 && std::fabs(*value) < step / 2) {
    return (*value < 0 ? ">-" : "<") + fmt::format("{:.{}f}", step, decimals);
  }
  return fmt::format("{:.{}f}", *value, decimals);
}

std::string HumanBytes(double bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  int unit = 0;
  while (std::fabs(bytes) >= 1000.0 && unit < 4) {
    bytes /= 1000.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f} B", bytes) : fmt::format("{:.2f} {}", bytes, units[unit]);
}

std::string HumanDurationNs(double ns) {
  double abs = std::fabs(ns);
  if (abs >= 1e9) return fmt::format("{:.3f} s", ns / 1e9);
  if (abs >= 1e6) return fmt::format("{:.3f} ms", ns / 1e6);
  if (abs >= 1e3) return fmt::format("{:.3f} us", ns / 1e3);
  return fmt::format("{:.0f} ns", ns);
}

}  // namespace gpuroof
