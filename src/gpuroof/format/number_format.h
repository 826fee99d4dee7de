#pragma once

#include <optional>
#include <string>

namespace gpuroof {

// The shortest text that reads back to the same double ("0.1", "16.341825", "1e+20"), as CSV
// and JSON need for full precision. Non-finite values give "".
std::string ShortestDouble(double value);
// Unset values give "" (an empty CSV cell).
std::string ShortestDouble(const std::optional<double>& value);

// Fixed decimals for human tables; unset values give "-"; a non-zero value that would round to
// zero gives the smallest step ("<0.01" with 2 decimals), never "0.00".
std::string FixedDouble(const std::optional<double>& value, int decimals);

// Human-readable bytes in SI units ("131.07 MB").
std::string HumanBytes(double bytes);

// Human-readable duration from ns ("32.691 ms", "16.35 us").
std::string HumanDurationNs(double ns);

}  // namespace gpuroof
