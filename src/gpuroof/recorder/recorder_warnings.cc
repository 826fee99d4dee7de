#include "gpuroof/recorder/recorder_warnings.h"

#include <fmt/format.h>

namespace gpuroof::recorder {

std::string MissingTraceText(const RecordedTrace& trace) {
  if (trace.lost) return fmt::format("process {} {}", trace.pid, kLostTraceText);
  return fmt::format("the recorder in process {} wrote no trace: {}", trace.pid,
                     trace.status.error.empty() ? "no status" : trace.status.error);
}

std::vector<std::string> RecordedTraceWarnings(const RecordedTrace& trace,
                                               const std::filesystem::path& target) {
  std::vector<std::string> warnings;
  const RecorderStatus& status = trace.status;
  if (status.records == 0) {
    warnings.push_back(fmt::format(
        "the trace of process {} ({}) has 0 records: it ran no GPU work that was recorded",
        trace.pid, target.string()));
  }
  if (status.dropped > 0) {
    warnings.push_back(
        fmt::format("{} records were DROPPED in process {}; the trace undercounts GPU work",
                    status.dropped, trace.pid));
  }
  if (status.failed_buffer_requests > 0) {
    warnings.push_back(fmt::format(
        "the recorder in process {} had no free buffer for CUPTI {} times (the records lost that "
        "way are among the dropped ones)",
        trace.pid, status.failed_buffer_requests));
  }
  if (status.zero_timestamps > 0) {
    warnings.push_back(fmt::format(
        "{} records in process {} had no timestamps (still on the GPU at exit, or the device "
        "buffer was too small) and were left out; the trace undercounts GPU work",
        status.zero_timestamps, trace.pid));
  }
  for (const std::string& kind : status.unrecorded) {
    warnings.push_back(
        fmt::format("process {} recorded no {} records; the rest was recorded", trace.pid, kind));
  }
  return warnings;
}

}  // namespace gpuroof::recorder
