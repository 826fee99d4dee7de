#include "gpuroof/analyses/copy_summary.h"

#include <limits>

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;
using testing::Op;

constexpr MemoryKind kPageable = MemoryKind::kPageable;
constexpr MemoryKind kPinned = MemoryKind::kPinned;
constexpr MemoryKind kDevice = MemoryKind::kDevice;

// MakeTrace() interns signatures by engine only; give the op(s) of `device` starting at
// `start_ns` on `engine` their own signature with these memory kinds.
void SetKinds(Trace& trace, Engine engine, int64_t start_ns, MemoryKind src, MemoryKind dst,
              int32_t device = 0) {
  OpSignature signature;
  signature.engine = engine;
  signature.src_kind = src;
  signature.dst_kind = dst;
  auto found = std::find(trace.signatures.begin(), trace.signatures.end(), signature);
  auto index = static_cast<uint32_t>(found - trace.signatures.begin());
  if (found == trace.signatures.end()) trace.signatures.push_back(signature);
  int changed = 0;
  for (ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.start_ns[i] == start_ns && block.engine[i] == engine &&
          trace.streams[block.stream[i]].device_id == device) {
        block.signature[i] = index;
        ++changed;
      }
    }
  }
  ASSERT_EQ(changed, 1) << "no single op at " << start_ns;
}

// Worked by hand. Processing window of device 0: first kernel start 100 -> later of the last
// kernel end (700) and the last D2H end (800) = [100, 800).
//   H2D Pageable->Device [0,100) 500 B   only touches the window: not counted
//                        [0,400) 4000 B  counted; clipped [100,400) = 300; 4000/400 = 10 GB/s
//   H2D Pinned->Device   [200,300) 2000 B s2 (20 GB/s), [250,290) 400 B s3 (10 GB/s, overlaps
//                        the first on another stream), [300,330) 900 B (30 GB/s)
//                        -> 3 copies, 3300 B, time 170, median duration 40, 3300/170 GB/s,
//                           median bandwidth 20
//   D2H Device->Pageable [700,800) 1000 B -> 10 GB/s
//   D2H Device->Pinned   [720,760) 200 B, [760,780) 100 B -> 300/60 = 5 GB/s; median
//                        duration (20+40)/2 = 30, median bandwidth 5
//   memset Device        [50,60) 10 B before the window; [150,170) 2000 B -> 100 GB/s
Trace ExampleTrace(int blocks) {
  Trace trace = MakeTrace(
      {
          {Engine::kKernel, 100, 200, 0, 1},
          {Engine::kKernel, 600, 700, 0, 1},
          {Engine::kH2D, 0, 100, 0, 7, 500},
          {Engine::kH2D, 0, 400, 0, 8, 4000},
          {Engine::kH2D, 200, 300, 0, 2, 2000},
          {Engine::kH2D, 250, 290, 0, 3, 400},
          {Engine::kH2D, 300, 330, 0, 2, 900},
          {Engine::kD2H, 700, 800, 0, 1, 1000},
          {Engine::kD2H, 720, 760, 0, 2, 200},
          {Engine::kD2H, 760, 780, 0, 2, 100},
          {Engine::kMemset, 50, 60, 0, 1, 10},
          {Engine::kMemset, 150, 170, 0, 1, 2000},
      },
      blocks);
  // H2D ops starting at 0: two of them, on streams 7 and 8; both pageable.
  OpSignature pageable_h2d{Engine::kH2D};
  pageable_h2d.src_kind = kPageable;
  pageable_h2d.dst_kind = kDevice;
  trace.signatures.push_back(pageable_h2d);
  for (ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.engine[i] == Engine::kH2D && block.start_ns[i] == 0) {
        block.signature[i] = static_cast<uint32_t>(trace.signatures.size() - 1);
      }
    }
  }
  SetKinds(trace, Engine::kH2D, 200, kPinned, kDevice);
  SetKinds(trace, Engine::kH2D, 250, kPinned, kDevice);
  SetKinds(trace, Engine::kH2D, 300, kPinned, kDevice);
  SetKinds(trace, Engine::kD2H, 700, kDevice, kPageable);
  SetKinds(trace, Engine::kD2H, 720, kDevice, kPinned);
  SetKinds(trace, Engine::kD2H, 760, kDevice, kPinned);
  SetKinds(trace, Engine::kMemset, 50, kDevice, MemoryKind::kUnknown);
  SetKinds(trace, Engine::kMemset, 150, kDevice, MemoryKind::kUnknown);
  return trace;
}

