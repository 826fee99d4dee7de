// The recorder's plain parts: enum conversion, kernel names, NVTX pairing, the buffer pool and
// the status file `gpuroof record` reads.
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>
#include <unistd.h>

#include "gpuroof/model/kernel_names.h"
#include "gpuroof/recorder/buffer_pool.h"
#include "gpuroof/recorder/enum_conversion.h"
#include "gpuroof/recorder/nvtx_pairing.h"
#include "gpuroof/recorder/recorder_env.h"

namespace gpuroof::recorder {
namespace {

// The whole table, CUPTI value -> nsys value (refs: CUPTI 0 Unknown, 1 Pageable, 2 Pinned,
// 3 Device, 4 Array, 5 Managed, 6 Device Static, 7 Managed Static; nsys 0 Pageable ... 6
// Managed Static, 7 Unknown).
TEST(EnumConversionTest, MemoryKindsShiftDownWithUnknownLast) {
  EXPECT_EQ(NsysMemoryKind(0), 7);  // Unknown
  EXPECT_EQ(NsysMemoryKind(1), 0);  // Pageable
  EXPECT_EQ(NsysMemoryKind(2), 1);  // Pinned
  EXPECT_EQ(NsysMemoryKind(3), 2);  // Device
  EXPECT_EQ(NsysMemoryKind(4), 3);  // Array
  EXPECT_EQ(NsysMemoryKind(5), 4);  // Managed
  EXPECT_EQ(NsysMemoryKind(6), 5);  // Device Static
  EXPECT_EQ(NsysMemoryKind(7), 6);  // Managed Static
  EXPECT_EQ(NsysMemoryKind(8), 7);  // a kind a later CUPTI adds: Unknown, never a wrong kind
  EXPECT_EQ(NsysMemoryKind(-1), 7);
}

TEST(EnumConversionTest, CopyKindsPassThroughUpToPeer) {
  for (int kind = 0; kind <= 10; ++kind)
    EXPECT_EQ(NsysCopyKind(kind), kind);
  EXPECT_EQ(NsysCopyKind(11), 0);  // nsys's unified-memory ids are not CUPTI memcpy kinds
  EXPECT_EQ(NsysCopyKind(255), 0);
}

TEST(EnumConversionTest, GlobalIdsUseTheNsysPacking) {
  // (1 << 48) | (777 << 24) = 281474976710656 + 13035896832
  EXPECT_EQ(NsysGlobalPid(777), 281488012607488);
  EXPECT_EQ(NsysGlobalTid(777, 10), 281488012607498);
  EXPECT_EQ(NsysGlobalPid(0x1000001), NsysGlobalPid(1));  // only 24 bits of pid fit
}

TEST(KernelNamesTest, DemanglesItaniumNamesAndKeepsOthers) {
  EXPECT_EQ(DemangleKernelName("_Z11DaxpyKernelidPdS_"),
            "DaxpyKernel(int, double, double*, double*)");
  EXPECT_EQ(DemangleKernelName("my_c_kernel"), "my_c_kernel");
  EXPECT_EQ(DemangleKernelName(""), "");
}

TEST(KernelNamesTest, ShortNameDropsReturnTypeScopesTemplatesAndParameters) {
  EXPECT_EQ(ShortKernelName("DaxpyKernel(int, double, double*, double*)"), "DaxpyKernel");
  EXPECT_EQ(ShortKernelName("void ns::scale<float>(float*, int)"), "scale");
  EXPECT_EQ(ShortKernelName("void at::native::vectorized_elementwise_kernel<4, "
                            "at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, "
                            "at::native::FillFunctor<float>, std::array<char*, 1ul>)"),
            "vectorized_elementwise_kernel");
  EXPECT_EQ(ShortKernelName("(anonymous namespace)::fill(float*)"), "fill");
  EXPECT_EQ(ShortKernelName("my_c_kernel"), "my_c_kernel");
  // Review finding F6: the call operator keeps its "()" (its parameter list follows).
  EXPECT_EQ(ShortKernelName("void foo::operator()<float>(float*)"), "operator()");
  EXPECT_EQ(ShortKernelName("foo::operator()(int)"), "operator()");
  EXPECT_EQ(ShortKernelName("apply_operator()"), "apply_operator");
  EXPECT_EQ(ShortKernelName("void apply_operator(int)"), "apply_operator");
}

MarkerRecord Marker(MarkerRecord::Kind kind, int64_t t, uint64_t id, uint32_t tid,
                    const char* name = "") {
  MarkerRecord m;
  m.kind = kind;
  m.timestamp_ns = t;
  m.id = id;
  m.pid = 5;
  m.tid = tid;
  m.name = name;
  return m;
}

TEST(NvtxPairingTest, PairsStartAndEndInEitherOrder) {
  NvtxPairing pairing;
  EXPECT_FALSE(pairing.Add(Marker(MarkerRecord::Kind::kStart, 100, 1, 7, "outer")));
  EXPECT_FALSE(pairing.Add(Marker(MarkerRecord::Kind::kEnd, 300, 2, 8)));  // END seen first
  EXPECT_EQ(pairing.Unpaired(), 2);
  std::optional<NvtxEvent> inner = pairing.Add(Marker(MarkerRecord::Kind::kStart, 150, 2, 7, "x"));
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->start_ns, 150);
  EXPECT_EQ(*inner->end_ns, 300);
  EXPECT_EQ(inner->text, "x");
  EXPECT_EQ(inner->event_type, kNvtxStartEndRange);  // started on 7, ended on 8
  std::optional<NvtxEvent> outer = pairing.Add(Marker(MarkerRecord::Kind::kEnd, 400, 1, 7));
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->start_ns, 100);
  EXPECT_EQ(*outer->end_ns, 400);
  EXPECT_EQ(outer->event_type, kNvtxPushPopRange);
  EXPECT_EQ(pairing.Unpaired(), 0);
}

