// Turns CUPTI marker records (a START and an END per range, sharing an id; or one instantaneous
// mark) into NVTX_EVENTS rows. Records may arrive out of order, because each thread fills its own
// activity buffer, so an END can be seen before its START.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpuroof/recorder/records.h"

namespace gpuroof::recorder {

// nsys ENUM_NSYS_EVENT_TYPE ids.
inline constexpr int kNvtxMark = 34;
inline constexpr int kNvtxPushPopRange = 59;
inline constexpr int kNvtxStartEndRange = 60;

struct NvtxEvent {
  int64_t start_ns = 0;
  std::optional<int64_t> end_ns;  // none for marks
  // CUPTI does not say whether a range was pushed/popped or started/ended; a range that ends
  // on the thread that started it is written as push/pop, one that crosses threads as start/end.
  int event_type = kNvtxMark;
  std::string text;
  std::string domain;  // empty: the default domain
  uint32_t pid = 0;
  uint32_t tid = 0;
  uint32_t end_tid = 0;
};

class NvtxPairing {
 public:
  // Returns the event the record completes: a mark at once, a range when both ends were seen.
  std::optional<NvtxEvent> Add(const MarkerRecord& record);
  // Ranges whose START or END never arrived (still open at exit, or lost in a dropped buffer).
  int64_t Unpaired() const { return static_cast<int64_t>(starts_.size() + ends_.size()); }

 private:
  using Waiting = std::unordered_map<uint64_t, MarkerRecord>;  // by marker id
  // Pairs `record` with its partner from `partners`, or keeps it in `waiting` for it.
  static std::optional<NvtxEvent> Match(const MarkerRecord& record, Waiting& partners,
                                        Waiting& waiting, bool record_is_start);
  static NvtxEvent Pair(const MarkerRecord& start, const MarkerRecord& end);
  Waiting starts_;
  Waiting ends_;
};

}  // namespace gpuroof::recorder