CopySummaryOptions Options(const std::string& window) {
  CopySummaryOptions options;
  options.window = ParseWindowSpec(window);
  return options;
}

class CopySummaryBlocks : public ::testing::TestWithParam<int> {};

TEST_P(CopySummaryBlocks, HandWorkedProcessingWindow) {
  Trace trace = ExampleTrace(GetParam());
  std::vector<DeviceCopies> devices = ComputeCopySummary(trace, Options("processing"));
  ASSERT_EQ(devices.size(), 1u);
  const DeviceCopies& d = devices[0];
  EXPECT_EQ(d.window.start_ns, 100);
  EXPECT_EQ(d.window.end_ns, 800);
  ASSERT_EQ(d.rows.size(), 5u);

  const CopyRow& pageable = d.rows[0];
  EXPECT_EQ(CopyLabel(pageable.engine, pageable.src_kind, pageable.dst_kind),
            "H2D Pageable->Device");
  EXPECT_EQ(pageable.count, 1);
  EXPECT_EQ(pageable.bytes, 4000u);
  EXPECT_EQ(pageable.sum_ns, 300);
  EXPECT_EQ(pageable.op_time_ns, 400);
  EXPECT_DOUBLE_EQ(pageable.median_ns, 400);
  EXPECT_DOUBLE_EQ(*pageable.bandwidth_gbps, 10.0);
  EXPECT_DOUBLE_EQ(*pageable.median_bandwidth_gbps, 10.0);
  EXPECT_TRUE(pageable.pageable);

  const CopyRow& pinned = d.rows[1];
  EXPECT_EQ(CopyLabel(pinned.engine, pinned.src_kind, pinned.dst_kind), "H2D Pinned->Device");
  EXPECT_EQ(pinned.count, 3);
  EXPECT_EQ(pinned.bytes, 3300u);
  EXPECT_EQ(pinned.sum_ns, 170);
  EXPECT_EQ(pinned.op_time_ns, 170);
  EXPECT_DOUBLE_EQ(pinned.median_ns, 40);
  EXPECT_DOUBLE_EQ(*pinned.bandwidth_gbps, 3300.0 / 170.0);
  EXPECT_DOUBLE_EQ(*pinned.median_bandwidth_gbps, 20.0);
  EXPECT_FALSE(pinned.pageable);

  const CopyRow& d2h_pageable = d.rows[2];
  EXPECT_EQ(CopyLabel(d2h_pageable.engine, d2h_pageable.src_kind, d2h_pageable.dst_kind),
            "D2H Device->Pageable");
  EXPECT_EQ(d2h_pageable.count, 1);
  EXPECT_DOUBLE_EQ(*d2h_pageable.bandwidth_gbps, 10.0);
  EXPECT_TRUE(d2h_pageable.pageable);

  const CopyRow& d2h_pinned = d.rows[3];
  EXPECT_EQ(CopyLabel(d2h_pinned.engine, d2h_pinned.src_kind, d2h_pinned.dst_kind),
            "D2H Device->Pinned");
  EXPECT_EQ(d2h_pinned.count, 2);
  EXPECT_EQ(d2h_pinned.bytes, 300u);
  EXPECT_EQ(d2h_pinned.sum_ns, 60);
  EXPECT_DOUBLE_EQ(d2h_pinned.median_ns, 30);
  EXPECT_DOUBLE_EQ(*d2h_pinned.bandwidth_gbps, 5.0);
  EXPECT_DOUBLE_EQ(*d2h_pinned.median_bandwidth_gbps, 5.0);
  EXPECT_FALSE(d2h_pinned.pageable);

  const CopyRow& memset = d.rows[4];
  EXPECT_EQ(CopyLabel(memset.engine, memset.src_kind, memset.dst_kind), "memset Device");
  EXPECT_EQ(memset.count, 1);
  EXPECT_EQ(memset.bytes, 2000u);
  EXPECT_DOUBLE_EQ(*memset.bandwidth_gbps, 100.0);
  EXPECT_FALSE(memset.pageable);

  EXPECT_EQ(d.pageable_count(), 2);
  EXPECT_EQ(d.pageable_bytes(), 5000u);
}