TEST(NvtxPairingTest, MarksAreEventsWithoutEnd) {
  NvtxPairing pairing;
  std::optional<NvtxEvent> mark = pairing.Add(Marker(MarkerRecord::Kind::kMark, 50, 9, 7, "m"));
  ASSERT_TRUE(mark);
  EXPECT_EQ(mark->event_type, kNvtxMark);
  EXPECT_FALSE(mark->end_ns);
  EXPECT_EQ(pairing.Unpaired(), 0);
}

TEST(BufferPoolTest, HandsOutZeroedAlignedBuffersAndCountsFallbacks) {
  BufferPool pool(10000, 2);
  EXPECT_EQ(pool.BufferBytes(), 12288u);  // rounded up to whole 4096-byte pages
  uint8_t* a = pool.Acquire();
  uint8_t* b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(pool.FallbackAllocations(), 0);
  uint8_t* c = pool.Acquire();  // the pool is empty now
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(pool.FallbackAllocations(), 1);
  EXPECT_EQ(pool.Allocated(), 3);
  std::set<uint8_t*> distinct{a, b, c};
  EXPECT_EQ(distinct.size(), 3u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 8, 0u);  // CUPTI's alignment rule
  a[0] = 0xff;
  a[12287] = 0xff;
  pool.Release(a);
  uint8_t* again = pool.Acquire();
  EXPECT_EQ(again, a);  // reused, not allocated
  EXPECT_EQ(again[0], 0);
  EXPECT_EQ(again[12287], 0);
  EXPECT_EQ(pool.Allocated(), 3);
  pool.Release(again);
  pool.Release(b);
  pool.Release(c);
}

TEST(RecorderEnvTest, OutputPatternTakesThePid) {
  EXPECT_EQ(ExpandOutputPattern("/tmp/x/%p.sqlite", 1234), "/tmp/x/1234.sqlite");
  EXPECT_EQ(ExpandOutputPattern("a%pb%p", 7), "a7b7");
  EXPECT_EQ(ExpandOutputPattern("100%", 7), "100%");
  unsetenv(kOutputEnv);
  unsetenv(kNvtxEnv);
  EXPECT_EQ(ReadRecorderConfig(42).output, "gpuroof-record-42.sqlite");
  EXPECT_FALSE(ReadRecorderConfig(42).nvtx);
  setenv(kOutputEnv, "/o/%p.sqlite", 1);
  setenv(kNvtxEnv, "1", 1);
  EXPECT_EQ(ReadRecorderConfig(42).output, "/o/42.sqlite");
  EXPECT_TRUE(ReadRecorderConfig(42).nvtx);
  unsetenv(kOutputEnv);
  unsetenv(kNvtxEnv);
}

TEST(RecorderEnvTest, StatusRoundTrips) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("gpuroof_status_" + std::to_string(getpid()));
  EXPECT_FALSE(ReadRecorderStatus(file));  // missing: the process never started recording
  RecorderStatus written;
  written.records = 123;
  written.dropped = 4;
  written.zero_timestamps = 5;
  written.unpaired_markers = 6;
  written.finish_ns = 7890;
  written.failed_buffer_requests = 8;
  written.unrecorded = {"DEVICE: CUPTI_ERROR_NOT_COMPATIBLE", "MEMCPY2: CUPTI_ERROR_UNKNOWN"};
  WriteRecorderStatus(file, written);
  std::optional<RecorderStatus> read = ReadRecorderStatus(file);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->records, 123);
  EXPECT_EQ(read->dropped, 4);
  EXPECT_EQ(read->zero_timestamps, 5);
  EXPECT_EQ(read->unpaired_markers, 6);
  EXPECT_EQ(read->finish_ns, 7890);
  EXPECT_EQ(read->failed_buffer_requests, 8);
  EXPECT_EQ(read->unrecorded, written.unrecorded);
  EXPECT_EQ(read->error, "");
  RecorderStatus failed;
  failed.error = "cannot subscribe to CUPTI: CUPTI_ERROR_UNKNOWN";
  WriteRecorderStatus(file, failed);
  read = ReadRecorderStatus(file);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->error, "cannot subscribe to CUPTI: CUPTI_ERROR_UNKNOWN");
  EXPECT_EQ(read->records, 0);
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace gpuroof::recorder
