#include "gpuroof/analyses/kernel_summary.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "gpuroof/model/errors.h"

#include "common/memory_trace.h"

namespace gpuroof {
namespace {

using testing::MakeTrace;
using testing::Op;

KernelSummaryOptions Options(const std::string& window = "all", KernelKey key = KernelKey::kName,
                             int64_t top = 0) {
  KernelSummaryOptions options;
  options.window = ParseWindowSpec(window);
  options.key = key;
  options.top = top;
  return options;
}

// Gives the op that starts at `start_ns` its own signature: a copy of its current one with the
// launch shape and demangled name given (so one short name can carry several shapes).
void Reshape(Trace& trace, int64_t start_ns, std::array<uint32_t, 3> grid,
             std::array<uint32_t, 3> block, const std::string& demangled = "") {
  for (ActivityBlock& b : trace.blocks) {
    for (size_t i = 0; i < b.size(); ++i) {
      if (b.start_ns[i] != start_ns) continue;
      OpSignature signature = trace.signatures[b.signature[i]];
      signature.grid = grid;
      signature.block = block;
      signature.detail_name = demangled.empty() ? 0 : trace.strings.Intern(demangled);
      auto found = std::find(trace.signatures.begin(), trace.signatures.end(), signature);
      b.signature[i] = static_cast<uint32_t>(found - trace.signatures.begin());
      if (found == trace.signatures.end()) trace.signatures.push_back(signature);
      return;
    }
  }
  FAIL() << "no op starts at " << start_ns;
}

// Worked by hand (window `all` = [0, 140)):
//   A: [0,10) [20,50) [60,80)  -> 10, 30, 20: n 3, total 60, mean 20, median 20, min 10, max 30,
//      stddev sqrt((100 + 0 + 100) / 2) = 10, p95 at rank 1.9 = 20 + 0.9*10 = 29, p99 = 29.8
//   B: [5,15) s2, [100,140)    -> 10, 40: n 2, total 50, mean 25, median 25, min 10, max 40,
//      stddev sqrt((225 + 225) / 1) = sqrt(450), p95 at rank 0.95 = 10 + 0.95*30 = 38.5, p99 39.7
//   kernel sum 110; busy = [0,15) + [20,50) + [60,80) + [100,140) = 15 + 30 + 20 + 40 = 105
//   The H2D copy [0,140) is not a kernel and changes nothing.
std::vector<Op> TwoKernels() {
  return {
      {Engine::kKernel, 0, 10, 0, 1, 0, "A"},    {Engine::kKernel, 5, 15, 0, 2, 0, "B"},
      {Engine::kKernel, 20, 50, 0, 1, 0, "A"},   {Engine::kKernel, 60, 80, 0, 1, 0, "A"},
      {Engine::kKernel, 100, 140, 0, 1, 0, "B"}, {Engine::kH2D, 0, 140, 0, 3, 4096},
  };
}

class KernelSummaryBlocks : public ::testing::TestWithParam<int> {};

TEST_P(KernelSummaryBlocks, HandWorkedStatisticsOddAndEvenCounts) {
  Trace trace = MakeTrace(TwoKernels(), GetParam());
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options());
  ASSERT_EQ(devices.size(), 1u);
  const DeviceKernels& d = devices[0];
  EXPECT_EQ(d.window.start_ns, 0);
  EXPECT_EQ(d.window.end_ns, 140);
  EXPECT_EQ(d.kernel_ops, 5);
  EXPECT_EQ(d.kernel_sum_ns, 110);
  EXPECT_EQ(d.kernel_busy_ns, 105);
  EXPECT_EQ(d.key_count, 2);
  ASSERT_EQ(d.rows.size(), 2u);