INSTANTIATE_TEST_SUITE_P(Blocks, CopySummaryBlocks, ::testing::Values(1, 3));

TEST(CopySummary, WindowAllCountsTheEdgeCopies) {
  Trace trace = ExampleTrace(2);
  std::vector<DeviceCopies> devices = ComputeCopySummary(trace, Options("all"));
  ASSERT_EQ(devices.size(), 1u);
  const DeviceCopies& d = devices[0];
  EXPECT_EQ(d.window.start_ns, 0);
  EXPECT_EQ(d.window.end_ns, 800);
  // H2D Pageable->Device: [0,100) 500 B and [0,400) 4000 B -> 4500 B / 500 ns = 9 GB/s; median
  // duration (100+400)/2 = 250; median bandwidth (5+10)/2 = 7.5.
  const CopyRow& pageable = d.rows[0];
  EXPECT_EQ(pageable.count, 2);
  EXPECT_EQ(pageable.bytes, 4500u);
  EXPECT_EQ(pageable.sum_ns, 500);
  EXPECT_DOUBLE_EQ(pageable.median_ns, 250);
  EXPECT_DOUBLE_EQ(*pageable.bandwidth_gbps, 9.0);
  EXPECT_DOUBLE_EQ(*pageable.median_bandwidth_gbps, 7.5);
  const CopyRow& memset = d.rows.back();
  EXPECT_EQ(memset.count, 2);
  EXPECT_EQ(memset.bytes, 2010u);
  EXPECT_EQ(memset.sum_ns, 30);
  EXPECT_DOUBLE_EQ(memset.median_ns, 15);
  EXPECT_EQ(d.pageable_count(), 3);
  EXPECT_EQ(d.pageable_bytes(), 5500u);
}

TEST(CopySummary, DevicesStayApartAndKernelOnlyDevicesAreLeftOut) {
  // Device 1 has copies but no kernel: its window falls back to `all` with a note. Device 2 runs
  // kernels only. A zero-length copy counts but has no bandwidth of its own.
  Trace trace = MakeTrace({
      {Engine::kKernel, 0, 10, 0, 1},
      {Engine::kH2D, 2, 6, 0, 1, 40},
      {Engine::kH2D, 1000, 1100, 1, 1, 100},
      {Engine::kH2D, 1100, 1100, 1, 2, 8},
      {Engine::kKernel, 0, 50, 2, 1},
  });
  SetKinds(trace, Engine::kH2D, 2, kPinned, kDevice, 0);
  SetKinds(trace, Engine::kH2D, 1000, kPinned, kDevice, 1);
  SetKinds(trace, Engine::kH2D, 1100, kPinned, kDevice, 1);
  std::vector<DeviceCopies> devices = ComputeCopySummary(trace, Options("processing"));
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].device_id, 0);
  ASSERT_EQ(devices[0].rows.size(), 1u);
  EXPECT_EQ(devices[0].rows[0].bytes, 40u);
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].bandwidth_gbps, 10.0);
  EXPECT_EQ(devices[1].device_id, 1);
  EXPECT_EQ(devices[1].window.policy, "all");
  EXPECT_FALSE(devices[1].window.note.empty());
  ASSERT_EQ(devices[1].rows.size(), 1u);
  const CopyRow& row = devices[1].rows[0];
  EXPECT_EQ(row.count, 2);
  EXPECT_EQ(row.bytes, 108u);
  EXPECT_EQ(row.op_time_ns, 100);
  // The rate leaves out the zero-length copy's 8 bytes (ByteRate): 100 B / 100 ns, not 108 B.
  EXPECT_DOUBLE_EQ(*row.bandwidth_gbps, 1.0);
  EXPECT_EQ(row.rate.zero_duration_ops, 1);
  EXPECT_EQ(row.rate.zero_duration_bytes, 8u);
  EXPECT_DOUBLE_EQ(*row.median_bandwidth_gbps, 1.0);  // only the copy that takes time
  EXPECT_DOUBLE_EQ(row.median_ns, 50);                // (0 + 100) / 2
  EXPECT_EQ(devices[1].pageable_count(), 0);
}

