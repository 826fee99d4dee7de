// The CUPTI adapter on hand-filled CUDA 13.0 activity records and on a hand-built activity
// buffer walked by the real cuptiActivityGetNextRecord (which needs no GPU or driver).
#include "gpuroof/recorder/cupti_records.h"

#include <cstring>
#include <filesystem>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof::recorder {
namespace {

constexpr uint64_t kT0 = 1'700'000'000'000'000'000;

CUpti_ActivityKernel10 Kernel() {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = kT0 + 100;
  k.end = kT0 + 600;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 21;
  k.correlationId = 99;
  k.gridX = 8;
  k.gridY = 4;
  k.gridZ = 2;
  k.blockX = 128;
  k.blockY = 1;
  k.blockZ = 1;
  k.registersPerThread = 40;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 2048;
  k.localMemoryTotal_v2 = 65536;
  k.gridId = 77;
  k.name = "_Z6decodePKhPfi";
  return k;
}

CUpti_ActivityMemcpy6 Memcpy() {
  CUpti_ActivityMemcpy6 c;
  std::memset(&c, 0, sizeof(c));
  c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  c.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  c.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  c.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  c.bytes = 1 << 20;
  c.start = kT0;
  c.end = kT0 + 90;
  c.deviceId = 1;
  c.contextId = 3;
  c.streamId = 21;
  c.correlationId = 98;
  return c;
}

CUpti_ActivityMemset4 Memset() {
  CUpti_ActivityMemset4 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = 0xab;
  m.bytes = 4096;
  m.start = kT0 + 700;
  m.end = kT0 + 710;
  m.deviceId = 1;
  m.contextId = 3;
  m.streamId = 22;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
  return m;
}

CUpti_ActivityMarker2 Marker(CUpti_ActivityFlag flag, uint64_t t, const char* name) {
  CUpti_ActivityMarker2 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = flag;
  m.timestamp = t;
  m.id = 5;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  CUpti_ActivityObjectKindId object;
  std::memset(&object, 0, sizeof(object));
  object.pt.processId = 321;
  object.pt.threadId = 654;
  m.objectId = object;
  m.name = name;
  m.domain = nullptr;
  return m;
}

TEST(CuptiRecordsTest, KernelFieldsAreCopied) {
  KernelRecord r = ToKernelRecord(Kernel());
  EXPECT_EQ(r.start_ns, static_cast<int64_t>(kT0 + 100));
  EXPECT_EQ(r.end_ns, static_cast<int64_t>(kT0 + 600));
  EXPECT_EQ(r.device, 1u);
  EXPECT_EQ(r.context, 3u);
  EXPECT_EQ(r.stream, 21u);
  EXPECT_EQ(r.correlation, 99u);
  EXPECT_EQ(r.mangled_name, "_Z6decodePKhPfi");
  EXPECT_EQ(r.grid[0], 8);
  EXPECT_EQ(r.grid[1], 4);
  EXPECT_EQ(r.grid[2], 2);
  EXPECT_EQ(r.block[0], 128);
  EXPECT_EQ(r.registers_per_thread, 40);
  EXPECT_EQ(r.static_shared_memory, 1024);
  EXPECT_EQ(r.dynamic_shared_memory, 2048);
  EXPECT_EQ(r.local_memory_total, 65536u);
  EXPECT_EQ(r.grid_id, 77);
}

TEST(CuptiRecordsTest, GraphNodeIdsKeepAll64Bits) {
  CUpti_ActivityKernel10 k = Kernel();
  k.graphNodeId = (uint64_t{3} << 32) | 9;
  EXPECT_EQ(ToKernelRecord(k).graph_node_id, (uint64_t{3} << 32) | 9);
}

TEST(CuptiRecordsTest, CopiesKeepCuptiKindsForTheSinkToConvert) {
  MemcpyRecord c = ToMemcpyRecord(Memcpy());
  EXPECT_EQ(c.copy_kind, 1);
  EXPECT_EQ(c.cupti_src_kind, 2);  // CUPTI's PINNED
  EXPECT_EQ(c.cupti_dst_kind, 3);  // CUPTI's DEVICE
  EXPECT_EQ(c.bytes, 1u << 20);
  EXPECT_EQ(c.src_device, -1);  // not a peer copy
  EXPECT_EQ(c.copy_count, 1u);  // 0 in the record (no batch support): one copy
  CUpti_ActivityMemcpy6 batch = Memcpy();
  batch.copyCount = 5;
  EXPECT_EQ(ToMemcpyRecord(batch).copy_count, 5u);
  MemsetRecord m = ToMemsetRecord(Memset());
  EXPECT_EQ(m.value, 0xabu);
  EXPECT_EQ(m.bytes, 4096u);
  EXPECT_EQ(m.cupti_memory_kind, 5);  // CUPTI's MANAGED
}

TEST(CuptiRecordsTest, PeerCopiesNameBothEnds) {
  CUpti_ActivityMemcpyPtoP4 p;
  std::memset(&p, 0, sizeof(p));
  p.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  p.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  p.srcDeviceId = 0;
  p.dstDeviceId = 1;
  p.srcContextId = 5;
  p.dstContextId = 6;
  p.bytes = 100;
  MemcpyRecord r = ToMemcpyRecord(p);
  EXPECT_EQ(r.copy_kind, 10);
  EXPECT_EQ(r.src_device, 0);
  EXPECT_EQ(r.dst_device, 1);
  EXPECT_EQ(r.src_context, 5);
  EXPECT_EQ(r.dst_context, 6);
}

TEST(CuptiRecordsTest, MarkerFlagsSelectTheKind) {
  std::optional<MarkerRecord> start =
      ToMarkerRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, kT0, "step"));
  ASSERT_TRUE(start);
  EXPECT_EQ(start->kind, MarkerRecord::Kind::kStart);
  EXPECT_EQ(start->pid, 321u);
  EXPECT_EQ(start->tid, 654u);
  EXPECT_EQ(start->name, "step");
  EXPECT_EQ(start->domain, "");
  std::optional<MarkerRecord> end =
      ToMarkerRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, kT0, nullptr));
  ASSERT_TRUE(end);
  EXPECT_EQ(end->kind, MarkerRecord::Kind::kEnd);
  EXPECT_TRUE(ToMarkerRecord(Marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, kT0, "m")));
  EXPECT_FALSE(ToMarkerRecord(Marker(CUPTI_ACTIVITY_FLAG_NONE, kT0, "sync")));
}