  const KernelRow& a = d.rows[0];
  EXPECT_EQ(a.key, "A");
  EXPECT_EQ(a.name, "A");
  EXPECT_FALSE(a.grid.has_value());
  EXPECT_EQ(a.stats.count, 3);
  EXPECT_EQ(a.stats.total_ns, 60);
  EXPECT_DOUBLE_EQ(a.stats.mean_ns, 20);
  EXPECT_DOUBLE_EQ(a.stats.median_ns, 20);
  EXPECT_EQ(a.stats.min_ns, 10);
  EXPECT_EQ(a.stats.max_ns, 30);
  EXPECT_DOUBLE_EQ(a.stats.stddev_ns, 10);
  EXPECT_DOUBLE_EQ(a.stats.p95_ns, 29);
  EXPECT_DOUBLE_EQ(a.stats.p99_ns, 29.8);
  EXPECT_DOUBLE_EQ(*a.sum_share_pct, 100.0 * 60 / 110);
  EXPECT_DOUBLE_EQ(*a.busy_share_pct, 100.0 * 60 / 105);

  const KernelRow& b = d.rows[1];
  EXPECT_EQ(b.key, "B");
  EXPECT_EQ(b.stats.count, 2);
  EXPECT_EQ(b.stats.total_ns, 50);
  EXPECT_DOUBLE_EQ(b.stats.mean_ns, 25);
  EXPECT_DOUBLE_EQ(b.stats.median_ns, 25);
  EXPECT_EQ(b.stats.min_ns, 10);
  EXPECT_EQ(b.stats.max_ns, 40);
  EXPECT_DOUBLE_EQ(b.stats.stddev_ns, std::sqrt(450.0));
  EXPECT_DOUBLE_EQ(b.stats.p95_ns, 38.5);
  EXPECT_DOUBLE_EQ(b.stats.p99_ns, 39.7);
  EXPECT_DOUBLE_EQ(*b.sum_share_pct, 100.0 * 50 / 110);
  EXPECT_DOUBLE_EQ(*b.busy_share_pct, 100.0 * 50 / 105);
  EXPECT_DOUBLE_EQ(*a.sum_share_pct + *b.sum_share_pct, 100.0);
}

INSTANTIATE_TEST_SUITE_P(SplitIntoBlocks, KernelSummaryBlocks, ::testing::Values(1, 2, 3));

TEST(KernelSummary, EvenCountOfFourMedianAndPercentiles) {
  // Durations 1, 2, 3, 10: median (2 + 3) / 2 = 2.5; p95 at rank 2.85 = 3 + 0.85*7 = 8.95;
  // p99 at rank 2.97 = 3 + 0.97*7 = 9.79; mean 4; stddev sqrt((9 + 4 + 1 + 36) / 3).
  Trace trace = MakeTrace({{Engine::kKernel, 0, 3, 0, 1, 0, "C"},
                           {Engine::kKernel, 10, 11, 0, 1, 0, "C"},
                           {Engine::kKernel, 20, 30, 0, 1, 0, "C"},
                           {Engine::kKernel, 40, 42, 0, 1, 0, "C"}});
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options());
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_EQ(devices[0].rows.size(), 1u);
  const DurationStats& s = devices[0].rows[0].stats;
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.total_ns, 16);
  EXPECT_DOUBLE_EQ(s.mean_ns, 4);
  EXPECT_DOUBLE_EQ(s.median_ns, 2.5);
  EXPECT_DOUBLE_EQ(s.p95_ns, 8.95);
  EXPECT_DOUBLE_EQ(s.p99_ns, 9.79);
  EXPECT_DOUBLE_EQ(s.stddev_ns, std::sqrt(50.0 / 3));
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].sum_share_pct, 100);
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].busy_share_pct, 100);
}

