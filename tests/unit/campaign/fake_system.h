#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gpuroof/campaign/campaign_session.h"

namespace gpuroof::testing {

// Answers each request with `handler`, recording every request. The default handler fails
// every program with 127 (not found), as on a machine without git, nvcc or nvidia-smi.
class FakeRunner : public ProcessRunner {
 public:
  std::function<ProcessResult(const ProcessRequest&)> handler = [](const ProcessRequest&) {
    return ProcessResult{127, "", "not found", 0};
  };
  std::vector<ProcessRequest> requests;
  ProcessResult Run(const ProcessRequest& request) override {
    requests.push_back(request);
    return handler(request);
  }
};

// A clock that stands still until told to move.
class FakeClock : public Clock {
 public:
  WallTime now = WallTime{} + std::chrono::hours(24 * 20000);  // 2024-10-04T00:00:00Z
  WallTime Now() override { return now; }
};

// Files and their times by pattern, exactly as given.
class FakeFileTimes : public FileTimes {
 public:
  std::map<std::string, std::vector<FileTime>> by_pattern;
  std::vector<FileTime> Match(const std::filesystem::path&, const std::string& pattern) override {
    return by_pattern[pattern];
  }
};

// A CampaignSystem over fakes, collecting messages.
struct FakeSystem {
  FakeRunner runner;
  FakeClock clock;
  FakeFileTimes files;
  GpuStatus gpus;
  std::vector<std::string> messages;
  CampaignSystem system{runner,
                        clock,
                        files,
                        [this]() { return gpus; },
                        [this](const std::string& line) { messages.push_back(line); },
                        false};
};

// A temporary folder removed at the end of the test.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

std::string ReadText(const std::filesystem::path& path);
void WriteText(const std::filesystem::path& path, const std::string& text);

}  // namespace gpuroof::testing
