#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpuroof/model/column_allocator.h"
#include "gpuroof/model/diagnostics.h"
#include "gpuroof/model/engine.h"
#include "gpuroof/model/enum_names.h"
#include "gpuroof/model/string_table.h"

namespace gpuroof {

// Where the bytes of a copy live. Same order as nsys's ENUM_CUDA_MEM_KIND.
enum class MemoryKind : uint8_t {
  kPageable,
  kPinned,
  kDevice,
  kArray,
  kManaged,
  kDeviceStatic,
  kManagedStatic,
  kUnknown,
};

// Each memory kind's name, as the tables print it and as Kineto traces write it.
inline constexpr std::array<EnumName<MemoryKind>, 8> kMemoryKindNames = {{
    {MemoryKind::kPageable, "Pageable"},
    {MemoryKind::kPinned, "Pinned"},
    {MemoryKind::kDevice, "Device"},
    {MemoryKind::kArray, "Array"},
    {MemoryKind::kManaged, "Managed"},
    {MemoryKind::kDeviceStatic, "Device Static"},
    {MemoryKind::kManagedStatic, "Managed Static"},
    {MemoryKind::kUnknown, "Unknown"},
}};

std::string_view MemoryKindName(MemoryKind kind);

// One GPU (or other adapter) the trace names.
struct DeviceInfo {
  int32_t id = 0;    // the device id as the trace gives it
  std::string name;  // e.g. "NVIDIA H200"; empty when the trace does not say
  // Peak device-memory bandwidth (nsys TARGET_INFO_GPU.memoryBandwidth); 0 when not given.
  int64_t memory_bandwidth_bytes_per_s = 0;
};

// A stream is unique only within a process and device: (process, device, context, stream).
struct StreamInfo {
  uint64_t process_id = 0;  // the trace's process key (nsys: globalPid)
  int32_t device_id = 0;
  uint32_t context_id = 0;
  uint32_t stream_id = 0;
  bool operator==(const StreamInfo&) const = default;
};

// What an op is, apart from when it ran: shared by all ops with the same shape (a kernel's name
// and launch dimensions, a copy's direction and memory kinds). Interning keeps the per-op column
// at 4 bytes.
// OpSignature::est_occupancy_pct of a kernel whose 0 % estimate is the calculator's failure, not a
// measurement: Kineto assumes no opt-in to more than 48 KB of shared memory per block, so a kernel
// using more gets no resident block in its calculation, though it ran.
inline constexpr int8_t kOccupancyEstimateFailed = -2;

struct OpSignature {
  Engine engine = Engine::kKernel;
  uint32_t name = 0;         // kernels: short name; copies/memsets: 0
  uint32_t detail_name = 0;  // kernels: demangled name (0 when the trace has none)
  std::array<uint32_t, 3> grid = {0, 0, 0};
  std::array<uint32_t, 3> block = {0, 0, 0};
  MemoryKind src_kind = MemoryKind::kUnknown;  // copies: source; memsets: the memory set
  MemoryKind dst_kind = MemoryKind::kUnknown;  // copies only
  int32_t src_device = -1;                     // peer copies; -1 when not given
  int32_t dst_device = -1;
  // Kernels of Kineto traces: the profiler's "est. achieved occupancy %" (0-100, estimated from
  // the launch shape and resources, so shared by a signature's launches); -1 when not given;
  // kOccupancyEstimateFailed when the profiler gave 0 % for want of a resident block it had.
  int8_t est_occupancy_pct = -1;
  bool operator==(const OpSignature&) const = default;
};

// GPU ops stored column-wise. Times are ns on the trace's own clock; `end_ns >= start_ns`.
// Each block is sorted by `start_ns` (readers guarantee it), so ordered scans over several
// blocks are a k-way merge with no extra memory.
// One column of a block.
template <typename T>
using Column = std::vector<T, ColumnAllocator<T>>;

struct ActivityBlock {
  Column<int64_t> start_ns;
  Column<int64_t> end_ns;
  Column<uint64_t> bytes;        // 0 for kernels
  Column<uint32_t> signature;    // index into Trace::signatures
  Column<uint32_t> stream;       // index into Trace::streams
  Column<uint32_t> correlation;  // launch correlation id (0 when none); empty when the reader
                                 // was asked for engine load only
  Column<Engine> engine;         // = signatures[signature].engine, kept for fast scans

