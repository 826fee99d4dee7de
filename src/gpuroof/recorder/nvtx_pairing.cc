#include "gpuroof/recorder/nvtx_pairing.h"

#include <utility>

namespace gpuroof::recorder {

std::optional<NvtxEvent> NvtxPairing::Add(const MarkerRecord& record) {
  switch (record.kind) {
    case MarkerRecord::Kind::kMark: {
      // A mark is an instant: the record paired with itself, without an end.
      NvtxEvent mark = Pair(record, record);
      mark.end_ns.reset();
      mark.event_type = kNvtxMark;
      return mark;
    }
    case MarkerRecord::Kind::kStart:
      return Match(record, ends_, starts_, true);
    case MarkerRecord::Kind::kEnd:
      return Match(record, starts_, ends_, false);
  }
  return std::nullopt;
}

std::optional<NvtxEvent> NvtxPairing::Match(const MarkerRecord& record, Waiting& partners,
                                            Waiting& waiting, bool record_is_start) {
  auto partner = partners.find(record.id);
  if (partner == partners.end()) {
    waiting.insert_or_assign(record.id, record);
    return std::nullopt;
  }
  NvtxEvent range = record_is_start ? Pair(record, partner->second) : Pair(partner->second, record);
  partners.erase(partner);
  return range;
}

NvtxEvent NvtxPairing::Pair(const MarkerRecord& start, const MarkerRecord& end) {
  NvtxEvent range;
  range.start_ns = start.timestamp_ns;
  range.end_ns = end.timestamp_ns;
  range.event_type = start.tid == end.tid ? kNvtxPushPopRange : kNvtxStartEndRange;
  range.text = start.name;
  range.domain = start.domain;
  range.pid = start.pid;
  range.tid = start.tid;
  range.end_tid = end.tid;
  return range;
}

}  // namespace gpuroof::recorder
