#include "gpuroof/recorder/recorder_env.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string_view>

namespace gpuroof::recorder {
namespace {

// The status file's counter lines ("<key> <value>"), in the order they are written: one list
// for the writer and the reader, so a new counter cannot be written and not read back.
struct StatusCounter {
  std::string_view key;
  int64_t RecorderStatus::*value;
};

constexpr StatusCounter kStatusCounters[] = {
    {"records", &RecorderStatus::records},
    {"dropped", &RecorderStatus::dropped},
    {"failed_buffer_requests", &RecorderStatus::failed_buffer_requests},
    {"zero_timestamps", &RecorderStatus::zero_timestamps},
    {"unpaired_markers", &RecorderStatus::unpaired_markers},
    {"finish_ns", &RecorderStatus::finish_ns}};

// The counter named `key`; nullptr for any other line.
const StatusCounter* FindStatusCounter(std::string_view key) {
  for (const StatusCounter& counter : kStatusCounters) {
    if (counter.key == key) return &counter;
  }
  return nullptr;
}

}  // namespace

std::string ExpandOutputPattern(const std::string& pattern, pid_t pid) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += std::to_string(pid);
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

RecorderConfig ReadRecorderConfig(pid_t pid) {
  RecorderConfig config;
  const char* output = std::getenv(kOutputEnv);
  config.output = ExpandOutputPattern(
      output != nullptr && *output != '\0' ? output : "gpuroof-record-%p.sqlite", pid);
  const char* nvtx = std::getenv(kNvtxEnv);
  config.nvtx = nvtx != nullptr && std::string(nvtx) == "1";
  return config;
}

std::filesystem::path StatusPath(const std::filesystem::path& trace) {
  std::filesystem::path status = trace;
  status += ".status";
  return status;
}

void WriteRecorderStatus(const std::filesystem::path& status_file, const RecorderStatus& status) {
  std::ofstream out(status_file);
  if (!status.error.empty()) {
    out << "error " << status.error << "\n";
    return;
  }
  for (const StatusCounter& counter : kStatusCounters)
    out << counter.key << " " << status.*counter.value << "\n";
  for (const std::string& kind : status.unrecorded)
    out << "unrecorded " << kind << "\n";
}

std::optional<RecorderStatus> ReadRecorderStatus(const std::filesystem::path& status_file) {
  std::ifstream in(status_file);
  if (!in) return std::nullopt;
  RecorderStatus status;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "error") {
      status.error = line.size() > 6 ? line.substr(6) : "unknown error";
    } else if (key == "unrecorded") {
      if (line.size() > 11) status.unrecorded.push_back(line.substr(11));
    } else if (const StatusCounter* counter = FindStatusCounter(key)) {
      fields >> status.*counter->value;
    }
  }
  return status;
}

}  // namespace gpuroof::recorder
