#include "gpuroof/analyses/engine_overlap.h"

#include <gtest/gtest.h>

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;

TEST(EngineOverlap, PairwiseIntersectionsAndIdleByHand) {
  // Window all = [0, 100).
  //   kernel: [0,30) [20,50)      -> busy [0,50)
  //   H2D:    [10,40) [60,70)     -> busy [10,40) + [60,70)
  //   D2H:    [35,65)
  // kernel∩H2D = [10,40) = 30; kernel∩D2H = [35,50) = 15; H2D∩D2H = [35,40) + [60,65) = 10
  // any = [0,70) and [90,100) from the memset below -> idle = 100 - 80 = 20
  Trace trace = MakeTrace({{Engine::kKernel, 0, 30, 0, 1},
                           {Engine::kKernel, 20, 50, 0, 2},
                           {Engine::kH2D, 10, 40, 0, 3},
                           {Engine::kH2D, 60, 70, 0, 3},
                           {Engine::kD2H, 35, 65, 0, 4},
                           {Engine::kMemset, 90, 100, 0, 5}},
                          3);
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  std::vector<EngineOverlap> overlaps = ComputeEngineOverlap(trace, loads);
  ASSERT_EQ(overlaps.size(), 1u);
  const EngineOverlap& o = overlaps[0];
  ASSERT_EQ(o.engines,
            (std::vector<Engine>{Engine::kKernel, Engine::kH2D, Engine::kD2H, Engine::kMemset}));
  EXPECT_EQ(o.intersection_ns[0][0], 50);
  EXPECT_EQ(o.intersection_ns[1][1], 40);
  EXPECT_EQ(o.intersection_ns[0][1], 30);
  EXPECT_EQ(o.intersection_ns[1][0], 30);
  EXPECT_EQ(o.intersection_ns[0][2], 15);
  EXPECT_EQ(o.intersection_ns[1][2], 10);
  EXPECT_EQ(o.intersection_ns[0][3], 0);
  EXPECT_EQ(o.idle_ns, 20);
}

// Communication hidden behind compute is comm ∩ (kernel ∪ graph), worked by hand over [0, 200):
//   comm   [0,100) [150,200)
//   kernel [10,40) [60,80)         graph [30,70) [160,170)
//   compute = [10,80) + [160,170): hidden = [10,80) 70 + [160,170) 10 = 80, not kernel ∩ comm 50
TEST(EngineOverlap, HiddenCommIsUnderKernelsOrWholeGraphLaunches) {
  Trace trace = MakeTrace({{Engine::kComm, 0, 100, 0, 1, 0, "ncclKernel_AllReduce"},
                           {Engine::kKernel, 10, 40, 0, 2},
                           {Engine::kGraph, 30, 70, 0, 3},
                           {Engine::kKernel, 60, 80, 0, 2},
                           {Engine::kComm, 150, 200, 0, 1, 0, "ncclKernel_AllReduce"},
                           {Engine::kGraph, 160, 170, 0, 3}},
                          2);
  EngineLoadOptions options;
  options.window = ParseWindowSpec("all");
  const std::vector<EngineOverlap> overlaps =
      ComputeEngineOverlap(trace, ComputeEngineLoad(trace, options));
  ASSERT_EQ(overlaps.size(), 1u);
  EXPECT_EQ(overlaps[0].comm_hidden_ns, 80);
  EXPECT_EQ(overlaps[0].intersection_ns[0][1], 50);  // kernel x comm, as before
}

TEST(EngineOverlap, UsesTheWindowOfEachDevice) {
  // Window 20:60 clips the kernel [0,50) to [20,50) and the copy [40,80) to [40,60).
  Trace trace = MakeTrace(
      {{Engine::kKernel, 0, 50, 0}, {Engine::kH2D, 40, 80, 0}, {Engine::kKernel, 0, 100, 1}});
  EngineLoadOptions options;
  options.window = ParseWindowSpec("20:60");
  std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
  std::vector<EngineOverlap> overlaps = ComputeEngineOverlap(trace, loads);
  ASSERT_EQ(overlaps.size(), 2u);
  EXPECT_EQ(overlaps[0].intersection_ns[0][1], 10);   // [40,50)
  EXPECT_EQ(overlaps[0].idle_ns, 40 - 30 - 20 + 10);  // window 40, union [20,60) -> 0
  EXPECT_EQ(overlaps[1].engines, std::vector<Engine>{Engine::kKernel});
  EXPECT_EQ(overlaps[1].intersection_ns[0][0], 40);
  EXPECT_EQ(overlaps[1].idle_ns, 0);
}

}  // namespace
}  // namespace gpuroof
