#include "gpuroof/analyses/copy_contention.h"

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;
using testing::Op;

std::vector<DeviceContention> Contention(const Trace& trace, const std::string& window) {
  CopyContentionOptions options;
  options.window = ParseWindowSpec(window);
  return ComputeCopyContention(trace, options);
}

// Window all = [0, 300). H2D [0,100) 1000 B overlaps D2H [50,150) for 50 ns: 500 B while D2H is
// busy, 500 B alone; H2D [200,300) 3000 B runs alone.
//   H2D: busy 50 ns / 500 B = 10 GB/s; idle 150 ns / 3500 B = 23.33 GB/s;
//        loss 100 (1 - 10 / (3500/150)) = 100 (1 - 1500/3500) = 57.142857 %; share 50/200 = 25 %
//   D2H [50,150) 500 B (5 B/ns) against the H2D union [0,100) u [200,300): 50 ns busy (250 B),
//        50 ns idle (250 B): 5 GB/s both, loss 0, share 50 %.
TEST(CopyContention, SplitsEachCopyByTheOppositeBusyUnion) {
  for (int blocks : {1, 3}) {
    Trace trace = MakeTrace({{Engine::kH2D, 0, 100, 0, 1, 1000},
                             {Engine::kD2H, 50, 150, 0, 2, 500},
                             {Engine::kH2D, 200, 300, 0, 1, 3000}},
                            blocks);
    auto devices = Contention(trace, "all");
    ASSERT_EQ(devices.size(), 1u);
    ASSERT_EQ(devices[0].directions.size(), 2u);
    const DirectionContention& h2d = devices[0].directions[0];
    EXPECT_EQ(h2d.engine, Engine::kH2D);
    EXPECT_EQ(h2d.opposite, Engine::kD2H);
    EXPECT_EQ(h2d.ops, 2);
    EXPECT_EQ(h2d.opposite_busy.time_ns, 50);
    EXPECT_DOUBLE_EQ(h2d.opposite_busy.bytes, 500);
    EXPECT_EQ(h2d.opposite_idle.time_ns, 150);
    EXPECT_DOUBLE_EQ(h2d.opposite_idle.bytes, 3500);
    EXPECT_DOUBLE_EQ(*h2d.opposite_busy.bandwidth_gbps(), 10.0);
    EXPECT_DOUBLE_EQ(*h2d.opposite_idle.bandwidth_gbps(), 3500.0 / 150.0);
    EXPECT_NEAR(*h2d.loss_pct(), 57.142857142857, 1e-9);
    EXPECT_DOUBLE_EQ(*h2d.busy_share_pct(), 25.0);
    const DirectionContention& d2h = devices[0].directions[1];
    EXPECT_EQ(d2h.engine, Engine::kD2H);
    EXPECT_EQ(d2h.ops, 1);
    EXPECT_EQ(d2h.opposite_busy.time_ns, 50);
    EXPECT_DOUBLE_EQ(d2h.opposite_busy.bytes, 250);
    EXPECT_EQ(d2h.opposite_idle.time_ns, 50);
    EXPECT_DOUBLE_EQ(d2h.opposite_idle.bytes, 250);
    EXPECT_DOUBLE_EQ(*d2h.loss_pct(), 0.0);
    EXPECT_DOUBLE_EQ(*d2h.busy_share_pct(), 50.0);
  }
}

