// A plausibility check on the copies and memsets a trace records: none can move bytes faster
// than the device's memory bandwidth, so one that seems to has times that do not cover its work.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// The two checks below fed one block at a time, so that a reader reading on several
// threads (the nsys reader, per table chunk) runs them on its threads, one OpChecks per chunk,
// then merges them and notes once, as the functions below would have on the whole trace. Move-only:
// it keeps a pointer into its own maps.
class OpChecks {
 public:
  OpChecks() = default;
  // The devices' memory bandwidths (for NoteFasterThanMemory; none: that check is off).
  explicit OpChecks(const std::vector<DeviceInfo>& devices);
  OpChecks(const OpChecks&) = delete;
  OpChecks& operator=(const OpChecks&) = delete;
  OpChecks(OpChecks&&) = default;  // std::map's nodes move with it: the pointers stay valid
  OpChecks& operator=(OpChecks&&) = default;

  // Adds every op of `block`, whose stream ids index `streams` (an op of an unknown stream
  // counts on device 0).
  void AddBlock(const ActivityBlock& block, const std::vector<StreamInfo>& streams);
  void Merge(const OpChecks& other);
  // NoteOpsFasterThanMemory's and NoteFarOutlyingOps's notes on the ops added.
  void NoteFasterThanMemory(Diagnostics& diagnostics) const;
  void NoteFarOutlying(Diagnostics& diagnostics) const;

  struct OpSpan {
    int64_t start = 0;
    int64_t end = 0;
  };

 private:
  struct FastOps {
    std::array<int64_t, kEngineCount> count_by_engine{};
    double fastest_bytes_per_ns = 0;
  };
  // The kMostOpsApart + 1 earliest starts and latest ends of a device (bounded heaps).
  struct DeviceEdges {
    size_t total = 0;
    std::vector<OpSpan> early;  // max-heap by start
    std::vector<OpSpan> late;   // min-heap by end
  };
  void Add(int32_t device, Engine engine, int64_t start_ns, int64_t end_ns, uint64_t bytes);
  void SetDevice(int32_t device);
  static void AddEarly(DeviceEdges& d, const OpSpan& op);
  static void AddLate(DeviceEdges& d, const OpSpan& op);

  std::map<int32_t, double> bandwidth_bytes_per_ns_;
  std::map<int32_t, FastOps> fast_;
  std::map<int32_t, DeviceEdges> devices_;
  // The previous op's device: runs of one device look nothing up.
  int32_t device_ = 0;
  DeviceEdges* edges_ = nullptr;
  const double* limit_ = nullptr;
};

// Notes (trace.diagnostics), per device whose peak memory bandwidth the trace gives
// (DeviceInfo::memory_bandwidth_bytes_per_s), the copies and memsets touching device memory
// whose bytes / duration exceed it: their GB/s are not transfer rates (docs/metrics.md,
// "Copies"). Zero-duration ops are not checked (they have no rate).
void NoteOpsFasterThanMemory(Trace& trace);

// Notes, per device (each has its own window), the GPU ops that lie far outside the rest of
// that device's ops: a group of at most 16 ops, fewer
// than the rest, that all end (or, at the other end, start) before the rest starts (ends), with
// a gap to the rest over 1000 times the span of the rest. One such op (a corrupt timestamp, a
// merge of two captures) stretches the window to the gap and every duty cycle to nothing.
// They are kept (they may be real work after a long pause: the note says what lies where, no
// verdict) and the note gives their count, the gap and the rest's span; --window limits the window.
// Both readers call it last.
void NoteFarOutlyingOps(Trace& trace);

}  // namespace gpuroof
