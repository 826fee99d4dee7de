#include "gpuroof/reports/report_text.h"

#include <fmt/format.h>

#include "gpuroof/format/number_format.h"
#include "gpuroof/reports/report_json.h"

namespace gpuroof {

std::string DeviceTitle(int32_t device_id, std::string_view device_name) {
  return device_name.empty() ? fmt::format("device {}", device_id)
                             : fmt::format("device {} ({})", device_id, device_name);
}

std::string RelativeTime(int64_t ns, int64_t origin_ns) {
  // Saturating: windows at the int64 limits must not wrap.
  int64_t relative = 0;
  if (__builtin_sub_overflow(ns, origin_ns, &relative)) {
    return HumanDurationNs(static_cast<double>(ns) - static_cast<double>(origin_ns));
  }
  return HumanDurationNs(static_cast<double>(relative));
}

std::string WindowLine(const Window& window, int64_t origin_ns) {
  return fmt::format("window {}: {} to {} after the first GPU op, {} long", WindowLabel(window),
                     RelativeTime(window.start_ns, origin_ns),
                     RelativeTime(window.end_ns, origin_ns),
                     HumanDurationNs(static_cast<double>(window.length_ns())));
}

ReportSection DeviceSection(const Trace& trace, int32_t device_id, std::string_view device_name,
                            const Window* window) {
  ReportSection section;
  section.trace = trace.source;
  section.device = device_id;
  section.heading = fmt::format("{} · {}", trace.source, DeviceTitle(device_id, device_name));
  if (window != nullptr) {
    section.preamble.push_back(WindowLine(*window, trace.FirstGpuOpNs()));
    if (!window->note.empty()) section.preamble.push_back("note: " + window->note);
  }
  return section;
}

std::string CountOf(int64_t count, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", count, count == 1 ? one : many);
}

std::string ZeroDurationRateNote(std::string_view what, Engine engine, const ByteRate& rate) {
  if (rate.zero_duration_ops == 0) return "";
  const bool memset = engine == Engine::kMemset;
  return fmt::format(
      "{} GB/s leaves out {} of zero duration ({}): {} bytes moved in no measured "
      "time",
      what,
      CountOf(rate.zero_duration_ops, memset ? "memset" : "copy", memset ? "memsets" : "copies"),
      HumanBytes(static_cast<double>(rate.zero_duration_bytes)),
      rate.zero_duration_ops == 1 ? "its" : "their");
}

}  // namespace gpuroof