TEST(CuptiRecordsTest, DeviceUnitsBecomeHertzAndBytesPerSecond) {
  CUpti_ActivityDevice5 d;
  std::memset(&d, 0, sizeof(d));
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 1;
  d.name = "NVIDIA H200";
  d.coreClockRate = 1980000;             // kHz
  d.globalMemoryBandwidth = 4800000000;  // kB/s
  d.globalMemorySize = 150323855360;
  d.numMultiprocessors = 132;
  d.computeCapabilityMajor = 9;
  CUuuid uuid;
  for (int i = 0; i < 16; ++i)
    uuid.bytes[i] = static_cast<char>(i);
  d.uuid = uuid;
  DeviceRecord r = ToDeviceRecord(d);
  EXPECT_EQ(r.clock_rate_hz, 1980000000u);
  EXPECT_EQ(r.memory_bandwidth_bytes_per_s, 4800000000000u);
  EXPECT_EQ(r.total_memory_bytes, 150323855360u);
  EXPECT_EQ(r.sm_count, 132u);
  EXPECT_EQ(r.compute_major, 9u);
  EXPECT_EQ(r.uuid, "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f");
}

template <typename T>
void Append(std::vector<uint8_t>& buffer, const T& record) {
  const size_t at = buffer.size();
  buffer.resize(at + (sizeof(T) + 7) / 8 * 8);  // records are 8-byte aligned
  std::memcpy(buffer.data() + at, &record, sizeof(T));
}

TEST(CuptiRecordsTest, DecodesAHandBuiltBufferIntoAReadableTrace) {
  std::vector<uint8_t> buffer;
  Append(buffer, Memcpy());
  Append(buffer, Kernel());
  Append(buffer, Memset());
  Append(buffer, Marker(CUPTI_ACTIVITY_FLAG_MARKER_START, kT0 + 10, "step"));
  Append(buffer, Marker(CUPTI_ACTIVITY_FLAG_MARKER_END, kT0 + 800, nullptr));
  CUpti_ActivityKernel10 unfinished = Kernel();
  unfinished.start = 0;
  unfinished.end = 0;
  Append(buffer, unfinished);
  // CUPTI walks the buffer in 8-byte aligned storage it owns; copy into such storage.
  std::vector<uint64_t> aligned((buffer.size() + 7) / 8);
  std::memcpy(aligned.data(), buffer.data(), buffer.size());

  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("gpuroof_cupti_" + std::to_string(getpid()) + ".sqlite");
  SinkStats stats;
  {
    RecordSink sink(path, SinkOptions{321, "130001"});
    DecodeCounts counts =
        DecodeActivityBuffer(reinterpret_cast<uint8_t*>(aligned.data()), buffer.size(), sink);
    EXPECT_EQ(counts.records, 6);
    EXPECT_EQ(counts.other_kinds, 0);
    EXPECT_FALSE(counts.buffer_error);
    stats = sink.Finish(0);
  }
  EXPECT_EQ(stats.kernels, 1);
  EXPECT_EQ(stats.memcpys, 1);
  EXPECT_EQ(stats.memsets, 1);
  EXPECT_EQ(stats.nvtx_events, 1);
  EXPECT_EQ(stats.zero_timestamps, 1);

  Trace trace = ReadNsysSqlite(path);
  EXPECT_EQ(trace.activity_count(), 3u);
  EXPECT_EQ(trace.diagnostics.records_skipped(), 0) << trace.diagnostics.Summary();
  ASSERT_EQ(trace.nvtx_ranges.size(), 1u);
  EXPECT_EQ(trace.strings.Get(trace.nvtx_ranges[0].name), "step");
  EXPECT_EQ(trace.nvtx_ranges[0].end_ns - trace.nvtx_ranges[0].start_ns, 790);
  bool saw_kernel = false;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const OpSignature& sig = trace.signatures[block.signature[i]];
      if (sig.engine == Engine::kKernel) {
        saw_kernel = true;
        EXPECT_EQ(trace.strings.Get(sig.name), "decode");
        EXPECT_EQ(trace.strings.Get(sig.detail_name), "decode(unsigned char const*, float*, int)");
        EXPECT_EQ(block.end_ns[i] - block.start_ns[i], 500);
      } else if (sig.engine == Engine::kMemset) {
        EXPECT_EQ(sig.src_kind, MemoryKind::kManaged);
      } else {
        EXPECT_EQ(sig.engine, Engine::kH2D);
        EXPECT_EQ(sig.src_kind, MemoryKind::kPinned);
      }
    }
  }
  EXPECT_TRUE(saw_kernel);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace gpuroof::recorder
