#include "gpuroof/recorder/cupti_records.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace gpuroof::recorder {
namespace {

// CUPTI timestamps are uint64 ns since the epoch; SQLite and the model use int64.
int64_t Ns(uint64_t value) {
  return static_cast<int64_t>(value);
}

std::string Text(const char* value) {
  return value != nullptr ? std::string(value) : std::string();
}

std::string Uuid(const CUuuid& uuid) {
  // The "GPU-8-4-4-4-12" form nvidia-smi and NVML print, so devices can be matched by UUID.
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  char text[64];
  std::snprintf(text, sizeof(text),
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return text;
}

// Records are packed: every field is read by value into the plain struct.
template <typename Cupti>
void CopyActivityFields(const Cupti& c, GpuActivity& r) {
  r.start_ns = Ns(c.start);
  r.end_ns = Ns(c.end);
  r.device = c.deviceId;
  r.context = c.contextId;
  r.stream = c.streamId;
  r.correlation = c.correlationId;
  r.graph_node_id = c.graphNodeId;
}

template <typename Cupti>
MemcpyRecord CopyFields(const Cupti& c) {
  MemcpyRecord r;
  CopyActivityFields(c, r);
  r.bytes = c.bytes;
  r.copy_kind = c.copyKind;
  r.cupti_src_kind = c.srcKind;
  r.cupti_dst_kind = c.dstKind;
  return r;
}

}  // namespace

KernelRecord ToKernelRecord(const CUpti_ActivityKernel10& k) {
  KernelRecord r;
  CopyActivityFields(k, r);
  r.mangled_name = Text(k.name);
  r.grid[0] = k.gridX;
  r.grid[1] = k.gridY;
  r.grid[2] = k.gridZ;
  r.block[0] = k.blockX;
  r.block[1] = k.blockY;
  r.block[2] = k.blockZ;
  r.registers_per_thread = k.registersPerThread;
  r.static_shared_memory = k.staticSharedMemory;
  r.dynamic_shared_memory = k.dynamicSharedMemory;
  r.local_memory_per_thread = k.localMemoryPerThread;
  r.local_memory_total = k.localMemoryTotal_v2;
  r.grid_id = k.gridId;
  r.launch_type = k.launchType;
  r.cache_config = k.cacheConfig.both;
  return r;
}

MemcpyRecord ToMemcpyRecord(const CUpti_ActivityMemcpy6& c) {
  MemcpyRecord r = CopyFields(c);
  r.copy_count = std::max<uint64_t>(c.copyCount, 1);  // 0 from a driver that predates the field
  return r;
}

MemcpyRecord ToMemcpyRecord(const CUpti_ActivityMemcpyPtoP4& c) {
  MemcpyRecord r = CopyFields(c);
  r.src_device = c.srcDeviceId;
  r.src_context = c.srcContextId;
  r.dst_device = c.dstDeviceId;
  r.dst_context = c.dstContextId;
  return r;
}

MemsetRecord ToMemsetRecord(const CUpti_ActivityMemset4& m) {
  MemsetRecord r;
  CopyActivityFields(m, r);
  r.bytes = m.bytes;
  r.value = m.value;
  r.cupti_memory_kind = m.memoryKind;
  return r;
}

std::optional<MarkerRecord> ToMarkerRecord(const CUpti_ActivityMarker2& m) {
  MarkerRecord r;
  const uint32_t flags = static_cast<uint32_t>(m.flags);
  if ((flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0) {
    r.kind = MarkerRecord::Kind::kStart;
  } else if ((flags & CUPTI_ACTIVITY_FLAG_MARKER_END) != 0) {
    r.kind = MarkerRecord::Kind::kEnd;
  } else if ((flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) != 0) {
    r.kind = MarkerRecord::Kind::kMark;
  } else {
    return std::nullopt;
  }
  r.timestamp_ns = Ns(m.timestamp);
  r.id = m.id;
  if (m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
      m.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    const CUpti_ActivityObjectKindId object = m.objectId;
    r.pid = object.pt.processId;
    r.tid = object.pt.threadId;
  }
  r.name = Text(m.name);
  r.domain = Text(m.domain);
  return r;
}

DeviceRecord ToDeviceRecord(const CUpti_ActivityDevice5& d) {
  DeviceRecord r;
  r.id = d.id;
  r.name = Text(d.name);
  const CUuuid uuid = d.uuid;
  r.uuid = Uuid(uuid);
  r.total_memory_bytes = d.globalMemorySize;
  r.memory_bandwidth_bytes_per_s = d.globalMemoryBandwidth * 1000;
  r.clock_rate_hz = uint64_t{d.coreClockRate} * 1000;
  r.sm_count = d.numMultiprocessors;
  r.compute_major = d.computeCapabilityMajor;
  r.compute_minor = d.computeCapabilityMinor;
  r.l2_cache_bytes = d.l2CacheSize;
  r.threads_per_warp = d.numThreadsPerWarp;
  r.async_engines = d.numMemcpyEngines;
  return r;
}

DecodeCounts DecodeActivityBuffer(uint8_t* buffer, size_t valid_bytes, RecordSink& sink) {
  DecodeCounts counts;
  CUpti_Activity* record = nullptr;
  while (true) {
    CUptiResult status = cuptiActivityGetNextRecord(buffer, valid_bytes, &record);
    if (status == CUPTI_ERROR_MAX_LIMIT_REACHED) break;  // the buffer's end
    if (status != CUPTI_SUCCESS) {
      counts.buffer_error = true;
      break;
    }
    ++counts.records;
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        sink.AddKernel(ToKernelRecord(*reinterpret_cast<const CUpti_ActivityKernel10*>(record)));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY:
        sink.AddMemcpy(ToMemcpyRecord(*reinterpret_cast<const CUpti_ActivityMemcpy6*>(record)));
        break;
      case CUPTI_ACTIVITY_KIND_MEMCPY2:
        sink.AddMemcpy(ToMemcpyRecord(*reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record)));
        break;
      case CUPTI_ACTIVITY_KIND_MEMSET:
        sink.AddMemset(ToMemsetRecord(*reinterpret_cast<const CUpti_ActivityMemset4*>(record)));
        break;
      case CUPTI_ACTIVITY_KIND_MARKER:
        if (auto marker = ToMarkerRecord(*reinterpret_cast<const CUpti_ActivityMarker2*>(record))) {
          sink.AddMarker(*marker);
        } else {
          ++counts.other_kinds;
        }
        break;
      case CUPTI_ACTIVITY_KIND_DEVICE:
        sink.AddDevice(ToDeviceRecord(*reinterpret_cast<const CUpti_ActivityDevice5*>(record)));
        break;
      default:
        ++counts.other_kinds;
        break;
    }
  }
  return counts;
}

}  // namespace gpuroof::recorder
