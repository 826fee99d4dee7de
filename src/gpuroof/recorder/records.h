// Plain records the recorder writes: what the CUPTI adapter fills from activity records and the
// record sink turns into nsys-schema SQLite. No CUDA types here, so the sink and its tests build
// on machines without the CUDA toolkit.
#pragma once

#include <cstdint>
#include <string>

namespace gpuroof::recorder {

// Times are CUPTI timestamps: CLOCK_REALTIME nanoseconds since the Unix epoch on Linux.
// A record with start == end == 0 had no timestamp collected (still in flight at exit, or the
// device buffer ran out); the sink counts those and does not write them.

// What every GPU activity record has.
struct GpuActivity {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t device = 0;
  uint32_t context = 0;
  uint32_t stream = 0;
  uint32_t correlation = 0;
  uint64_t graph_node_id = 0;  // 0: not launched from a CUDA graph
};

struct KernelRecord : GpuActivity {
  std::string mangled_name;  // as CUPTI reports it; demangled by the sink
  int32_t grid[3] = {1, 1, 1};
  int32_t block[3] = {1, 1, 1};
  uint16_t registers_per_thread = 0;
  int32_t static_shared_memory = 0;
  int32_t dynamic_shared_memory = 0;
  uint32_t local_memory_per_thread = 0;
  uint64_t local_memory_total = 0;
  int64_t grid_id = 0;
  uint8_t launch_type = 0;
  uint8_t cache_config = 0;
};

struct MemcpyRecord : GpuActivity {
  uint64_t bytes = 0;
  // CUpti_ActivityMemcpyKind; equals nsys ENUM_CUDA_MEMCPY_OPER for 0-10.
  uint8_t copy_kind = 0;
  // CUpti_ActivityMemoryKind numbering (0 Unknown, 1 Pageable, ...); the sink converts.
  uint8_t cupti_src_kind = 0;
  uint8_t cupti_dst_kind = 0;
  // Peer-to-peer copies (CUPTI's MEMCPY2) name both ends; -1: not a peer copy.
  int64_t src_device = -1;
  int64_t dst_device = -1;
  int64_t src_context = -1;
  int64_t dst_context = -1;
  // How many copies of a cudaMemcpyBatchAsync batch the record stands for (CUPTI copyCount on
  // MEMCPY records; 1 on every other copy).
  uint64_t copy_count = 1;
};

struct MemsetRecord : GpuActivity {
  uint64_t bytes = 0;
  uint32_t value = 0;
  uint16_t cupti_memory_kind = 0;  // CUpti_ActivityMemoryKind numbering; the sink converts
};

// One CUPTI marker record (NVTX): a range START or END sharing `id`, or an instantaneous mark.
struct MarkerRecord {
  enum class Kind { kStart, kEnd, kMark };
  Kind kind = Kind::kMark;
  int64_t timestamp_ns = 0;
  uint64_t id = 0;
  uint32_t pid = 0;
  uint32_t tid = 0;
  std::string name;    // set on START and marks only
  std::string domain;  // empty: the default domain
};

struct DeviceRecord {
  uint32_t id = 0;
  std::string name;
  std::string uuid;  // "GPU-xxxxxxxx-..." or empty
  uint64_t total_memory_bytes = 0;
  uint64_t memory_bandwidth_bytes_per_s = 0;
  uint64_t clock_rate_hz = 0;
  uint32_t sm_count = 0;
  uint32_t compute_major = 0;
  uint32_t compute_minor = 0;
  uint32_t l2_cache_bytes = 0;
  uint32_t threads_per_warp = 0;
  uint32_t async_engines = 0;
};

}  // namespace gpuroof::recorder