// A device whose only op is a copy that takes no time has no window: the engine load leaves it
// out and says so; `copies` follows it instead of failing.
TEST(CopySummary, ADeviceWhoseOpsTakeNoTimeIsLeftOut) {
  Trace trace = MakeTrace({
      {Engine::kKernel, 0, 10, 0, 1},
      {Engine::kH2D, 2, 6, 0, 1, 40},
      {Engine::kH2D, 5, 5, 2, 1, 8},
  });
  std::vector<DeviceCopies> devices = ComputeCopySummary(trace, Options("processing"));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].device_id, 0);
  EXPECT_NE(devices[0].window.note.find("device 2 left out"), std::string::npos)
      << devices[0].window.note;
}

TEST(CopySummary, NoCopyInTheWindowGivesAnEmptyDevice) {
  Trace trace = MakeTrace({
      {Engine::kH2D, 0, 100, 0, 1, 100},
      {Engine::kKernel, 200, 300, 0, 1},
  });
  std::vector<DeviceCopies> devices = ComputeCopySummary(trace, Options("processing"));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_TRUE(devices[0].rows.empty());
}

TEST(CopySummary, TraceWithoutCopiesIsAnInputErrorNamingTheFile) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100, 0, 1}});
  try {
    ComputeCopySummary(trace, Options("processing"));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("memory.trace"), std::string::npos) << e.what();
  }
}

TEST(CopySummary, PageableIsTheHostSideOnly) {
  EXPECT_TRUE(IsPageableHostCopy(Engine::kH2D, kPageable, kDevice));
  EXPECT_TRUE(IsPageableHostCopy(Engine::kD2H, kDevice, kPageable));
  EXPECT_FALSE(IsPageableHostCopy(Engine::kH2D, kPinned, kDevice));
  EXPECT_FALSE(IsPageableHostCopy(Engine::kD2H, kDevice, kPinned));
  EXPECT_FALSE(IsPageableHostCopy(Engine::kD2D, kDevice, kDevice));
  EXPECT_EQ(CopyLabel(Engine::kD2H, kDevice, kPinned), "D2H Device->Pinned");
  EXPECT_EQ(CopyLabel(Engine::kMemset, kDevice, MemoryKind::kUnknown), "memset Device");
}

}  // namespace
}  // namespace gpuroof

namespace gpuroof {
namespace {

// Review finding F3: the pageable classes' op times, each already clamped at the int64 limit,
// added past it and printed a negative time at stake.
TEST(CopySummary, PageableTimeSaturatesInsteadOfWrappingNegative) {
  DeviceCopies device;
  CopyRow h2d;
  h2d.pageable = true;
  h2d.count = 1;
  h2d.op_time_ns = std::numeric_limits<int64_t>::max();
  CopyRow d2h = h2d;
  d2h.engine = Engine::kD2H;
  CopyRow pinned = h2d;
  pinned.pageable = false;
  device.rows = {h2d, d2h, pinned};
  EXPECT_EQ(device.pageable_time_ns(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(device.pageable_count(), 2);
  device.rows[0].op_time_ns = 5;
  device.rows[1].op_time_ns = 7;
  EXPECT_EQ(device.pageable_time_ns(), 12);
}

}  // namespace
}  // namespace gpuroof