  size_t size() const { return start_ns.size(); }
  void Reserve(size_t n, bool with_correlation = true);
  void ShrinkToFit();
  // Op `from`'s fields over op `to`'s (compacting or permuting a block in place).
  void MoveOp(size_t from, size_t to) {
    ForEachColumn([from, to](auto& column) { column[to] = column[from]; });
  }
  // Keeps the first `n` ops.
  void Truncate(size_t n) {
    ForEachColumn([n](auto& column) { column.resize(n); });
  }
  // Calls `f` on each column, `correlation` only when the block has it: the one list of the
  // columns for what is done to all of them alike.
  template <typename F>
  void ForEachColumn(F&& f) {
    f(start_ns);
    f(end_ns);
    f(bytes);
    f(signature);
    f(stream);
    if (!correlation.empty()) f(correlation);
    f(engine);
  }
  bool IsSortedByStart() const;
  // Sorts the block by start (stable, so equal starts keep file order). Nearly sorted blocks
  // sort in place; others need 4 extra bytes per op while sorting.
  void SortByStart();
};

// An NVTX (or annotation) range on the CPU timeline.
struct NvtxRange {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t name = 0;        // full display name, "domain:" prefix included when not default
  uint64_t thread_id = 0;   // the trace's thread key (nsys: globalTid)
  uint64_t process_id = 0;  // the process of that thread; same key as ApiCall::process_id
  bool start_end = false;   // true: start/end range; false: push/pop range
  // Drawn on the GPU timeline (Kineto's gpu_user_annotation) rather than a CPU thread: GPU work
  // is attributed to it by time overlap, not through launches.
  bool on_gpu = false;
  int32_t device_id = -1;  // on_gpu ranges: the device whose timeline holds it
  // CPU ranges whose GPU-timeline copy (Kineto's gpu_user_annotation of the same annotation) was
  // paired with them: that copy's span and device. The pair is one range, not two.
  bool has_gpu_copy = false;
  int64_t gpu_copy_start_ns = 0;
  int64_t gpu_copy_end_ns = 0;
  int32_t gpu_copy_device_id = -1;
};

// A CPU-side API call that can launch GPU work (CUDA runtime or driver call: a kernel launch, an
// async copy, a memset). Its correlation id names the GPU ops it launched; the thread ties them to
// the NVTX ranges open on that thread when the call was made.
struct ApiCall {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint64_t process_id = 0;  // same key as StreamInfo::process_id (nsys: globalTid with TID cleared)
  uint64_t thread_id = 0;   // same key as NvtxRange::thread_id (nsys: globalTid)
  uint32_t correlation = 0;
  uint32_t name = 0;  // e.g. "cudaLaunchKernel"; 0 when the trace does not say
};

// Of a launch call, only what tells when the host was done launching an op: the idle breakdown
// of `gpuroof ranks` needs no more, and a rank set is read two traces at a time (24 bytes a call
// instead of ApiCall's 40; docs/performance.md, §13).
struct LaunchEnd {
  int64_t end_ns = 0;
  uint64_t process_id = 0;  // as ApiCall::process_id
  uint32_t correlation = 0;
};

// Everything gpuroof knows about one trace file. No I/O here: readers fill it.
struct Trace {
  std::string source;                           // path the trace came from, for messages
  std::string format;                           // e.g. "nsys-sqlite"
  std::map<std::string, std::string> metadata;  // e.g. "nsys_version" -> "2024.6.2.0"
  StringTable strings;
  std::vector<DeviceInfo> devices;  // as listed by the file; may name unused devices
  std::vector<StreamInfo> streams;
  std::vector<OpSignature> signatures;
  std::vector<ActivityBlock> blocks;
  std::vector<NvtxRange> nvtx_ranges;  // sorted by start
  // Calls with a non-zero correlation id (the launches; Kineto: those that launched a traced op),
  // sorted by (process_id, correlation). Only read when the reader is asked for full detail;
  // empty when the trace has no API calls. Read with ReadOptions::all_api_calls: every runtime
  // and driver call, those that launched nothing with correlation 0 (nsys) or their own id.
  std::vector<ApiCall> api_calls;
  // Kineto, read without all_api_calls: the launch calls whose correlation id names no traced op
  // (the capture ended before their GPU records came, or the launch failed), kept apart so that
  // api_calls stays "the launches". nsys keeps such calls in api_calls. By start, unsorted.
  std::vector<ApiCall> calls_without_op;
  // Read instead of api_calls with ReadScope::launch_ends_only: the same calls (the launches), cut
  // down to LaunchEnd, in the same order.
  std::vector<LaunchEnd> launch_ends;
  Diagnostics diagnostics;

  size_t activity_count() const;
  // Device ids that have at least one activity, ascending.
  std::vector<int32_t> ActiveDeviceIds() const;
  // Name of the device, or "" when the trace does not list it.
  std::string_view DeviceName(int32_t device_id) const;
  // The earliest start of any GPU op: the origin text reports print times from (Kineto clocks
  // are epoch microseconds), and the one `--window START:END` counts from. 0 without GPU ops.
  int64_t FirstGpuOpNs() const;
};

// Moves the kernels whose name is a collective's (IsCollectiveKernelName, short or demangled name)
// from the kernel engine to the comm engine: signatures and the per-op engine column. Readers
// call it once, last, so every analysis sees communication apart from compute.
void ClassifyCollectiveKernels(Trace& trace);

// The launch ends of `calls` (those with a correlation id), in their order.
std::vector<LaunchEnd> LaunchEndsOf(const std::vector<ApiCall>& calls);

}  // namespace gpuroof