TEST(KernelSummary, OpsAreCountedAndClippedAsInTheEngineLoad) {
  // Window 10:70 = [10, 70): A[0,10) only touches the start (not counted); A[20,50) -> 30;
  // A[60,80) -> [60,70) = 10; B[5,15) -> [10,15) = 5; B[100,140) is outside.
  // Sum 45; busy [10,15) + [20,50) + [60,70) = 45.
  Trace trace = MakeTrace(TwoKernels());
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options("10:70"));
  ASSERT_EQ(devices.size(), 1u);
  const DeviceKernels& d = devices[0];
  EXPECT_EQ(d.kernel_ops, 3);
  EXPECT_EQ(d.kernel_sum_ns, 45);
  EXPECT_EQ(d.kernel_busy_ns, 45);
  ASSERT_EQ(d.rows.size(), 2u);
  EXPECT_EQ(d.rows[0].key, "A");
  EXPECT_EQ(d.rows[0].stats.count, 2);
  EXPECT_EQ(d.rows[0].stats.total_ns, 40);
  EXPECT_EQ(d.rows[0].stats.min_ns, 10);
  EXPECT_EQ(d.rows[1].key, "B");
  EXPECT_EQ(d.rows[1].stats.count, 1);
  EXPECT_EQ(d.rows[1].stats.total_ns, 5);
  EXPECT_DOUBLE_EQ(d.rows[1].stats.stddev_ns, 0);  // one value
  EXPECT_DOUBLE_EQ(*d.rows[0].sum_share_pct, 100.0 * 40 / 45);
}

TEST(KernelSummary, ProcessingWindowLeavesOutSetupCopiesButKeepsEveryKernel) {
  // processing = [first kernel start 100, max(last kernel end 180, last D2H end 200)).
  Trace trace = MakeTrace({{Engine::kH2D, 0, 90, 0, 1, 100},
                           {Engine::kKernel, 100, 130, 0, 1, 0, "k"},
                           {Engine::kKernel, 150, 180, 0, 1, 0, "k"},
                           {Engine::kD2H, 180, 200, 0, 1, 100}});
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options("processing"));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].window.start_ns, 100);
  EXPECT_EQ(devices[0].window.end_ns, 200);
  ASSERT_EQ(devices[0].rows.size(), 1u);
  EXPECT_EQ(devices[0].rows[0].stats.total_ns, 60);
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].busy_share_pct, 100);
}

// Fan2 with two launch shapes: (1024,1,1)x(4,1,1) takes 100 and 300, (256,1,1)x(16,1,1) takes 50.
Trace TwoShapes() {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 100, 0, 1, 0, "Fan2"},
                           {Engine::kKernel, 200, 500, 0, 1, 0, "Fan2"},
                           {Engine::kKernel, 600, 650, 0, 1, 0, "Fan2"},
                           {Engine::kKernel, 700, 710, 0, 1, 0, "Fan1"}});
  Reshape(trace, 0, {1024, 1, 1}, {4, 1, 1}, "Fan2(float*, float*, int)");
  Reshape(trace, 200, {1024, 1, 1}, {4, 1, 1}, "Fan2(float*, float*, int)");
  Reshape(trace, 600, {256, 1, 1}, {16, 1, 1}, "Fan2(float*, float*, int)");
  Reshape(trace, 700, {8, 1, 1}, {512, 1, 1});  // no demangled name in the trace
  return trace;
}

TEST(KernelSummary, LaunchKeySplitsOneNameIntoItsShapes) {
  Trace trace = TwoShapes();
  std::vector<DeviceKernels> by_name = ComputeKernelSummary(trace, Options());
  ASSERT_EQ(by_name.size(), 1u);
  ASSERT_EQ(by_name[0].rows.size(), 2u);
  EXPECT_EQ(by_name[0].rows[0].key, "Fan2");
  EXPECT_EQ(by_name[0].rows[0].stats.count, 3);
  EXPECT_EQ(by_name[0].rows[0].stats.total_ns, 450);
  EXPECT_DOUBLE_EQ(by_name[0].rows[0].stats.median_ns, 100);

  std::vector<DeviceKernels> by_launch =
      ComputeKernelSummary(trace, Options("all", KernelKey::kLaunch));
  ASSERT_EQ(by_launch.size(), 1u);
  const std::vector<KernelRow>& rows = by_launch[0].rows;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].key, "Fan2 <<<(1024,1,1),(4,1,1)>>>");
  EXPECT_EQ(rows[0].name, "Fan2");
  ASSERT_TRUE(rows[0].grid.has_value());
  EXPECT_EQ((*rows[0].grid)[0], 1024u);
  EXPECT_EQ((*rows[0].block)[0], 4u);
  EXPECT_EQ(rows[0].stats.count, 2);
  EXPECT_EQ(rows[0].stats.total_ns, 400);
  EXPECT_DOUBLE_EQ(rows[0].stats.median_ns, 200);
  EXPECT_EQ(rows[1].key, "Fan2 <<<(256,1,1),(16,1,1)>>>");
  EXPECT_EQ(rows[1].stats.count, 1);
  EXPECT_EQ(rows[1].stats.total_ns, 50);
  EXPECT_EQ(rows[2].key, "Fan1 <<<(8,1,1),(512,1,1)>>>");
  EXPECT_EQ(rows[2].stats.total_ns, 10);
  // 460 ns of kernels in all.
  EXPECT_DOUBLE_EQ(*rows[0].sum_share_pct, 100.0 * 400 / 460);
}

