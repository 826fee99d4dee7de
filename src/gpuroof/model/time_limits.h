// The bounds every reader applies to times it reads from a file, and saturating arithmetic for
// the sums built from them. Together they make sure no difference or sum of times overflows
// int64 anywhere downstream (docs/reliability.md, "Arithmetic on times").
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace gpuroof {

// Session-relative timestamps beyond ±2^62 ns (±146 years) are corrupt. Any two in-range
// timestamps differ by less than 2^63, so `end - start` and window lengths always fit.
inline constexpr int64_t kTimestampLimitNs = int64_t{1} << 62;

// The longest op, range or API call a reader keeps: 2^50 ns (about 13 days). Sums of many such
// durations can still exceed int64, which is why sums saturate (SaturatingAdd).
inline constexpr int64_t kDurationLimitNs = int64_t{1} << 50;

inline bool TimestampInRange(int64_t t_ns) {
  return t_ns > -kTimestampLimitNs && t_ns < kTimestampLimitNs;
}

// Why [start_ns, end_ns] cannot be kept, or an empty view when it can: the reason a reader counts
// the skipped record under.
inline std::string_view IntervalProblem(int64_t start_ns, int64_t end_ns) {
  if (!TimestampInRange(start_ns) || !TimestampInRange(end_ns)) return "implausible timestamp";
  if (end_ns < start_ns) return "end before start";
  if (end_ns - start_ns > kDurationLimitNs) return "implausible duration";
  return {};
}

// The most bytes one copy or memset may move: 2^50 (1 PiB), far beyond any device's memory. A
// larger count is corrupt; readers skip the record and count it ("implausible byte count"). Sums
// of many counts still saturate (SaturatingAddBytes).
inline constexpr uint64_t kByteCountLimit = uint64_t{1} << 50;

// a + b, clamped at the int64 maximum, so that a byte sum is never written as a wrapped or
// negative number by an int64 writer.
inline uint64_t SaturatingAddBytes(uint64_t a, uint64_t b) {
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (a >= kMax || b >= kMax - a) return kMax;
  return a + b;
}

// An exact sum of many int64 durations or byte counts (10 000 ops at the per-op limits pass
// int64): the figures written clamp to int64 (ClampToInt64) and say so, but rates, means and
// overlap factors come from the exact sum.
__extension__ typedef __int128 WideSum;
__extension__ typedef unsigned __int128 WideUnsigned;
inline constexpr WideSum kWideInt64Max = std::numeric_limits<int64_t>::max();
inline int64_t ClampToInt64(WideSum value) {
  if (value > kWideInt64Max) return std::numeric_limits<int64_t>::max();
  if (value < -kWideInt64Max - 1) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}
// Decimal digits of `value` (fmt cannot format __int128 portably).
inline std::string WideSumText(WideSum value) {
  const bool negative = value < 0;
  WideUnsigned magnitude =
      negative ? static_cast<WideUnsigned>(-(value + 1)) + 1 : static_cast<WideUnsigned>(value);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  return negative ? "-" + digits : digits;
}

// a + b, clamped to the int64 range instead of overflowing.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) {
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return sum;
}

// a - b, clamped to the int64 range instead of overflowing.
inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) {
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  return difference;
}

}  // namespace gpuroof
