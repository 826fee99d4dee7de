#include "gpuroof/recorder/recorder_env.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gpuroof::recorder {

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
  out << "records " << status.records << "\n"
      << "dropped " << status.dropped << "\n"
      << "failed_buffer_requests " << status.failed_buffer_requests << "\n"
      << "zero_timestamps " << status.zero_timestamps << "\n"
      << "unpaired_markers " << status.unpaired_markers << "\n"
      << "finish_ns " << status.finish_ns << "\n";
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
    } else if (key == "records") {
      fields >> status.records;
    } else if (key == "dropped") {
      fields >> status.dropped;
    } else if (key == "failed_buffer_requests") {
      fields >> status.failed_buffer_requests;
    } else if (key == "unrecorded") {
      if (line.size() > 11) status.unrecorded.push_back(line.substr(11));
    } else if (key == "zero_timestamps") {
      fields >> status.zero_timestamps;
    } else if (key == "unpaired_markers") {
      fields >> status.unpaired_markers;
    } else if (key == "finish_ns") {
      fields >> status.finish_ns;
    }
  }
  return status;
}

}  // namespace gpuroof::recorder