TEST(KernelSummary, DemangledKeyFallsBackToTheShortName) {
  Trace trace = TwoShapes();
  std::vector<DeviceKernels> devices =
      ComputeKernelSummary(trace, Options("all", KernelKey::kDemangled));
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_EQ(devices[0].rows.size(), 2u);
  EXPECT_EQ(devices[0].rows[0].key, "Fan2(float*, float*, int)");
  EXPECT_EQ(devices[0].rows[0].name, "Fan2");
  EXPECT_EQ(devices[0].rows[0].stats.count, 3);
  EXPECT_EQ(devices[0].rows[1].key, "Fan1");
}

TEST(KernelSummary, TiesSortByInstancesThenKeyAndTopCountsWhatItLeavesOut) {
  // b: 2 x 10 = 20; a: 1 x 20; c: 1 x 20 -> b (more instances), then a, c by key.
  Trace trace = MakeTrace({{Engine::kKernel, 0, 20, 0, 1, 0, "c"},
                           {Engine::kKernel, 30, 40, 0, 1, 0, "b"},
                           {Engine::kKernel, 50, 70, 0, 1, 0, "a"},
                           {Engine::kKernel, 80, 90, 0, 1, 0, "b"}});
  std::vector<DeviceKernels> all = ComputeKernelSummary(trace, Options());
  ASSERT_EQ(all[0].rows.size(), 3u);
  EXPECT_EQ(all[0].rows[0].key, "b");
  EXPECT_EQ(all[0].rows[1].key, "a");
  EXPECT_EQ(all[0].rows[2].key, "c");
  EXPECT_EQ(all[0].omitted_keys, 0);

  std::vector<DeviceKernels> top = ComputeKernelSummary(trace, Options("all", KernelKey::kName, 1));
  ASSERT_EQ(top[0].rows.size(), 1u);
  EXPECT_EQ(top[0].rows[0].key, "b");
  EXPECT_EQ(top[0].key_count, 3);
  EXPECT_EQ(top[0].omitted_keys, 2);
  EXPECT_EQ(top[0].omitted_ops, 2);
  EXPECT_EQ(top[0].omitted_total_ns, 40);
  // Shares stay relative to every kernel, not to the rows shown.
  EXPECT_DOUBLE_EQ(*top[0].rows[0].sum_share_pct, 100.0 * 20 / 60);
}

TEST(KernelSummary, PerDeviceAndDevicesWithoutKernelsAreLeftOut) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10, 0, 1, 0, "k"},
                           {Engine::kKernel, 0, 30, 1, 1, 0, "k"},
                           {Engine::kKernel, 40, 50, 1, 2, 0, "m"},
                           {Engine::kH2D, 0, 100, 2, 1, 64}});
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].device_id, 0);
  ASSERT_EQ(devices[0].rows.size(), 1u);
  EXPECT_EQ(devices[0].rows[0].stats.total_ns, 10);
  EXPECT_EQ(devices[1].device_id, 1);
  ASSERT_EQ(devices[1].rows.size(), 2u);
  EXPECT_EQ(devices[1].rows[0].key, "k");
  EXPECT_EQ(devices[1].rows[0].stats.total_ns, 30);
  EXPECT_DOUBLE_EQ(*devices[1].rows[1].sum_share_pct, 25);
}

