#pragma once

#include "gpuroof/campaign/campaign_session.h"
#include "gpuroof/model/non_copyable.h"

namespace gpuroof {

// The real machine for a campaign: spawned processes, the system clock, file times on disk, GPUs
// through NVML or nvidia-smi, messages on stderr (progress only when it is a terminal).
class LiveCampaignSystem : NonCopyable {
 public:
  LiveCampaignSystem();
  CampaignSystem& get() { return system_; }

 private:
  PosixProcessRunner runner_;
  SystemClock clock_;
  DiskFileTimes files_;
  CampaignSystem system_;
};

}  // namespace gpuroof
