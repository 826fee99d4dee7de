// Which GPU work each instance of an NVTX (or annotation) range launched — nsys's "GPU
// projection" of CPU ranges. See docs/metrics.md "NVTX ranges".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

// One op of a trace: trace.blocks[block], row `index`.
struct OpRef {
  uint32_t block = 0;
  uint32_t index = 0;
  bool operator==(const OpRef&) const = default;
};

enum class AttributionMethod {
  // An op belongs to a CPU range instance when the API call that launched it (same correlation
  // id, same process) was made on the range's thread while the range was open.
  kLaunchCorrelation,
  // An op belongs to a range instance when it runs while the range is open (clipped to it). Used
  // for GPU-timeline ranges, and for CPU ranges when the trace has no API calls.
  kTimeOverlap,
};

// Whose launches count for a CPU range (docs/metrics.md, "Which GPU work belongs to a range").
enum class RangeScope {
  kThread,   // launches made on the range's own thread (nsys's GPU projection; nested ranges)
  kProcess,  // launches made by any thread of the range's process (iteration ranges: a training
             // step whose backward pass runs on the autograd thread)
};

std::string_view RangeScopeName(RangeScope scope);  // "thread", "process"

// The ops attributed to one instance: immutable storage shared by every instance that gets the
// same ops. Instances that cannot differ (same interval, same side and device, same process, and
// with the thread rule the same thread) hold one list between them, so 3,000 identical ranges over
// 100 k ops cost one list of 100 k, not 300 M entries.
class OpList {
 public:
  OpList() = default;
  explicit OpList(std::vector<OpRef> ops)
      : ops_(std::make_shared<const std::vector<OpRef>>(std::move(ops))) {}
  std::vector<OpRef>::const_iterator begin() const { return ops().begin(); }
  std::vector<OpRef>::const_iterator end() const { return ops().end(); }
  size_t size() const { return ops().size(); }
  bool empty() const { return ops().empty(); }
  const OpRef& operator[](size_t i) const { return ops()[i]; }
  // True when both lists are the same storage (hence the same ops): consumers compute a shared
  // list's figures once.
  bool SameStorage(const OpList& other) const { return ops_ == other.ops_; }
  const void* storage() const { return ops_.get(); }

 private:
  const std::vector<OpRef>& ops() const {
    static const std::vector<OpRef> kEmpty;
    return ops_ ? *ops_ : kEmpty;
  }
  std::shared_ptr<const std::vector<OpRef>> ops_;
};

struct RangeInstanceWork {
  size_t range_index = 0;  // into trace.nvtx_ranges
  AttributionMethod method = AttributionMethod::kLaunchCorrelation;
  // GPU ops attributed to the instance, sorted by start. With kTimeOverlap they are clipped to
  // the range's interval by the consumer (see ClippedInterval).
  OpList ops;
  // Launch calls (cudaLaunchKernel*, cuLaunch*, cudaMemcpy*, cudaMemset*...) the instance made,
  // by the same rule as its ops, whose GPU op is not in the trace: the capture ended before their
  // records, so the instance's work is incomplete. Launch correlation only.
  int64_t launches_without_op = 0;
};

struct RangeAttribution {
  // How CPU ranges were attributed (GPU-timeline ranges always use time overlap).
  AttributionMethod method = AttributionMethod::kLaunchCorrelation;
  // Empty when CPU ranges used launch correlation; otherwise why they did not (for the user).
  std::string method_note;
  std::vector<RangeInstanceWork> instances;  // in the order of `ranges`
  // Ops with a correlation id that no API call of the trace names (counted, not attributed).
  int64_t unmatched_ops = 0;
  // Scope kThread only: ops launched by another thread of the range's process while one of the
  // instances was open. They are not attributed (--attribute process would count them).
  int64_t other_thread_ops = 0;
  // Time overlap only: ops whose process has no CPU range in the whole trace (or that do not say
  // their process), given to the overlapping instances of every process; and how many processes
  // of the trace have CPU ranges. method_note counts them when that is more than one.
  std::vector<OpRef> guessed_process_ops;
  size_t range_processes = 0;
};

// "N op(s) do not say which process launched them, or ...": the note for guessed_process_ops.
std::string GuessedProcessNote(size_t ops, size_t range_processes);

// "3 of 12 instance(s) of range R made launch calls whose GPU op is not in the trace
// (ProfilerStep#12: 3, ...): their GPU work is incomplete (the capture ended first?)"; empty when
// none did. `counted`: how the instances still count ("counted as units", ...).
std::string LaunchesWithoutOpNote(const Trace& trace, const RangeAttribution& attribution,
                                  std::string_view range, std::string_view counted);

// Attributes GPU work to each of `ranges` (pointers into trace.nvtx_ranges, e.g. from
// FindNvtxRanges), counting the launches `scope` says. CPU ranges use launch correlation when the
// trace has API calls and its ops carry correlation ids (read with ReadDetail::kFull), else time
// overlap; GPU-timeline ranges (NvtxRange::on_gpu) always use time overlap on their own device. An
// op can belong to several instances (nested ranges of one name). O(ops x log(calls)) time.
// Memory: instances that cannot differ share one OpList, so it is O(ranges + ops x the distinct
// intervals an op falls in), not O(ranges x ops).
RangeAttribution AttributeGpuWork(const Trace& trace, std::span<const NvtxRange* const> ranges,
                                  RangeScope scope);

// Instances of one range that lie inside or overlap an earlier instance of it on the same
// timeline (CPU ranges: the same process, any thread; GPU-timeline ranges: the same device): the
// name nested in itself (a `forward` range in each sub-module), or the same step range on two
// threads. As units or samples they would count that work again (docs/metrics.md, "Units").
struct OutermostInstances {
  std::vector<const NvtxRange*> kept;  // the outermost instances, in the order given
  size_t overlapping = 0;              // instances left out: each starts inside a kept one
};

// Keeps, in start order (the longer first on equal starts), each instance that starts at or after
// the end of every instance kept before it on its timeline.
OutermostInstances KeepOutermost(std::span<const NvtxRange* const> ranges);

// GPU-timeline instances (unpaired gpu_user_annotation copies) of a range that also has CPU
// instances are copies of those, not steps of their own: they are removed from `ranges` (as
// `ranks` and `findings` do). Returns how many, and "N GPU-timeline instance(s) of range R left
// out: ..." in `note` when any.
size_t DropGpuCopiesBesideCpu(std::vector<const NvtxRange*>& ranges, std::string_view range,
                              std::string* note);

// "8 of 12 instance(s) of range 'forward' lie inside or overlap another instance of it (nested,
// or on another thread): " — the start of every note about them.
std::string OverlappingInstancesText(size_t overlapping, size_t instances, std::string_view range);

// The note for RangeAttribution::other_thread_ops: what the thread rule left out.
std::string OtherThreadNote(int64_t other_thread_ops);

// A set of ops of one trace: a flag per op, by block (a work window's ops).
struct OpSelection {
  std::vector<std::vector<bool>> selected;  // [block][row], sized like trace.blocks
  bool Contains(size_t block, size_t row) const { return selected[block][row]; }
};

// Every op attributed to any of the instances.
OpSelection SelectAttributedOps(const Trace& trace, const RangeAttribution& attribution);

// The interval of `op` that counts for an instance: the whole op for launch correlation, the op
// clipped to the range for time overlap.
struct OpInterval {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
};
OpInterval CountedInterval(const Trace& trace, const RangeInstanceWork& instance, OpRef op);

}  // namespace gpuroof