// Whole-graph launches are compute no row can list: each device counts them apart, and they
// change no kernel row or share.
TEST(KernelSummary, WholeGraphLaunchesAreCountedApartNotListed) {
  Trace trace = MakeTrace({{Engine::kKernel, 0, 10, 0, 1, 0, "k"},
                           {Engine::kGraph, 5, 25, 0, 2},
                           {Engine::kGraph, 20, 40, 0, 2},
                           {Engine::kGraph, 0, 50, 1, 1}});
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].graph_ops, 2);
  EXPECT_EQ(devices[0].graph_sum_ns, 40);
  EXPECT_EQ(devices[0].graph_busy_ns, 35);  // [5, 40)
  ASSERT_EQ(devices[0].rows.size(), 1u);
  EXPECT_EQ(devices[0].rows[0].key, "k");
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].sum_share_pct, 100);
  // A device with whole-graph launches only is kept (no rows), not left out silently.
  EXPECT_EQ(devices[1].device_id, 1);
  EXPECT_EQ(devices[1].graph_ops, 1);
  EXPECT_TRUE(devices[1].rows.empty());
}

TEST(KernelSummary, ATraceOfWholeGraphLaunchesOnlySaysHowToSeeTheirKernels) {
  Trace trace = MakeTrace({{Engine::kGraph, 0, 100, 0, 1}});
  try {
    ComputeKernelSummary(trace, Options());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--cuda-graph-trace=node"), std::string::npos) << e.what();
  }
}

TEST(KernelSummary, ConcurrentKernelsShareOfBusyCanExceedHundred) {
  // Two 100 ns kernels side by side on two streams: sum 200, busy 100.
  Trace trace =
      MakeTrace({{Engine::kKernel, 0, 100, 0, 1, 0, "x"}, {Engine::kKernel, 0, 100, 0, 2, 0, "x"}});
  std::vector<DeviceKernels> devices = ComputeKernelSummary(trace, Options());
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].sum_share_pct, 100);
  EXPECT_DOUBLE_EQ(*devices[0].rows[0].busy_share_pct, 200);
}

TEST(KernelSummary, ATraceWithoutKernelsIsAnInputErrorNamingIt) {
  Trace trace = MakeTrace({{Engine::kH2D, 0, 100, 0, 1, 64}});
  try {
    ComputeKernelSummary(trace, Options());
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.source(), "memory.trace");
    EXPECT_NE(std::string(e.what()).find("no kernels"), std::string::npos) << e.what();
  }
}

TEST(KernelSummary, NoKernelInTheWindowIsAnInputError) {
  // The window [150, 200) holds only the copy.
  Trace trace =
      MakeTrace({{Engine::kKernel, 0, 100, 0, 1, 0, "k"}, {Engine::kH2D, 100, 200, 0, 1, 64}});
  EXPECT_THROW(ComputeKernelSummary(trace, Options("150:200")), InputError);
}

TEST(KernelSummary, KeyNames) {
  EXPECT_EQ(ParseKernelKey("name"), KernelKey::kName);
  EXPECT_EQ(ParseKernelKey("demangled"), KernelKey::kDemangled);
  EXPECT_EQ(ParseKernelKey("launch"), KernelKey::kLaunch);
  EXPECT_EQ(KernelKeyName(KernelKey::kLaunch), "launch");
  EXPECT_THROW(ParseKernelKey("grid"), InputError);
  EXPECT_EQ(LaunchKey("Fan2", {1024, 1, 1}, {4, 1, 1}), "Fan2 <<<(1024,1,1),(4,1,1)>>>");
}

}  // namespace
}  // namespace gpuroof