// Processing window of device 0: kernel [100,500), last D2H end 600 -> [100, 600).
//   H2D A [0,200) 2000 B (10 B/ns), clipped [100,200): 100 ns alone, 1000 B
//   H2D B [150,450) 600 B (2 B/ns), another stream, overlapping A: against the D2H union
//         [400,600) 50 ns busy (100 B), 250 ns idle (500 B)
//   H2D C [500,700) 4000 B (20 B/ns), clipped [500,600): 100 ns busy, 2000 B
//   H2D zero-length [300,300): takes no time, left out
//   -> H2D busy 150 ns / 2100 B = 14 GB/s; idle 350 ns / 1500 B; share 30 %;
//      loss 100 (1 - 14 * 350 / 1500) = -226.666... % (faster while D2H is busy)
//   D2H [400,600) 2000 B (10 B/ns) against the H2D union [100,450) u [500,600): 150 ns busy
//         (1500 B), 50 ns idle (500 B); share 75 %; loss 0.
// Device 1 has only an H2D copy (no kernel: its window falls back to all, [0,100)): never
// against a busy D2H, so no busy bandwidth and no loss; a D2H of device 0 at the same time does
// not count for it.
TEST(CopyContention, ClipsToTheWindowAndKeepsDevicesApart) {
  for (int blocks : {1, 4}) {
    Trace trace = MakeTrace({{Engine::kKernel, 100, 500, 0, 1},
                             {Engine::kH2D, 0, 200, 0, 2, 2000},
                             {Engine::kH2D, 150, 450, 0, 3, 600},
                             {Engine::kH2D, 300, 300, 0, 3, 77},
                             {Engine::kD2H, 400, 600, 0, 4, 2000},
                             {Engine::kH2D, 500, 700, 0, 2, 4000},
                             {Engine::kH2D, 0, 100, 1, 2, 100},
                             {Engine::kD2H, 0, 50, 0, 4, 0}},
                            blocks);
    auto devices = Contention(trace, "processing");
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0].window.start_ns, 100);
    EXPECT_EQ(devices[0].window.end_ns, 600);
    const DirectionContention& h2d = devices[0].directions.at(0);
    EXPECT_EQ(h2d.ops, 3);
    EXPECT_EQ(h2d.opposite_busy.time_ns, 150);
    EXPECT_DOUBLE_EQ(h2d.opposite_busy.bytes, 2100);
    EXPECT_EQ(h2d.opposite_idle.time_ns, 350);
    EXPECT_DOUBLE_EQ(h2d.opposite_idle.bytes, 1500);
    EXPECT_DOUBLE_EQ(*h2d.opposite_busy.bandwidth_gbps(), 14.0);
    EXPECT_DOUBLE_EQ(*h2d.busy_share_pct(), 30.0);
    EXPECT_NEAR(*h2d.loss_pct(), -226.66666666667, 1e-9);
    const DirectionContention& d2h = devices[0].directions.at(1);
    EXPECT_EQ(d2h.ops, 1);
    EXPECT_EQ(d2h.opposite_busy.time_ns, 150);
    EXPECT_DOUBLE_EQ(d2h.opposite_busy.bytes, 1500);
    EXPECT_EQ(d2h.opposite_idle.time_ns, 50);
    EXPECT_DOUBLE_EQ(d2h.opposite_idle.bytes, 500);
    EXPECT_DOUBLE_EQ(*d2h.busy_share_pct(), 75.0);
    EXPECT_NEAR(*d2h.loss_pct(), 0.0, 1e-12);

    EXPECT_EQ(devices[1].device_id, 1);
    ASSERT_EQ(devices[1].directions.size(), 1u);
    const DirectionContention& alone = devices[1].directions[0];
    EXPECT_EQ(alone.opposite_busy.time_ns, 0);
    EXPECT_EQ(alone.opposite_idle.time_ns, 100);
    EXPECT_FALSE(alone.opposite_busy.bandwidth_gbps().has_value());
    EXPECT_DOUBLE_EQ(*alone.opposite_idle.bandwidth_gbps(), 1.0);
    EXPECT_FALSE(alone.loss_pct().has_value());
    EXPECT_DOUBLE_EQ(*alone.busy_share_pct(), 0.0);
  }
}

// Intervals are half-open: a D2H that starts where an H2D ends does not contend with it. Two
// D2H copies at once count the H2D's busy time once each (times are per copy, not a union).
TEST(CopyContention, TouchingCopiesDoNotContendAndConcurrentCopiesCountEach) {
  Trace trace = MakeTrace({{Engine::kH2D, 0, 100, 0, 1, 100},
                           {Engine::kD2H, 100, 200, 0, 2, 100},
                           {Engine::kH2D, 300, 400, 0, 1, 100},
                           {Engine::kD2H, 300, 400, 0, 2, 200},
                           {Engine::kD2H, 350, 400, 0, 3, 100}});
  auto devices = Contention(trace, "all");
  ASSERT_EQ(devices.size(), 1u);
  const DirectionContention& d2h = devices[0].directions.at(1);
  EXPECT_EQ(d2h.ops, 3);
  EXPECT_EQ(d2h.opposite_busy.time_ns, 150);  // 100 + 50
  EXPECT_DOUBLE_EQ(d2h.opposite_busy.bytes, 300);
  EXPECT_EQ(d2h.opposite_idle.time_ns, 100);
  EXPECT_DOUBLE_EQ(d2h.opposite_idle.bytes, 100);
  const DirectionContention& h2d = devices[0].directions.at(0);
  EXPECT_EQ(h2d.opposite_busy.time_ns, 100);
  EXPECT_EQ(h2d.opposite_idle.time_ns, 100);
}

TEST(CopyContention, TraceWithoutCopiesIsAnError) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100}, {Engine::kMemset, 0, 10, 0, 7, 64}});
  try {
    Contention(trace, "all");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "memory.trace");
    EXPECT_NE(std::string(e.what()).find("no H2D or D2H"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpuroof
