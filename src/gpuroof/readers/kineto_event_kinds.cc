#include "gpuroof/readers/kineto_event_kinds.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>

namespace gpuroof {

namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool StartsWithIgnoringCase(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && EqualsIgnoringCase(text.substr(0, prefix.size()), prefix);
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ')
    text.remove_suffix(1);
  return text;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

namespace {

// A name -> value table, looked up exactly or ignoring case.
template <typename T>
struct Named {
  std::string_view name;
  T value;
};

template <typename T, size_t N>
std::optional<T> Lookup(const std::array<Named<T>, N>& table, std::string_view name,
                        bool ignore_case) {
  for (const Named<T>& entry : table) {
    if (ignore_case ? EqualsIgnoringCase(name, entry.name) : name == entry.name) {
      return entry.value;
    }
  }
  return std::nullopt;
}

constexpr std::array<Named<KinetoEventKind>, 13> kCategories = {{
    {"kernel", KinetoEventKind::kKernel},
    {"gpu_memcpy", KinetoEventKind::kMemcpy},
    {"memcpy", KinetoEventKind::kMemcpy},
    {"gpu_memset", KinetoEventKind::kMemset},
    {"memset", KinetoEventKind::kMemset},
    {"user_annotation", KinetoEventKind::kCpuAnnotation},
    {"user", KinetoEventKind::kCpuAnnotation},
    {"gpu_user_annotation", KinetoEventKind::kGpuAnnotation},
    {"cuda_runtime", KinetoEventKind::kRuntimeCall},
    {"cuda_driver", KinetoEventKind::kRuntimeCall},
    {"runtime", KinetoEventKind::kRuntimeCall},
    {"cuda_sync", KinetoEventKind::kGpuNotEngineWork},
    {"cuda_event", KinetoEventKind::kGpuNotEngineWork},
}};

}  // namespace

KinetoEventKind ClassifyKinetoCategory(std::string_view category) {
  // Exact (lowercase) names first: this runs for every event of the file.
  if (std::optional<KinetoEventKind> kind = Lookup(kCategories, category, false)) return *kind;
  if (category == "cpu_op" || category == "python_function" || category == "ac2g") {
    return KinetoEventKind::kOther;
  }
  if (std::optional<KinetoEventKind> kind = Lookup(kCategories, category, true)) return *kind;
  // Categories of events that are not GPU work, seen in PyTorch's writers (ActivityType) and
  // legacy traces: not read. Any other may be GPU work gpuroof does not know (kUnknownCategory).
  constexpr std::array<std::string_view, 13> kNotGpuWork = {"",
                                                            "operator",
                                                            "trace",
                                                            "async",
                                                            "overhead",
                                                            "cpu_instant_event",
                                                            "fwdbwd",
                                                            "flow_link",
                                                            "external_correlation",
                                                            "hardware_counters",
                                                            "memory",
                                                            "python",
                                                            "gpu_pm_counter"};
  for (std::string_view known : kNotGpuWork) {
    if (EqualsIgnoringCase(category, known)) return KinetoEventKind::kOther;
  }
  return KinetoEventKind::kUnknownCategory;
}

MemoryKind ParseMemoryKind(std::string_view text) {
  // Kineto writes the names the tables print (CUPTI's).
  return ValueNamed(kMemoryKindNames, Trim(text), EqualsIgnoringCase)
      .value_or(MemoryKind::kUnknown);
}

std::optional<CopyShape> ParseMemcpyName(std::string_view name) {
  struct Entry {
    std::string_view prefix;
    Engine engine;
  };
  // Array copies go with the host or device side they touch, and array to array is D2D, as nsys's
  // copy kinds do (docs/metrics.md, "Engines": copyKind 3-7).
  static constexpr std::array<Entry, 10> kEntries = {{
      {"Memcpy HtoD", Engine::kH2D},
      {"Memcpy DtoH", Engine::kD2H},
      {"Memcpy DtoD", Engine::kD2D},
      {"Memcpy PtoP", Engine::kP2P},
      {"Memcpy HtoH", Engine::kH2H},
      {"Memcpy HtoA", Engine::kH2D},
      {"Memcpy AtoH", Engine::kD2H},
      {"Memcpy AtoD", Engine::kD2D},
      {"Memcpy DtoA", Engine::kD2D},
      {"Memcpy AtoA", Engine::kD2D},
  }};
  for (const Entry& entry : kEntries) {
    if (!StartsWithIgnoringCase(name, entry.prefix)) continue;
    CopyShape shape;
    shape.engine = entry.engine;
    std::string_view rest = name.substr(entry.prefix.size());
    size_t open = rest.find('(');
    size_t arrow = rest.find("->");
    size_t close = rest.rfind(')');
    if (open != std::string_view::npos && arrow != std::string_view::npos &&
        close != std::string_view::npos && open < arrow && arrow < close) {
      shape.src = ParseMemoryKind(rest.substr(open + 1, arrow - open - 1));
      shape.dst = ParseMemoryKind(rest.substr(arrow + 2, close - arrow - 2));
    }
    return shape;
  }
  return std::nullopt;
}

MemoryKind ParseMemsetName(std::string_view name) {
  size_t open = name.find('(');
  size_t close = name.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return MemoryKind::kUnknown;
  }
  return ParseMemoryKind(name.substr(open + 1, close - open - 1));
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  size_t i = 0;
  bool negative = !text.empty() && text[0] == '-';
  if (negative) ++i;
  if (i == text.size()) return std::nullopt;
  uint64_t value = 0;
  constexpr uint64_t kLimit = uint64_t{1} << 63;  // |INT64_MIN|
  for (; i < text.size(); ++i) {
    if (!IsDigit(text[i])) return std::nullopt;
    uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (kLimit - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (!negative && value == kLimit) return std::nullopt;
  return negative ? static_cast<int64_t>(~value + 1) : static_cast<int64_t>(value);
}

std::optional<int64_t> ParseMicrosecondsAsNs(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  bool negative = i < n && text[i] == '-';
  if (negative) ++i;
  // The significant digits as an integer, and the power of ten that scales it to ns (µs -> ns is
  // 10^3). Accumulating while below 10^18 keeps 19 digits, all of int64's range; further digits
  // only shift the exponent (integer part) or are dropped (fraction: below the nanosecond for any
  // value that fits int64 ns).
  uint64_t mantissa = 0;
  int exponent = 3;
  bool any_digit = false;
  constexpr uint64_t kMaxMantissa = 1'000'000'000'000'000'000ULL;  // 10^18
  for (; i < n && IsDigit(text[i]); ++i) {
    any_digit = true;
    if (mantissa < kMaxMantissa) {
      mantissa = mantissa * 10 + static_cast<uint64_t>(text[i] - '0');
    } else {
      ++exponent;
    }
  }
  if (i < n && text[i] == '.') {
    ++i;
    for (; i < n && IsDigit(text[i]); ++i) {
      any_digit = true;
      if (mantissa < kMaxMantissa) {
        mantissa = mantissa * 10 + static_cast<uint64_t>(text[i] - '0');
        --exponent;
      }
    }
  }
  if (!any_digit) return std::nullopt;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative_exponent = i < n && text[i] == '-';
    if (i < n && (text[i] == '-' || text[i] == '+')) ++i;
    if (i == n) return std::nullopt;
    int value = 0;
    for (; i < n && IsDigit(text[i]); ++i) {
      value = std::min(value * 10 + (text[i] - '0'), 100'000);
    }
    exponent += negative_exponent ? -value : value;
  }
  if (i != n) return std::nullopt;
  constexpr uint64_t kInt64Max = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (; exponent > 0 && mantissa != 0; --exponent) {
    if (mantissa > kInt64Max / 10) return std::nullopt;
    mantissa *= 10;
  }
  for (; exponent < 0 && mantissa != 0; ++exponent)
    mantissa /= 10;
  if (mantissa > kInt64Max) return std::nullopt;
  int64_t ns = static_cast<int64_t>(mantissa);
  return negative ? -ns : ns;
}

}  // namespace gpuroof
