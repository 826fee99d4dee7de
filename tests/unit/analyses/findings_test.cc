// The findings rules, `api` and `launches` analyses on traces written by the test-support
// builders (nsys SQLite from a text description, Kineto JSON from calls): each rule's pattern
// planted with its cost worked out by hand, and the same trace without the pattern reporting
// nothing for that rule.
#include "gpuroof/analyses/findings/findings.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "gpuroof/analyses/api_summary.h"
#include "gpuroof/analyses/findings/rules.h"
#include "gpuroof/analyses/launch_latency.h"
#include "gpuroof/model/errors.h"
#include "gpuroof/readers/kineto_json_reader.h"
#include "gpuroof/readers/reader_registry.h"

#include "support/kineto_json_builder.h"
#include "support/trace_description.h"

namespace gpuroof {
namespace {

class FindingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("gpuroof_findings_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The nsys export `description` describes, read with every API call.
  Trace Nsys(const std::string& description) {
    const std::filesystem::path path = dir_ / "trace.sqlite";
    testsupport::BuildFromDescription("gpu 0 \"G\"\n" + description, "test", path);
    ReadOptions options;
    options.all_api_calls = true;
    return ReadTrace(path, options);
  }

  static Trace Kineto(const testing::KinetoJsonBuilder& builder) {
    KinetoReadOptions options;
    options.all_api_calls = true;
    return ReadKinetoJsonText(builder.ObjectJson(), "test.json", options);
  }

  std::filesystem::path dir_;
};

FindingsOptions Options(WindowSpec::Kind window = WindowSpec::Kind::kProcessing) {
  FindingsOptions options;
  options.window.kind = window;
  options.thresholds.gap_min_ns = 100;
  return options;
}

const Finding* Find(const FindingsResult& result, const std::string& id) {
  for (const Finding& finding : result.findings) {
    if (finding.id == id) return &finding;
  }
  return nullptr;
}

// Two kernels; a cudaDeviceSynchronize (250-1400) returns after the first (300-1300) and the
// next kernel starts at 1700. The GPU was idle from 1300 (after the call began) to 1700: 400 ns.
// The second sync (1650-2800) has no op after it: no cost. The gap 1300-1700 (400 ns) is the
// sync's.
constexpr const char* kSyncNsys = R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=k
api start=250 end=1400 corr=2 name=cudaDeviceSynchronize_v3020
api start=1500 end=1600 corr=3 name=cudaLaunchKernel_v7000
kernel start=1700 end=2700 corr=3 name=k
api start=1650 end=2800 corr=4 name=cudaDeviceSynchronize_v3020
)";

TEST_F(FindingsTest, SyncCallCostsTheIdleTimeAfterIt) {
  Trace trace = Nsys(kSyncNsys);
  FindingsResult result = ComputeFindings(trace, Options());
  const Finding* sync = Find(result, "sync-call");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->count, 2);
  EXPECT_EQ(sync->cost_ns, 400);
  EXPECT_EQ(sync->device_id, 0);
  ASSERT_FALSE(sync->examples.empty());
  EXPECT_EQ(sync->examples[0].start_ns, 250);
  const Finding* gap = Find(result, "gpu-gap");
  ASSERT_NE(gap, nullptr);
  EXPECT_EQ(gap->count, 1);
  EXPECT_EQ(gap->cost_ns, 400);
  EXPECT_NE(gap->evidence.find("synchronising call cudaDeviceSynchronize"), std::string::npos);
  EXPECT_EQ(Find(result, "host-bound"), nullptr);
  EXPECT_EQ(Find(result, "launch-bound"), nullptr);
}

// Two synchronising calls return into the same idle interval 1300-1700 (from 1350 and from
// 1500): the GPU was idle 350 ns after the first call began, not 350 + 200.
TEST_F(FindingsTest, CallsReturningIntoOneIdleIntervalShareIt) {
  Trace trace = Nsys(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=k
api start=1350 end=1400 corr=2 name=cudaDeviceSynchronize_v3020
api start=1500 end=1550 corr=3 name=cudaStreamSynchronize_v3020
api start=1560 end=1600 corr=4 name=cudaLaunchKernel_v7000
kernel start=1700 end=2700 corr=4 name=k
)");
  const FindingsResult result = ComputeFindings(trace, Options());
  const Finding* sync = Find(result, "sync-call");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->count, 2);
  EXPECT_EQ(sync->cost_ns, 350);
}

// The per-thread default stream entry points synchronise as their plain names do.
TEST_F(FindingsTest, PerThreadStreamVariantsSynchronise) {
  EXPECT_TRUE(IsSynchronizingCall("cudaStreamSynchronize_ptsz"));
  EXPECT_TRUE(IsSynchronizingCall("cudaMemcpy_ptds"));
  EXPECT_FALSE(IsSynchronizingCall("cudaMemcpyAsync_ptsz"));
  EXPECT_FALSE(IsSynchronizingCall("cudaLaunchKernel_ptsz"));
}

// Gap 1300-2000. A cudaStreamSynchronize on another thread blocks 1250-2500, through the gap; a
// cudaEventSynchronize 2100-2110 ends first of the calls ending after the gap began, but starts
// after it: the gap is the stream sync's, not host-bound although the launch came late.
TEST_F(FindingsTest, TheGapIsTheSyncCallThatRanThroughIt) {
  Trace trace = Nsys(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000 tid=1
kernel start=300 end=1300 corr=1 name=k
api start=1250 end=2500 corr=2 name=cudaStreamSynchronize_v3020 tid=2
api start=2100 end=2110 corr=3 name=cudaEventSynchronize_v3020 tid=3
api start=1900 end=1950 corr=4 name=cudaLaunchKernel_v7000 tid=1
kernel start=2000 end=3000 corr=4 name=k
)");
  FindingsResult result = ComputeFindings(trace, Options());
  const Finding* gap = Find(result, "gpu-gap");
  ASSERT_NE(gap, nullptr);
  EXPECT_EQ(gap->cost_ns, 700);
  EXPECT_NE(gap->evidence.find("synchronising call cudaStreamSynchronize x1"), std::string::npos)
      << gap->evidence;
  EXPECT_EQ(Find(result, "host-bound"), nullptr);
}

// In the work window of range "step" (thread 1's launches), kernel b of thread 2 fills
// 1300-2000: the GPU was busy, so there is no gap, though b is not the range's work.
TEST_F(FindingsTest, OtherWorkInAWorkWindowKeepsTheGpuBusy) {
  Trace trace = Nsys(R"(
nvtx start=0 end=3500 text="step" tid=1
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000 tid=1
kernel start=300 end=1300 corr=1 name=a
api start=150 end=250 corr=2 name=cudaLaunchKernel_v7000 tid=2
kernel start=1300 end=2000 corr=2 name=b
api start=300 end=400 corr=3 name=cudaLaunchKernel_v7000 tid=1
kernel start=2000 end=3000 corr=3 name=c
)");
  FindingsOptions options = Options();
  options.window = ParseWindowSpec("nvtx:step");
  FindingsResult result = ComputeFindings(trace, options);
  EXPECT_EQ(Find(result, "gpu-gap"), nullptr);
  EXPECT_EQ(Find(result, "host-bound"), nullptr);
}

TEST_F(FindingsTest, SyncCallOnKinetoAsOnNsys) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "0.1", "0.1", 1)
      .Kernel("k", "0.3", "1", 0, 7, 1)
      .Runtime("cudaDeviceSynchronize", "0.25", "1.15", 2)
      .Runtime("cudaLaunchKernel", "1.5", "0.1", 3)
      .Kernel("k", "1.7", "1", 0, 7, 3)
      .Runtime("cudaDeviceSynchronize", "1.65", "1.15", 4);
  FindingsResult result = ComputeFindings(Kineto(builder), Options());
  const Finding* sync = Find(result, "sync-call");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->count, 2);
  EXPECT_EQ(sync->cost_ns, 400);
}

// PyTorch's .item(): aten::_local_scalar_dense (200-1500) copies the value D2H (1300-1350) and
// waits in cudaStreamSynchronize (350-1450). The device is idle from 1350 to the next kernel at
// 1800: 450 ns, named as the .item()'s.
TEST_F(FindingsTest, ItemOnKinetoIsNamed) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "0.1", "0.1", 1)
      .Kernel("k", "0.3", "1", 0, 7, 1)
      .CpuOp("aten::_local_scalar_dense", "0.2", "1.3")
      .Runtime("cudaMemcpyAsync", "0.25", "0.05", 5)
      .Memcpy("Memcpy DtoH (Device -> Pageable)", "1.3", "0.05", 8, 0, 7, 5)
      .Runtime("cudaStreamSynchronize", "0.35", "1.1", 6)
      .Runtime("cudaLaunchKernel", "1.6", "0.1", 7)
      .Kernel("k", "1.8", "1", 0, 7, 7);
  FindingsResult result = ComputeFindings(Kineto(builder), Options());
  const Finding* sync = Find(result, "sync-call");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->count, 1);
  EXPECT_EQ(sync->cost_ns, 450);
  EXPECT_NE(sync->evidence.find("cudaStreamSynchronize in .item() x1"), std::string::npos)
      << sync->evidence;
}

TEST_F(FindingsTest, BackToBackKernelsReportNothing) {
  Trace trace = Nsys(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=k
api start=250 end=350 corr=2 name=cudaLaunchKernel_v7000
kernel start=1300 end=2300 corr=2 name=k
)");
  FindingsResult result = ComputeFindings(trace, Options(WindowSpec::Kind::kAll));
  EXPECT_TRUE(result.findings.empty()) << result.findings[0].id;
  EXPECT_EQ(result.below_min_cost, 0);
}

// The second kernel's launch starts at 1500, after the GPU went idle at 1300: 1300-1650 is the
// host's, 350 ns.
TEST_F(FindingsTest, HostBoundGapWhenTheLaunchCameLate) {
  Trace trace = Nsys(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=k
api start=1500 end=1600 corr=2 name=cudaLaunchKernel_v7000
kernel start=1650 end=2650 corr=2 name=k
)");
  FindingsResult result = ComputeFindings(trace, Options());
  const Finding* host = Find(result, "host-bound");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->count, 1);
  EXPECT_EQ(host->cost_ns, 350);
  EXPECT_EQ(Find(result, "gpu-gap"), nullptr);
  EXPECT_EQ(Find(result, "sync-call"), nullptr);
}

// Two kernels start together when the gap 1300-1700 ends: b's launch came before the gap, c's
// within it. The GPU could have run b at once: the gap is not host-bound, in either file order.
TEST_F(FindingsTest, OpsStartingTogetherAfterAGapAreJudgedByTheFirstLaunch) {
  for (const char* order : {"b first", "c first"}) {
    SCOPED_TRACE(order);
    const std::string b = "kernel start=1700 end=1800 corr=2 name=b stream=8\n";
    const std::string c = "kernel start=1700 end=1900 corr=3 name=c stream=9\n";
    Trace trace = Nsys(std::string(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=a
api start=250 end=280 corr=2 name=cudaLaunchKernel_v7000
api start=1500 end=1600 corr=3 name=cudaLaunchKernel_v7000
)") + (order[0] == 'b' ? b + c : c + b));
    FindingsResult result = ComputeFindings(trace, Options());
    EXPECT_EQ(Find(result, "host-bound"), nullptr);
    const Finding* gap = Find(result, "gpu-gap");
    ASSERT_NE(gap, nullptr);
    EXPECT_EQ(gap->cost_ns, 400);
  }
}

// An unexplained gap: the launch of the second kernel (250-280) came before the gap.
TEST_F(FindingsTest, GapWithoutCauseIsUnexplained) {
  Trace trace = Nsys(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=k
api start=250 end=280 corr=2 name=cudaLaunchKernel_v7000
kernel start=1800 end=2800 corr=2 name=k
)");
  FindingsResult result = ComputeFindings(trace, Options());
  const Finding* gap = Find(result, "gpu-gap");
  ASSERT_NE(gap, nullptr);
  EXPECT_EQ(gap->cost_ns, 500);
  EXPECT_NE(gap->evidence.find("unexplained x1"), std::string::npos) << gap->evidence;
}

// A 500 ns pageable H2D copy by cudaMemcpyAsync, then a 1000 ns kernel: the copy's 500 ns is the
// pageable-copy cost. Copies (500) and compute (1000) never overlap: busy 1500, overlapped at
// best max(1000, 500) = 1000, so serialised-copies costs min(500 exposed, 500) = 500.
constexpr const char* kPageableCopy = R"(
api start=100 end=250 corr=1 name=cudaMemcpyAsync_v3020
memcpy start=300 end=800 kind=HtoD bytes=1000 src=pageable dst=device corr=1
api start=260 end=290 corr=2 name=cudaLaunchKernel_v7000
kernel start=800 end=1800 corr=2 name=k
)";

TEST_F(FindingsTest, PageableAsyncCopyAndSerialisedCopies) {
  FindingsResult result = ComputeFindings(Nsys(kPageableCopy), Options(WindowSpec::Kind::kAll));
  const Finding* pageable = Find(result, "pageable-copy");
  ASSERT_NE(pageable, nullptr);
  EXPECT_EQ(pageable->count, 1);
  EXPECT_EQ(pageable->cost_ns, 500);
  EXPECT_NE(pageable->evidence.find("1000 bytes"), std::string::npos);
  const Finding* serial = Find(result, "serialised-copies");
  ASSERT_NE(serial, nullptr);
  EXPECT_EQ(serial->cost_ns, 500);
}

TEST_F(FindingsTest, PinnedCopyIsNoPageableFinding) {
  std::string pinned = kPageableCopy;
  pinned.replace(pinned.find("src=pageable"), 12, "src=pinned");
  FindingsResult result = ComputeFindings(Nsys(pinned), Options(WindowSpec::Kind::kAll));
  EXPECT_EQ(Find(result, "pageable-copy"), nullptr);
}

TEST_F(FindingsTest, CopyUnderComputeIsNotSerialised) {
  FindingsResult result = ComputeFindings(Nsys(R"(
kernel start=0 end=1000 name=k stream=7
memcpy start=200 end=700 kind=HtoD bytes=1000 src=pinned dst=device stream=8
)"),
                                          Options(WindowSpec::Kind::kAll));
  EXPECT_EQ(Find(result, "serialised-copies"), nullptr);
}

// A collective 0-1000 on one stream, compute 500-1500 on another: 500 ns of communication
// with no compute under it.
TEST_F(FindingsTest, ExposedCommunication) {
  testing::KinetoJsonBuilder builder;
  builder.Kernel("ncclKernel_AllReduce_RING_LL_Sum_float", "0", "1", 0, 20)
      .Kernel("gemm", "0.5", "1", 0, 7);
  FindingsResult result = ComputeFindings(Kineto(builder), Options(WindowSpec::Kind::kAll));
  const Finding* comm = Find(result, "exposed-comm");
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->cost_ns, 500);

  testing::KinetoJsonBuilder hidden;
  hidden.Kernel("ncclKernel_AllReduce_RING_LL_Sum_float", "0.2", "0.5", 0, 20)
      .Kernel("gemm", "0", "1", 0, 7);
  EXPECT_EQ(Find(ComputeFindings(Kineto(hidden), Options(WindowSpec::Kind::kAll)), "exposed-comm"),
            nullptr);
}

// 20 kernels of 10 ns, each launched by a 100 ns call: 20 x (100 - 10) = 1800 ns.
TEST_F(FindingsTest, LaunchBoundKernels) {
  Trace trace = Nsys(R"(
repeat 20 step=200 {
  api start=0 end=100 corr=1+i name=cudaLaunchKernel_v7000
  kernel start=150 end=160 corr=1+i name=tiny
}
)");
  FindingsResult result = ComputeFindings(trace, Options());
  const Finding* bound = Find(result, "launch-bound");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->count, 20);
  EXPECT_EQ(bound->cost_ns, 1800);
  EXPECT_NE(bound->evidence.find("20 of 20"), std::string::npos);
}

// The same 20 tiny kernels as 4 CUDA graph launches of 5 nodes: each node carries its graph's
// one call, whose overhead is no node's own, so none is launch-bound; a lone tiny kernel launched
// with them still is, but is too few to fire.
TEST_F(FindingsTest, GraphNodesAreNotLaunchBound) {
  Trace trace = Nsys(R"(
repeat 4 step=1000 {
  api start=0 end=100 corr=1+i name=cudaGraphLaunch_v10000
  kernel start=150 end=160 corr=1+i name=tiny
  kernel start=170 end=180 corr=1+i name=tiny
  kernel start=190 end=200 corr=1+i name=tiny
  kernel start=210 end=220 corr=1+i name=tiny
  kernel start=230 end=240 corr=1+i name=tiny
}
api start=5000 end=5100 corr=99 name=cudaLaunchKernel_v7000
kernel start=5150 end=5160 corr=99 name=tiny
)");
  EXPECT_EQ(Find(ComputeFindings(trace, Options()), "launch-bound"), nullptr);
  LaunchLatencyOptions options;
  options.window = ParseWindowSpec("all");
  const std::vector<DeviceLaunches> launches = ComputeLaunchLatency(trace, options);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].launches, 1);
  EXPECT_EQ(launches[0].shared_call_kernels, 20);
  EXPECT_EQ(launches[0].shared_calls, 4);
  EXPECT_EQ(launches[0].shared_non_graph_calls, 0);
  ASSERT_EQ(launches[0].rows.size(), 1u);
  EXPECT_EQ(launches[0].rows[0].overhead.total_ns, 100);  // the one lone launch
}

// A kernel launch call with two ops (a damaged or merged export) is left out
// like a graph launch's nodes, but named by what it is: not a graph launch.
TEST_F(FindingsTest, ASharedCallThatIsNoGraphLaunchIsNamed) {
  Trace trace = Nsys(R"(
api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000
kernel start=150 end=160 corr=1 name=tiny
kernel start=165 end=175 corr=1 name=tiny
api start=1000 end=1100 corr=2 name=cudaGraphLaunch_v10000
kernel start=1150 end=1160 corr=2 name=tiny
kernel start=1170 end=1180 corr=2 name=tiny
)");
  LaunchLatencyOptions options;
  options.window = ParseWindowSpec("all");
  const std::vector<DeviceLaunches> launches = ComputeLaunchLatency(trace, options);
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].shared_call_kernels, 4);
  EXPECT_EQ(launches[0].shared_calls, 2);
  EXPECT_EQ(launches[0].shared_non_graph_calls, 1);
  EXPECT_EQ(launches[0].shared_non_graph_names, "cudaLaunchKernel");
}

TEST_F(FindingsTest, LongKernelsAreNotLaunchBound) {
  Trace trace = Nsys(R"(
repeat 20 step=2000 {
  api start=0 end=100 corr=1+i name=cudaLaunchKernel_v7000
  kernel start=150 end=1950 corr=1+i name=big
}
)");
  EXPECT_EQ(Find(ComputeFindings(trace, Options()), "launch-bound"), nullptr);
}

std::string OccupancyKernel(const std::string& name, const std::string& ts_us,
                            const std::string& dur_us, int occupancy, int shared_memory = 0) {
  return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name +
         "\", \"pid\": 0, \"tid\": 7, \"ts\": " + ts_us + ", \"dur\": " + dur_us +
         ", \"args\": {\"device\": 0, \"stream\": 7, \"shared memory\": " +
         std::to_string(shared_memory) +
         ", \"est. achieved occupancy %\": " + std::to_string(occupancy) + "}}";
}

// Kernel time 3000 ns at 20 % and 1000 ns at 80 %: weighted (3000 x 20 + 1000 x 80) / 4000 =
// 35 % < 50 %; the kernel time below the threshold, 3000 ns, is the cost. Swapped (1000 ns at
// 20 %, 3000 ns at 80 %: 65 %), nothing fires.
TEST_F(FindingsTest, LowOccupancyWeightedByKernelTime) {
  testing::KinetoJsonBuilder low;
  low.Raw(OccupancyKernel("narrow", "0", "3", 20)).Raw(OccupancyKernel("wide", "3", "1", 80));
  FindingsResult result = ComputeFindings(Kineto(low), Options(WindowSpec::Kind::kAll));
  const Finding* finding = Find(result, "low-occupancy");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->cost_ns, 3000);
  EXPECT_EQ(finding->count, 1);
  EXPECT_NE(finding->evidence.find("35.0 %"), std::string::npos) << finding->evidence;

  testing::KinetoJsonBuilder high;
  high.Raw(OccupancyKernel("narrow", "0", "1", 20)).Raw(OccupancyKernel("wide", "1", "3", 80));
  EXPECT_EQ(Find(ComputeFindings(Kineto(high), Options(WindowSpec::Kind::kAll)), "low-occupancy"),
            nullptr);
}

// Kineto's 0 % above 48 KB of shared memory is a failed estimate: left out and counted apart,
// not 10 us of kernel time at 0 %. A 0 % of a one-block grid is a real (rounded) estimate: it
// counts, low.
TEST_F(FindingsTest, ZeroPercentOccupancyAbove48KbIsNoEstimate) {
  testing::KinetoJsonBuilder trace;
  trace.Raw(OccupancyKernel("gemm_256x128", "0", "10", 0, 98304))
      .Raw(OccupancyKernel("narrow", "10", "3", 20))
      .Raw(OccupancyKernel("wide", "13", "1", 80));
  const FindingsResult result = ComputeFindings(Kineto(trace), Options(WindowSpec::Kind::kAll));
  const Finding* finding = Find(result, "low-occupancy");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->cost_ns, 3000);
  ASSERT_EQ(result.notes.size(), 2u);  // and: the trace has no CUDA API calls
  EXPECT_NE(result.notes[1].find("low-occupancy, device 0: 1 kernel launch(es) (10.000 us) with a "
                                 "0 % occupancy estimate above 48 KB of shared memory left out"),
            std::string::npos)
      << result.notes[1];

  testing::KinetoJsonBuilder tiny;  // 10 us at 0 % (a one-block grid), 3 us at 80 %
  tiny.Raw(OccupancyKernel("one_block", "0", "10", 0)).Raw(OccupancyKernel("wide", "10", "3", 80));
  const FindingsResult tiny_result = ComputeFindings(Kineto(tiny), Options(WindowSpec::Kind::kAll));
  const Finding* low = Find(tiny_result, "low-occupancy");
  ASSERT_NE(low, nullptr);
  EXPECT_EQ(low->cost_ns, 10000);
  EXPECT_NE(finding->evidence.find("35.0 %"), std::string::npos) << finding->evidence;
  EXPECT_NE(finding->evidence.find("1 kernels without an estimate not counted (1 of them "
                                   "estimated at 0 % above 48 KB"),
            std::string::npos)
      << finding->evidence;
}

TEST_F(FindingsTest, NsysKernelsHaveNoOccupancyFinding) {
  EXPECT_EQ(Find(ComputeFindings(Nsys(kSyncNsys), Options()), "low-occupancy"), nullptr);
}

TEST_F(FindingsTest, MinCostDropsAndCounts) {
  FindingsOptions options = Options();
  options.thresholds.min_cost_pct = 50;  // 50 % of the 2400 ns window: 1200 ns
  FindingsResult result = ComputeFindings(Nsys(kSyncNsys), options);
  EXPECT_TRUE(result.findings.empty());
  EXPECT_EQ(result.below_min_cost, 2);  // sync-call and gpu-gap, 400 ns each
}

// api: per function name (nsys's version suffix dropped), durations 100 and 300 for
// cudaMalloc, 50 for cudaFree: total 400, median 200, max 300.
TEST_F(FindingsTest, ApiSummaryPerFunction) {
  Trace trace = Nsys(R"(
api start=0 end=100 corr=1 name=cudaMalloc_v3020
api start=200 end=500 corr=2 name=cudaMalloc_v3020
api start=600 end=650 corr=3 name=cudaFree_v3020
api start=700 end=710 corr=4 name=cudaLaunchKernel_v7000
kernel start=720 end=900 corr=4 name=k
)");
  ApiSummaryOptions options;
  options.window.kind = WindowSpec::Kind::kAll;
  ApiSummary summary = ComputeApiSummary(trace, options);
  ASSERT_EQ(summary.rows.size(), 3u);
  EXPECT_EQ(summary.rows[0].name, "cudaMalloc");
  EXPECT_EQ(summary.rows[0].stats.count, 2);
  EXPECT_EQ(summary.rows[0].stats.total_ns, 400);
  EXPECT_DOUBLE_EQ(summary.rows[0].stats.median_ns, 200);
  EXPECT_EQ(summary.rows[0].stats.max_ns, 300);
  EXPECT_EQ(summary.rows[1].name, "cudaFree");
  EXPECT_EQ(summary.calls, 4);
  EXPECT_EQ(summary.total_ns, 460);
}

// nsys's reports drop a 4-digit API version and keep a 5-digit one (cuda_api_sum cuts the last
// six characters only when they start with "_v"); the sync-call rule sees the function either way.
TEST_F(FindingsTest, ApiNamesDropOnlyAFourDigitVersionAsNsysDoes) {
  Trace trace = Nsys(R"(
api start=0 end=100 corr=1 name=cudaGraphInstantiate_v10000
api start=200 end=300 corr=2 name=cudaGraphInstantiate_v12000
api start=400 end=410 corr=3 name=cudaLaunchKernelExC_v11060
api start=500 end=510 corr=4 name=cudaLaunchKernel_v7000
kernel start=520 end=900 corr=4 name=k
)");
  ApiSummaryOptions options;
  options.window.kind = WindowSpec::Kind::kAll;
  ApiSummary summary = ComputeApiSummary(trace, options);
  std::vector<std::string> names;
  for (const ApiFunctionRow& row : summary.rows)
    names.push_back(row.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names,
            (std::vector<std::string>{"cudaGraphInstantiate_v10000", "cudaGraphInstantiate_v12000",
                                      "cudaLaunchKernel", "cudaLaunchKernelExC_v11060"}));
  EXPECT_TRUE(IsSynchronizingCall("cudaStreamSynchronize_v12000"));
  EXPECT_TRUE(IsSynchronizingCall("cudaDeviceSynchronize"));
  EXPECT_FALSE(IsSynchronizingCall("cudaLaunchKernelExC_v11060"));
}

// Launch 100-200 -> kernel 300-1300: overhead 100, queue 100, latency 200. Launch 1500-1600 ->
// kernel 1550-2550 started before the call returned: queue 0 (not queued), latency 50.
TEST_F(FindingsTest, LaunchLatencyPerLaunch) {
  Trace trace = Nsys(R"(
api start=100 end=200 corr=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 name=k
api start=1500 end=1600 corr=2 name=cudaLaunchKernel_v7000
kernel start=1550 end=2550 corr=2 name=k
)");
  LaunchLatencyOptions options;
  options.window.kind = WindowSpec::Kind::kAll;
  options.keep_records = true;
  std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, options);
  ASSERT_EQ(devices.size(), 1u);
  ASSERT_EQ(devices[0].records.size(), 2u);
  const KernelLaunch& first = devices[0].records[0];
  EXPECT_EQ(first.overhead_ns(), 100);
  EXPECT_EQ(first.queue_ns(), 100);
  EXPECT_TRUE(first.queued());
  EXPECT_EQ(first.latency_ns(), 200);
  const KernelLaunch& second = devices[0].records[1];
  EXPECT_FALSE(second.queued());
  EXPECT_EQ(second.latency_ns(), 50);
  ASSERT_EQ(devices[0].rows.size(), 1u);
  EXPECT_EQ(devices[0].rows[0].queued, 1);
  EXPECT_EQ(devices[0].rows[0].overhead.total_ns, 200);
}

// Three steps ProfilerStep#1-3: [0, 1500), [1500, 3000), [3000, 4500). A sync (250-1400) in
// step 1 leaves the GPU idle 1300-1700 (400 ns); a sync (1650-2800) in step 2 leaves it idle
// 2700-3300 (600 ns: the idle time after the call began). Both gaps are the syncs' (gpu-gap with
// the gap threshold of 100 ns, each charged to the step its gap starts in: 1 and 2). Processing
// window [300, 4300): all three steps overlap it. By hand: cost 1000 ns, 1000 / 3 ns per step,
// in steps 1 to 2, worst step 2 (600 ns), nothing outside.
// kSyncNsys, then:
constexpr const char* kStepsTail = R"(
api start=3000 end=3100 corr=5 name=cudaLaunchKernel_v7000
kernel start=3300 end=4300 corr=5 name=k
nvtx start=0 end=1500 text="ProfilerStep#1"
nvtx start=1500 end=3000 text="ProfilerStep#2"
nvtx start=3000 end=4500 text="ProfilerStep#3"
)";

void ExpectStepsOfSyncTrace(const Finding* finding) {
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->cost_ns, 1000);
  ASSERT_TRUE(finding->per_step.has_value());
  const FindingPerStep& s = *finding->per_step;
  EXPECT_EQ(s.steps, 3);
  EXPECT_DOUBLE_EQ(s.cost_per_step_ns, 1000.0 / 3.0);
  EXPECT_EQ(s.steps_with_cost, 2);
  EXPECT_EQ(s.first_step, 1);
  EXPECT_EQ(s.last_step, 2);
  EXPECT_EQ(s.worst_step, 2);
  EXPECT_EQ(s.worst_step_cost_ns, 600);
  EXPECT_EQ(s.outside_steps_ns, 0);
}

TEST_F(FindingsTest, CostPerStepAndTheStepsTheInstancesFellIn) {
  FindingsResult result = ComputeFindings(Nsys(std::string(kSyncNsys) + kStepsTail), Options());
  EXPECT_EQ(result.steps_label, "'ProfilerStep#*' (3 instances)");
  ExpectStepsOfSyncTrace(Find(result, "sync-call"));
  ExpectStepsOfSyncTrace(Find(result, "gpu-gap"));
}

// The GPU runs two steps behind the CPU: steps [0, 1000) ... [4000, 5000); step 1 launches a
// pageable async copy (GPU 2600-3000, in step 3's time), step 2 a kernel (3000-3500) and an
// all-reduce (3500-4000, in step 4's time, no compute under it). Work belongs to the step that
// launched it (as ranges and steps attribute it): by hand, pageable-copy 400 ns and
// serialised-copies min(400 exposed, 1400 busy - 500) = 400 ns in step 1, exposed-comm 500 ns in
// step 2; charged by GPU time they fell in steps 3 and 4.
constexpr const char* kLaggingGpu = R"(
api start=100 end=150 corr=1 name=cudaMemcpyAsync_v3020
memcpy start=2600 end=3000 kind=HtoD bytes=1000 src=pageable dst=device corr=1
api start=1100 end=1150 corr=2 name=cudaLaunchKernel_v7000
kernel start=3000 end=3500 corr=2 name=k
api start=1200 end=1250 corr=3 name=cudaLaunchKernel_v7000
kernel start=3500 end=4000 corr=3 name=ncclKernel_AllReduce_RING_LL_Sum_float
nvtx start=0 end=1000 text="ProfilerStep#1"
nvtx start=1000 end=2000 text="ProfilerStep#2"
nvtx start=2000 end=3000 text="ProfilerStep#3"
nvtx start=3000 end=4000 text="ProfilerStep#4"
nvtx start=4000 end=5000 text="ProfilerStep#5"
)";

TEST_F(FindingsTest, PerStepChargesGpuWorkToTheStepThatLaunchedItUnderLag) {
  FindingsResult result = ComputeFindings(Nsys(kLaggingGpu), Options(WindowSpec::Kind::kAll));
  auto expect_in_step = [&](const char* id, int64_t cost, int64_t step) {
    const Finding* finding = Find(result, id);
    ASSERT_NE(finding, nullptr) << id;
    EXPECT_EQ(finding->cost_ns, cost) << id;
    ASSERT_TRUE(finding->per_step.has_value()) << id;
    const FindingPerStep& s = *finding->per_step;
    EXPECT_EQ(s.steps_with_cost, 1) << id;
    EXPECT_EQ(s.worst_step, step) << id;
    EXPECT_EQ(s.worst_number, step) << id;  // ProfilerStep#N is step N here
    EXPECT_EQ(s.worst_step_cost_ns, cost) << id;
    EXPECT_EQ(s.outside_steps_ns, 0) << id;
  };
  expect_in_step("pageable-copy", 400, 1);
  expect_in_step("serialised-copies", 400, 1);
  expect_in_step("exposed-comm", 500, 2);
  // The cost is divided by the steps a charge can go to: from the step of the window's first
  // launch (step 1, at 100) to the window's end (4000, in step 4): steps 1-4, not only the two
  // (3 and 4) that the GPU-time window overlaps, which hold none of the costs.
  for (const auto& [id, cost] : std::vector<std::pair<std::string, int64_t>>{
           {"pageable-copy", 400}, {"serialised-copies", 400}, {"exposed-comm", 500}}) {
    const FindingPerStep& s = *Find(result, id)->per_step;
    EXPECT_EQ(s.steps, 4) << id;
    EXPECT_DOUBLE_EQ(s.cost_per_step_ns, static_cast<double>(cost) / 4.0) << id;
    EXPECT_LE(s.worst_step, s.steps) << id;
  }
  EXPECT_TRUE(result.notes.empty()) << result.notes.front();
}

// kLaggingGpu without the kernels' launching calls: the all-reduce has no call, so it is charged
// by its own GPU start (3500, step 4), and a note says so with the count and the cost; the copy
// keeps its call (step 1) and is not counted.
TEST_F(FindingsTest, GpuWorkWithoutALaunchingCallIsChargedByItsStartAndCounted) {
  std::string description = kLaggingGpu;
  for (const std::string line : {"api start=1100 end=1150 corr=2 name=cudaLaunchKernel_v7000\n",
                                 "api start=1200 end=1250 corr=3 name=cudaLaunchKernel_v7000\n"}) {
    const size_t at = description.find(line);
    ASSERT_NE(at, std::string::npos) << line;
    description.erase(at, line.size());
  }
  FindingsResult result = ComputeFindings(Nsys(description), Options(WindowSpec::Kind::kAll));
  const Finding* comm = Find(result, "exposed-comm");
  ASSERT_NE(comm, nullptr);
  ASSERT_TRUE(comm->per_step.has_value());
  EXPECT_EQ(comm->per_step->worst_step, 4);
  EXPECT_EQ(comm->per_step->worst_step_cost_ns, 500);
  EXPECT_EQ(comm->per_step->steps, 4);  // from the copy's launch in step 1
  const Finding* copies = Find(result, "serialised-copies");
  ASSERT_NE(copies, nullptr);
  EXPECT_EQ(copies->per_step->worst_step, 1);
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "exposed-comm on device 0: 1 op (500 ns of its cost) had no launching call: charged "
            "to the step its GPU start fell in, not to the step that launched it");
}

TEST_F(FindingsTest, StepsOnKinetoAsOnNsys) {
  testing::KinetoJsonBuilder builder;
  builder.Annotation("ProfilerStep#1", "0", "1.5")
      .Annotation("ProfilerStep#2", "1.5", "1.5")
      .Annotation("ProfilerStep#3", "3", "1.5")
      .Runtime("cudaLaunchKernel", "0.1", "0.1", 1)
      .Kernel("k", "0.3", "1", 0, 7, 1)
      .Runtime("cudaDeviceSynchronize", "0.25", "1.15", 2)
      .Runtime("cudaLaunchKernel", "1.5", "0.1", 3)
      .Kernel("k", "1.7", "1", 0, 7, 3)
      .Runtime("cudaDeviceSynchronize", "1.65", "1.15", 4)
      .Runtime("cudaLaunchKernel", "3", "0.1", 5)
      .Kernel("k", "3.3", "1", 0, 7, 5);
  FindingsResult result = ComputeFindings(Kineto(builder), Options());
  ExpectStepsOfSyncTrace(Find(result, "sync-call"));
}

TEST_F(FindingsTest, IterationRangeNamesTheStepsAndNoStepsMeansNoPerStep) {
  // The same calls with two "iter" ranges, one of them covering steps 1 and 2 together: the
  // sync cost 1000 ns falls in step 1 of 2 (both overlap the window): 500 ns per step.
  std::string description = std::string(kSyncNsys) + kStepsTail;
  description += "nvtx start=0 end=3000 text=iter\nnvtx start=3000 end=4500 text=iter\n";
  FindingsOptions options = Options();
  options.iteration_range = "iter";
  FindingsResult result = ComputeFindings(Nsys(description), options);
  const Finding* sync = Find(result, "sync-call");
  ASSERT_NE(sync, nullptr);
  ASSERT_TRUE(sync->per_step.has_value());
  EXPECT_EQ(sync->per_step->steps, 2);
  EXPECT_DOUBLE_EQ(sync->per_step->cost_per_step_ns, 500.0);
  EXPECT_EQ(sync->per_step->worst_step, 1);
  EXPECT_EQ(sync->per_step->worst_step_cost_ns, 1000);

  FindingsResult plain = ComputeFindings(Nsys(kSyncNsys), Options());
  EXPECT_EQ(plain.steps_label, "");
  ASSERT_NE(Find(plain, "sync-call"), nullptr);
  EXPECT_FALSE(Find(plain, "sync-call")->per_step.has_value());
}

// One nsys capture of two processes (ranks): pid 1 drives device 0, pid 2 device 1; each has
// steps ProfilerStep#10 and #11, the second rank's 50 ns later (so they overlap the first
// device's window), and kSyncNsys's two syncs (the first leaves its device idle 400 ns in step
// #10). By hand, per device: 2 steps of its own (not 4), sync-call cost 400 ns, 200 ns per step,
// in step #10 only; 2 of the 4 step instances left out, and said.
constexpr const char* kTwoRanks = R"(
gpu 1 "G"
api start=100 end=200 corr=1 pid=1 tid=1 name=cudaLaunchKernel_v7000
kernel start=300 end=1300 corr=1 pid=1 dev=0 name=k
api start=250 end=1400 corr=2 pid=1 tid=1 name=cudaDeviceSynchronize_v3020
api start=1500 end=1600 corr=3 pid=1 tid=1 name=cudaLaunchKernel_v7000
kernel start=1700 end=2700 corr=3 pid=1 dev=0 name=k
nvtx start=0 end=1500 text="ProfilerStep#10" pid=1 tid=1
nvtx start=1500 end=3000 text="ProfilerStep#11" pid=1 tid=1
api start=150 end=250 corr=11 pid=2 tid=2 name=cudaLaunchKernel_v7000
kernel start=350 end=1350 corr=11 pid=2 dev=1 name=k
api start=300 end=1450 corr=12 pid=2 tid=2 name=cudaDeviceSynchronize_v3020
api start=1550 end=1650 corr=13 pid=2 tid=2 name=cudaLaunchKernel_v7000
kernel start=1750 end=2750 corr=13 pid=2 dev=1 name=k
nvtx start=50 end=1550 text="ProfilerStep#10" pid=2 tid=2
nvtx start=1550 end=3050 text="ProfilerStep#11" pid=2 tid=2
)";

TEST_F(FindingsTest, EachDeviceTakesTheStepsOfItsOwnProcess) {
  FindingsResult result = ComputeFindings(Nsys(kTwoRanks), Options());
  EXPECT_EQ(result.steps_label, "'ProfilerStep#*' (4 instances)");
  int syncs = 0;
  for (const Finding& finding : result.findings) {
    if (finding.id != "sync-call") continue;
    ++syncs;
    SCOPED_TRACE(finding.device_id);
    EXPECT_EQ(finding.cost_ns, 400);
    ASSERT_TRUE(finding.per_step.has_value());
    const FindingPerStep& s = *finding.per_step;
    EXPECT_EQ(s.steps, 2);
    EXPECT_DOUBLE_EQ(s.cost_per_step_ns, 200.0);
    EXPECT_EQ(s.steps_with_cost, 1);
    EXPECT_EQ(s.worst_step, 1);  // the position among the device's own steps
    EXPECT_EQ(s.worst_number, 10);
    EXPECT_EQ(s.first_number, 10);
    EXPECT_EQ(s.last_number, 10);
    EXPECT_EQ(s.family, "ProfilerStep");
    EXPECT_NE(s.steps_label.find("2 of them left out: another process's, not the one driving "
                                 "device " +
                                 std::to_string(finding.device_id)),
              std::string::npos)
        << s.steps_label;
  }
  EXPECT_EQ(syncs, 2);
  int said = 0;
  for (const std::string& note : result.notes) {
    if (note.find("2 of them left out: another process's") != std::string::npos) ++said;
  }
  EXPECT_EQ(said, 2);
}

// Two processes launch onto device 0 and both have steps: the steps of the one that launched
// most of its ops (pid 1: 2 of 3) are kept, as `ranks` does; device 1 (pid 2 only) keeps pid 2's.
// Device 0's calls are pid 1's too: pid 2's cudaDeviceSynchronize (300-1450, which waits for
// device 1) returns into device 0's idle 1300-1700 as well, but is not device 0's, so device 0
// has one sync (pid 1's, 250-1400) and device 1 one (pid 2's), 400 ns each, in step #10. Whether
// pid 2's launch onto device 0 is listed last and comes last, or is listed first and comes first
// (its stream then read first), the figures are the same.
TEST_F(FindingsTest, ASharedDeviceKeepsTheStepsOfTheProcessThatLaunchedMostOfItsOps) {
  const std::string gpu_line = "gpu 1 \"G\"\n";
  const std::string body =
      std::string(kTwoRanks).substr(std::string(kTwoRanks).find(gpu_line) + gpu_line.size());
  const std::string last = gpu_line + body +
                           "api start=2000 end=2010 corr=14 pid=2 tid=2 "
                           "name=cudaLaunchKernel_v7000\n"
                           "kernel start=2800 end=2810 corr=14 pid=2 dev=0 name=k\n";
  const std::string first = gpu_line +
                            "api start=120 end=130 corr=14 pid=2 tid=2 "
                            "name=cudaLaunchKernel_v7000\n"
                            "kernel start=200 end=210 corr=14 pid=2 dev=0 name=k\n" +
                            body;
  for (const std::string& description : {last, first}) {
    SCOPED_TRACE(description == last ? "listed last" : "listed first");
    FindingsResult result = ComputeFindings(Nsys(description), Options());
    // Per device: the sync and the gap it leaves (device 0: 1300-1700, device 1: 1350-1750).
    std::map<int32_t, const Finding*> syncs;
    std::map<int32_t, const Finding*> gaps;
    for (const Finding& finding : result.findings) {
      if (finding.id == "sync-call") syncs[finding.device_id] = &finding;
      if (finding.id == "gpu-gap") gaps[finding.device_id] = &finding;
    }
    EXPECT_EQ(result.findings.size(), 4u);
    ASSERT_EQ(syncs.size(), 2u);
    ASSERT_EQ(gaps.size(), 2u);
    for (const auto& [device, start] :
         std::vector<std::pair<int32_t, int64_t>>{{0, 1300}, {1, 1350}}) {
      const Finding& gap = *gaps.at(device);
      EXPECT_EQ(gap.cost_ns, 400) << device;
      EXPECT_EQ(gap.evidence,
                "1 idle gap(s) longer than 100 ns: 400 ns idle in all; causes: synchronising "
                "call cudaDeviceSynchronize x1")
          << device;
      ASSERT_EQ(gap.examples.size(), 1u);
      EXPECT_EQ(gap.examples[0].start_ns, start) << device;
      EXPECT_EQ(gap.examples[0].end_ns, start + 400) << device;
    }
    for (const auto& [device, start, end] :
         std::vector<std::tuple<int32_t, int64_t, int64_t>>{{0, 250, 1400}, {1, 300, 1450}}) {
      SCOPED_TRACE(device);
      const Finding& sync = *syncs.at(device);
      EXPECT_EQ(sync.count, 1);
      EXPECT_EQ(sync.cost_ns, 400);
      EXPECT_EQ(sync.evidence,
                "1 synchronising call(s) in the window (cudaDeviceSynchronize x1); 1 of them "
                "followed by GPU idle time, 400 ns in all");
      ASSERT_EQ(sync.examples.size(), 1u);
      EXPECT_EQ(sync.examples[0].start_ns, start);
      EXPECT_EQ(sync.examples[0].end_ns, end);
      EXPECT_EQ(sync.examples[0].cost_ns, 400);
      ASSERT_TRUE(sync.per_step.has_value());
      const FindingPerStep& s = *sync.per_step;
      EXPECT_EQ(s.steps, 2);
      EXPECT_DOUBLE_EQ(s.cost_per_step_ns, 200.0);
      EXPECT_EQ(s.steps_with_cost, 1);
      EXPECT_EQ(s.worst_step, 1);
      EXPECT_EQ(s.worst_number, 10);
      EXPECT_EQ(s.worst_step_cost_ns, 400);
      EXPECT_EQ(s.first_number, 10);
      EXPECT_EQ(s.last_number, 10);
    }
    const std::string shared = syncs.at(0)->per_step->steps_label;
    EXPECT_EQ(shared.rfind("'ProfilerStep#*' (4 instances); 2 of them left out: 2 processes "
                           "launched onto device 0 and have steps; those of process ",
                           0),
              0u)
        << shared;
    EXPECT_NE(shared.find(" are kept, which launched 2 of its 3 ops"), std::string::npos) << shared;
    EXPECT_EQ(syncs.at(1)->per_step->steps_label,
              "'ProfilerStep#*' (4 instances); 2 of them left out: another process's, not the one "
              "driving device 1");
  }
}

// Device 0's calls and steps are one process's: pid 3 launched most of its ops (3 short kernels
// of 5) but has no steps, so the device keeps pid 1's steps and pid 1's calls. By hand: pid 1's
// sync (250-1400) returns into the idle 1360-1700 (after pid 3's last kernel): 340 ns, in step
// #10; pid 3's sync (140-1600) is left out, and a note says so with the counts.
TEST_F(FindingsTest, ASharedDeviceTakesItsCallsFromTheProcessOfItsSteps) {
  std::string description = kTwoRanks;
  description = description.substr(0, description.find("api start=150 end=250 corr=11"));
  description +=
      "api start=110 end=120 corr=21 pid=3 tid=3 name=cudaLaunchKernel_v7000\n"
      "kernel start=1310 end=1320 corr=21 pid=3 dev=0 name=m\n"
      "api start=120 end=130 corr=22 pid=3 tid=3 name=cudaLaunchKernel_v7000\n"
      "kernel start=1330 end=1340 corr=22 pid=3 dev=0 name=m\n"
      "api start=130 end=140 corr=23 pid=3 tid=3 name=cudaLaunchKernel_v7000\n"
      "kernel start=1350 end=1360 corr=23 pid=3 dev=0 name=m\n"
      "api start=140 end=1600 corr=24 pid=3 tid=3 name=cudaDeviceSynchronize_v3020\n";
  FindingsResult result = ComputeFindings(Nsys(description), Options(WindowSpec::Kind::kAll));
  const Finding* sync = Find(result, "sync-call");
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->count, 1);
  EXPECT_EQ(sync->cost_ns, 340);
  ASSERT_EQ(sync->examples.size(), 1u);
  EXPECT_EQ(sync->examples[0].start_ns, 250);
  EXPECT_EQ(sync->examples[0].end_ns, 1400);
  ASSERT_TRUE(sync->per_step.has_value());
  EXPECT_EQ(sync->per_step->worst_number, 10);
  EXPECT_EQ(sync->per_step->steps, 2);
  int said = 0;
  for (const std::string& note : result.notes) {
    if (note.rfind("device 0: 1 synchronising call of process ", 0) == 0 &&
        note.find(" (which launched 3 of its 5 ops) left out: the device's calls are process ") !=
            std::string::npos) {
      ++said;
    }
  }
  EXPECT_EQ(said, 1) << ::testing::PrintToString(result.notes);
}

// Steps without a number of their own are named by position; numbered ones by their number.
TEST_F(FindingsTest, StepsAreNamedByTheirNumberOnlyWhenEveryStepHasOne) {
  FindingsResult numbered = ComputeFindings(Nsys(std::string(kSyncNsys) + kStepsTail), Options());
  const Finding* sync = Find(numbered, "sync-call");
  ASSERT_NE(sync, nullptr);
  ASSERT_TRUE(sync->per_step.has_value());
  EXPECT_EQ(sync->per_step->worst_number, 2);
  EXPECT_EQ(sync->per_step->family, "ProfilerStep");

  std::string description = std::string(kSyncNsys) + kStepsTail;
  description += "nvtx start=0 end=3000 text=iter\nnvtx start=3000 end=4500 text=iter\n";
  FindingsOptions options = Options();
  options.iteration_range = "iter";
  FindingsResult plain = ComputeFindings(Nsys(description), options);
  sync = Find(plain, "sync-call");
  ASSERT_NE(sync, nullptr);
  ASSERT_TRUE(sync->per_step.has_value());
  EXPECT_EQ(sync->per_step->worst_step, 1);
  EXPECT_EQ(sync->per_step->worst_number, -1);
  EXPECT_EQ(sync->per_step->family, "");
}

// Segments are charged by overlap: steps [0, 100) and [100, 200); [50, 150) gives 50 to each,
// [250, 300) is outside. Scaled by 1/2 for a cost that is half of what was charged.
TEST(FindingSteps, SegmentsAreChargedByOverlapAndScaled) {
  FindingSteps steps;
  steps.intervals = {{0, 100}, {100, 200}};
  EXPECT_EQ(steps.StepAt(-1), -1);
  EXPECT_EQ(steps.StepAt(0), 0);
  EXPECT_EQ(steps.StepAt(100), 1);
  EXPECT_EQ(steps.StepAt(200), -1);
  StepCosts costs;
  ChargeSegments(steps, costs, {{50, 150}, {250, 300}});
  ASSERT_EQ(costs.cost_ns.size(), 2U);
  EXPECT_EQ(costs.cost_ns[0], 50);
  EXPECT_EQ(costs.cost_ns[1], 50);
  EXPECT_EQ(costs.outside_ns, 50);
  ScaleStepCosts(costs, 1, 2);
  EXPECT_EQ(costs.cost_ns[0], 25);
  EXPECT_EQ(costs.outside_ns, 25);
  std::optional<FindingPerStep> summary = SummarizeStepCosts(steps, costs, 75, 0, 150);
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ(summary->steps, 2);
  EXPECT_DOUBLE_EQ(summary->cost_per_step_ns, 37.5);
  EXPECT_EQ(summary->worst_step, 1);  // equal costs: the earlier step
  EXPECT_FALSE(SummarizeStepCosts(steps, costs, 75, 300, 400).has_value());  // no step in window
}

// A step that starts early and ends late (it holds the later ones) is still charged for a
// segment that starts after the later steps did: a search on the steps' starts alone would
// begin at [30, 40) and miss [0, 1000). [500, 600) is inside step 0 only; [15, 35) overlaps
// step 0 (20), step 1 (5) and step 2 (5).
TEST(FindingSteps, SegmentsReachAStepThatStartedBeforeLaterOnes) {
  FindingSteps steps;
  steps.intervals = {{0, 1000}, {10, 20}, {30, 40}};
  StepCosts costs;
  ChargeSegments(steps, costs, {{500, 600}, {15, 35}, {1500, 1600}});
  ASSERT_EQ(costs.cost_ns.size(), 3U);
  EXPECT_EQ(costs.cost_ns[0], 100 + 20);
  EXPECT_EQ(costs.cost_ns[1], 5);
  EXPECT_EQ(costs.cost_ns[2], 5);
  EXPECT_EQ(costs.outside_ns, 100);
}

// --- launches: joins, counts of what is left out, windows (review of launches/api, D1-D10, D17).

// Launch-path reading (launch calls only, as `gpuroof launches` reads).
Trace KinetoLaunches(const testing::KinetoJsonBuilder& builder) {
  KinetoReadOptions options;
  options.api_calls = true;
  return ReadKinetoJsonText(builder.ObjectJson(), "test.json", options);
}

LaunchLatencyOptions AllWindow(bool keep_records = false) {
  LaunchLatencyOptions options;
  options.window = ParseWindowSpec("all");
  options.keep_records = keep_records;
  return options;
}

// Two processes on one GPU: process 100 launches kA (correlation 1, 10 us call), process 200
// launches kB (correlation 2, 50 us call) on the same stream. Each kernel joins its own call.
TEST_F(FindingsTest, KinetoTwoProcessesOnOneStreamJoinTheirOwnCalls) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "1000", "10", 1, 100, 100)
      .Kernel("kA", "1020", "5", 0, 7, 1)
      .Runtime("cudaLaunchKernel", "3000", "50", 2, 200, 200)
      .Kernel("kB", "3100", "5", 0, 7, 2);
  const std::vector<DeviceLaunches> devices =
      ComputeLaunchLatency(KinetoLaunches(builder), AllWindow(true));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 2);
  EXPECT_EQ(devices[0].unmatched, 0);
  EXPECT_EQ(devices[0].shared_call_kernels, 0);
  ASSERT_EQ(devices[0].records.size(), 2u);
  EXPECT_EQ(devices[0].records[0].overhead_ns(), 10'000);
  EXPECT_EQ(devices[0].records[1].overhead_ns(), 50'000);
  EXPECT_EQ(devices[0].records[1].latency_ns(), 100'000);
}

// Merged ranks: process 100 launches on device 0 and process 200 on device 1, each counting its
// correlation ids from 1 (CUPTI counts per process). No graph: 3 launches per device, device 0's
// calls 10 us, device 1's 100 us; both processes reuse the ids, which the reading notes.
TEST_F(FindingsTest, KinetoMergedRanksWithTheSameCorrelationIdsJoinPerProcess) {
  testing::KinetoJsonBuilder builder;
  for (int i = 1; i <= 3; ++i) {
    const std::string t = std::to_string(1000 * i);
    const std::string t2 = std::to_string(1000 * i + 500);
    builder.Runtime("cudaLaunchKernel", t, "10", i, 100, 100)
        .Kernel("kA", std::to_string(1000 * i + 20), "5", 0, 7, i)
        .Runtime("cudaLaunchKernel", t2, "100", i, 200, 200)
        .Kernel("kB", std::to_string(1000 * i + 700), "5", 1, 7, i);
  }
  const Trace trace = KinetoLaunches(builder);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow());
  ASSERT_EQ(devices.size(), 2u);
  for (const DeviceLaunches& device : devices) {
    EXPECT_EQ(device.launches, 3);
    EXPECT_EQ(device.shared_call_kernels, 0);
    ASSERT_EQ(device.rows.size(), 1u);
    EXPECT_EQ(device.rows[0].overhead.total_ns, device.device_id == 0 ? 30'000 : 300'000);
  }
}

// Both processes use correlation 1, on different streams: by time, each kernel joins the call
// made before it (process 100's at 1000 us for kA at 1020, process 200's at 3000 for kB at 3100),
// and the trace says the process was placed by time.
TEST_F(FindingsTest, KinetoSharedCorrelationIdIsPlacedByTimeAndSaid) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "1000", "10", 1, 100, 100)
      .Kernel("kA", "1020", "5", 0, 7, 1)
      .Runtime("cudaLaunchKernel", "3000", "50", 1, 200, 200)
      .Kernel("kB", "3100", "5", 0, 8, 1);
  const Trace trace = KinetoLaunches(builder);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow(true));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 2);
  EXPECT_EQ(devices[0].shared_call_kernels, 0);
  ASSERT_EQ(devices[0].records.size(), 2u);
  EXPECT_EQ(devices[0].records[1].overhead_ns(), 50'000);
  bool said = false;
  for (const std::string& note : trace.diagnostics.notes())
    said = said || note.find("2 GPU op(s) carry a correlation id that calls of several") == 0;
  EXPECT_TRUE(said);
}

// A correlation id above 2^32 (CUPTI's are 32-bit) is not truncated onto another kernel's: kB
// (id 2^32 + 5) joins nothing, kA (5) joins its call; the op is counted in a note.
TEST_F(FindingsTest, KinetoCorrelationAbove32BitsJoinsNothingAndIsCounted) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "1000", "10", 5)
      .Kernel("kA", "1020", "5", 0, 7, 5)
      .Runtime("cudaLaunchKernel", "2000", "10", 4294967301)
      .Kernel("kB", "2030", "5", 0, 7, 4294967301);
  const Trace trace = KinetoLaunches(builder);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 1);
  EXPECT_EQ(devices[0].unmatched, 1);
  EXPECT_EQ(devices[0].shared_call_kernels, 0);
  bool said = false;
  for (const std::string& note : trace.diagnostics.notes())
    said = said || note.find("1 GPU op(s) carry a correlation id outside") == 0;
  EXPECT_TRUE(said);
}

// The process each kernel of `trace` was given (its stream's), by kernel name; the last wins.
std::map<std::string, uint64_t> ProcessOfKernels(const Trace& trace) {
  std::map<std::string, uint64_t> processes;
  for (const ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      const std::string name(trace.strings.Get(trace.signatures[block.signature[i]].name));
      processes[name] = trace.streams[block.stream[i]].process_id;
    }
  }
  return processes;
}

bool HasNoteStartingWith(const Trace& trace, const std::string& prefix) {
  const std::vector<std::string>& notes = trace.diagnostics.notes();
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& note) { return note.rfind(prefix, 0) == 0; });
}

// Two processes launch onto device 0 stream 7 with colliding ids 1..3 (process 100: 10 us call
// at 1000i, kA 20 us later; process 200: 50 us call at 1000i + 500, kB 100 us later), plus
// unique ids 4 (process 100) and 5, 6 (process 200). The stream has two voters, so no process
// takes every colliding op: each joins the call of its id that started last before it, one op
// per call. 9 launches, none shared (no false CUDA graph), kA overhead 10 us, kB 50 us.
TEST_F(FindingsTest, KinetoSharedStreamJoinsEachCollidingOpToItsOwnCall) {
  testing::KinetoJsonBuilder builder;
  for (int i = 1; i <= 3; ++i) {
    builder.Runtime("cudaLaunchKernel", std::to_string(1000 * i), "10", i, 100, 100)
        .Kernel("kA", std::to_string(1000 * i + 20), "5", 0, 7, i)
        .Runtime("cudaLaunchKernel", std::to_string(1000 * i + 500), "50", i, 200, 200)
        .Kernel("kB", std::to_string(1000 * i + 600), "5", 0, 7, i);
  }
  builder.Runtime("cudaLaunchKernel", "9000", "10", 4, 100, 100)
      .Kernel("kA", "9020", "5", 0, 7, 4)
      .Runtime("cudaLaunchKernel", "9500", "50", 5, 200, 200)
      .Kernel("kB", "9600", "5", 0, 7, 5)
      .Runtime("cudaLaunchKernel", "9700", "50", 6, 200, 200)
      .Kernel("kB", "9800", "5", 0, 7, 6);
  const Trace trace = KinetoLaunches(builder);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow(true));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 9);
  EXPECT_EQ(devices[0].shared_call_kernels, 0);
  EXPECT_EQ(devices[0].unmatched, 0);
  for (const KernelLaunch& launch : devices[0].records) {
    const bool a = trace.strings.Get(trace.signatures[launch.signature].name) == "kA";
    EXPECT_EQ(launch.overhead_ns(), a ? 10'000 : 50'000);
    EXPECT_EQ(launch.latency_ns(), a ? 20'000 : 100'000);
  }
  EXPECT_TRUE(HasNoteStartingWith(trace, "6 GPU op(s) carry a correlation id"));
}

// Process 200 calls id 1 at 1000 us (its kB runs on device 1 at 5000 us), process 100 calls id 1
// at 2000 us (kA on device 0 at 2020 us): host order is not GPU order, and on each device both
// processes' calls precede the op. Nothing tells which process launched which op: neither is
// joined (a time rule would guess, and guesses wrong whenever one host runs ahead of another);
// the note counts them.
TEST_F(FindingsTest, KinetoOpsNothingPlacesAreLeftUnjoinedAndCounted) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "1000", "10", 1, 200, 200)
      .Kernel("kB", "5000", "5", 1, 7, 1)
      .Runtime("cudaLaunchKernel", "2000", "10", 1, 100, 100)
      .Kernel("kA", "2020", "5", 0, 7, 1);
  const Trace trace = KinetoLaunches(builder);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow(true));
  ASSERT_EQ(devices.size(), 2u);
  for (const DeviceLaunches& device : devices) {
    EXPECT_EQ(device.launches, 0) << device.device_id;
    EXPECT_EQ(device.unmatched, 1) << device.device_id;
  }
  EXPECT_TRUE(HasNoteStartingWith(
      trace,
      "2 GPU op(s) carry a correlation id that calls of several host processes have: 0 given "
      "the only process that launched other ops onto their stream, 0 the process whose calls "
      "could have launched (started before) most such ops of their device, 0 joined by time to the "
      "call of that id that started last but not after the op did, on streams several processes "
      "launched onto; guesses, wrong where hosts and GPUs keep different clocks or queue depths; 2 "
      "not joined, as nothing tells which process launched them"));
}

// Merged SPMD ranks, every id shared: process 200 is process 100 shifted by 5 us on the host and
// on the GPU (kA on device 0, kB on device 1, 20 us after their calls; id 4: 3 us). By time alone
// each of ids 1..3 is undecidable, but only process 100's calls could have launched id 4's kA
// (process 200's started after it): device 0 is process 100's, device 1 gets the other calls.
// Every latency is the rank's own: 20 us (3 us for id 4).
TEST_F(FindingsTest, KinetoDeviceGoesToTheProcessThatCouldHaveLaunchedMostOfItsOps) {
  testing::KinetoJsonBuilder builder;
  for (int i = 1; i <= 4; ++i) {
    const int latency = i == 4 ? 3 : 20;
    for (int shift : {0, 5}) {
      builder
          .Runtime("cudaLaunchKernel", std::to_string(1000 * i + shift), "2", i, 100 + 20 * shift,
                   100 + 20 * shift)
          .Kernel(shift == 0 ? "kA" : "kB", std::to_string(1000 * i + shift + latency), "1",
                  shift == 0 ? 0 : 1, 7, i);
    }
  }
  const Trace trace = KinetoLaunches(builder);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow(true));
  ASSERT_EQ(devices.size(), 2u);
  for (const DeviceLaunches& device : devices) {
    ASSERT_EQ(device.records.size(), 4u);
    for (size_t k = 0; k < 4; ++k)
      EXPECT_EQ(device.records[k].latency_ns(), k == 3 ? 3'000 : 20'000) << device.device_id;
  }
  EXPECT_EQ(ProcessOfKernels(trace).at("kA"), 100u);
  EXPECT_EQ(ProcessOfKernels(trace).at("kB"), 200u);
}

// kA (1020-1050 us) starts inside its call (process 100, 1000-1050 us); process 200's call of
// the same id ended at 510 us and launched kB on device 1 at 520 us, which only it could have:
// device 1 is process 200's, so device 0's kA is process 100's. The launch-ends reading (`ranks`)
// compares call starts as the whole-call reading (`launches`) does: both give kA to process 100.
TEST_F(FindingsTest, KinetoLaunchEndsReadingJoinsAsTheLaunchesReadingDoes) {
  testing::KinetoJsonBuilder builder;
  builder.Kernel("k0", "120", "80", 0, 7)
      .Runtime("cudaLaunchKernel", "500", "10", 1, 200, 200)
      .Kernel("kB", "520", "5", 1, 7, 1)
      .Runtime("cudaLaunchKernel", "1000", "50", 1, 100, 100)
      .Kernel("kA", "1020", "30", 0, 7, 1);
  KinetoReadOptions ends;
  ends.api_calls = true;
  ends.launch_ends_only = true;
  const Trace by_ends = ReadKinetoJsonText(builder.ObjectJson(), "test.json", ends);
  ASSERT_EQ(by_ends.launch_ends.size(), 2u);
  EXPECT_EQ(ProcessOfKernels(by_ends).at("kA"), 100u);
  EXPECT_EQ(ProcessOfKernels(KinetoLaunches(builder)).at("kA"), 100u);
}

// Reading every call (api, findings): process 200's cudaStreamSynchronize with id 1 (1050 us)
// launches nothing, so process 100's cudaLaunchKernel (1000 us) is the only candidate for kA
// (1100 us): kA is process 100's, and no op needed a guess.
TEST_F(FindingsTest, KinetoCallsThatLaunchNothingAreNoCandidates) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "1000", "10", 1, 100, 100)
      .Kernel("kA", "1100", "5", 0, 7, 1)
      .Runtime("cudaStreamSynchronize", "1050", "10", 1, 200, 200)
      .Runtime("cudaLaunchKernel", "1200", "10", 2, 200, 200)
      .Kernel("kB", "1220", "5", 1, 7, 2);
  KinetoReadOptions all;
  all.api_calls = true;
  all.all_api_calls = true;
  const Trace trace = ReadKinetoJsonText(builder.ObjectJson(), "test.json", all);
  EXPECT_EQ(ProcessOfKernels(trace).at("kA"), 100u);
  EXPECT_EQ(ProcessOfKernels(trace).at("kB"), 200u);
  EXPECT_FALSE(HasNoteStartingWith(trace, "1 GPU op(s) carry a correlation id"));
}

// Device 1's two kernels (9000, 9100 us) lie outside the window 0:1ms, device 0's kA inside:
// both `launches` and `kernels` keep device 1, without rows, its window note counting them.
TEST_F(FindingsTest, LaunchesAndKernelsKeepADeviceWhoseKernelsAllLieOutsideTheWindow) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "1000", "10", 1)
      .Kernel("kA", "1020", "50", 0, 7, 1)
      .Runtime("cudaLaunchKernel", "1100", "10", 2)
      .Kernel("kB", "9000", "50", 1, 7, 2)
      .Runtime("cudaLaunchKernel", "1200", "10", 3)
      .Kernel("kB", "9100", "50", 1, 7, 3);
  const Trace trace = KinetoLaunches(builder);
  LaunchLatencyOptions options;
  options.window = ParseWindowSpec("0:1ms");
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, options);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0].launches, 1);
  EXPECT_EQ(devices[1].device_id, 1);
  EXPECT_EQ(devices[1].launches, 0);
  EXPECT_EQ(devices[1].outside_kernels, 2);
  EXPECT_NE(devices[1].window.note.find("2 kernel(s) lie outside the window"), std::string::npos);

  KernelSummaryOptions kernel_options;
  kernel_options.window = ParseWindowSpec("0:1ms");
  const std::vector<DeviceKernels> kernels = ComputeKernelSummary(trace, kernel_options);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[1].device_id, 1);
  EXPECT_TRUE(kernels[1].rows.empty());
  EXPECT_NE(kernels[1].window.note.find("2 op(s)"), std::string::npos);
}

// Device 1's only op takes no time (whole-microsecond file): `all` needs no window length, so
// both launches are reported, device 1's kernel 0 ns long.
TEST_F(FindingsTest, LaunchesAllWindowAcceptsADeviceWhoseOpsTakeNoTime) {
  testing::KinetoJsonBuilder builder;
  builder.Runtime("cudaLaunchKernel", "0", "5", 1)
      .Kernel("k", "10", "30", 0, 7, 1)
      .Runtime("cudaLaunchKernel", "40", "5", 2)
      .Kernel("tiny", "50", "0", 1, 7, 2);
  const std::vector<DeviceLaunches> devices =
      ComputeLaunchLatency(KinetoLaunches(builder), AllWindow());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].launches, 1);
  ASSERT_EQ(devices[1].rows.size(), 1u);
  EXPECT_EQ(devices[1].rows[0].kernel.max_ns, 0);
}

// A Kineto file whose calls launched none of its kernels: the error says that, not that the file
// has no calls; a file without kernels says it has none.
TEST_F(FindingsTest, LaunchesErrorsSayWhatIsMissing) {
  testing::KinetoJsonBuilder unmatched;
  unmatched.Runtime("cudaMalloc", "0", "5", 1).Kernel("k", "10", "5", 0, 7, 99);
  try {
    ComputeLaunchLatency(KinetoLaunches(unmatched), AllWindow());
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("has no CUDA API call that launched one of its"),
              std::string::npos)
        << error.what();
  }
  testing::KinetoJsonBuilder no_kernels;
  no_kernels.Runtime("cudaLaunchKernel", "0", "5", 1);
  try {
    ComputeLaunchLatency(KinetoLaunches(no_kernels), AllWindow());
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("no kernels"), std::string::npos) << error.what();
  }
}

// The window 2000-3000 ns holds kernel k2 only: 1 joined, k1 and k3 (2 kernels; the copy is no
// kernel) counted as left out in the window note. A window with no kernel is an error.
TEST_F(FindingsTest, LaunchesWindowNoteCountsKernelsAndAnEmptyWindowIsAnError) {
  Trace trace = Nsys(R"(
api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000
kernel start=1000 end=1100 corr=1 name=k1
memcpy start=1200 end=1300 kind=HtoD bytes=100
api start=2000 end=2100 corr=2 name=cudaLaunchKernel_v7000
kernel start=2200 end=2300 corr=2 name=k2
api start=4000 end=4100 corr=3 name=cudaLaunchKernel_v7000
kernel start=9000 end=9100 corr=3 name=k3
)");
  LaunchLatencyOptions options;
  options.window = ParseWindowSpec("1000:1500");  // from the first GPU op (1000): 2000-2500
  std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, options);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 1);
  EXPECT_EQ(devices[0].outside_kernels, 2);
  EXPECT_EQ(devices[0].window.note,
            "2 kernel(s) lie outside the window; --window all includes them");
  options.window = ParseWindowSpec("3000:5000");  // 4000-6000: only the call runs there
  try {
    ComputeLaunchLatency(trace, options);
    ADD_FAILURE() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("no kernel runs in the range window of any device"),
              std::string::npos)
        << error.what();
  }
}

// A kernel that starts 1000 ns before its call (clock skew) is kept with latency -1000 and
// counted in early_starts; the other launch is not.
TEST_F(FindingsTest, LaunchesCountKernelsStartingBeforeTheirCall) {
  Trace trace = Nsys(R"(
api start=1000 end=1500 corr=1 name=cudaLaunchKernel_v7000
kernel start=0 end=100 corr=1 name=k
api start=2000 end=2100 corr=2 name=cudaLaunchKernel_v7000
kernel start=2200 end=2300 corr=2 name=k
)");
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 2);
  EXPECT_EQ(devices[0].early_starts, 1);
  EXPECT_EQ(devices[0].rows[0].latency.count, 2);
}

// A whole-graph launch (engine graph, 8000 ns on the GPU) next to one kernel: counted, with its
// GPU time, not silently dropped.
TEST_F(FindingsTest, LaunchesCountWholeGraphLaunches) {
  Trace trace = Nsys(R"(
api start=0 end=100 corr=1 name=cudaLaunchKernel_v7000
kernel start=200 end=300 corr=1 name=k
)");
  ActivityBlock& block = trace.blocks.back();
  block.start_ns.push_back(1000);
  block.end_ns.push_back(9000);
  block.bytes.push_back(0);
  block.signature.push_back(block.signature[0]);
  block.stream.push_back(block.stream[0]);
  block.engine.push_back(Engine::kGraph);
  block.correlation.push_back(0);
  const std::vector<DeviceLaunches> devices = ComputeLaunchLatency(trace, AllWindow());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].launches, 1);
  EXPECT_EQ(devices[0].graph_launches, 1);
  EXPECT_EQ(devices[0].graph_sum_ns, 8000);
}

// api --window nvtx: the calls overlapping the range's CPU time: step [1000, 2000) holds the
// calls at 1100 and 1900-2100 (overlapping), not the one at 2500 whose kernel runs in the step's
// GPU-work span; the window names the range.
TEST_F(FindingsTest, ApiNvtxWindowIsTheRangesCpuTime) {
  Trace trace = Nsys(R"(
nvtx start=1000 end=2000 text=step tid=1
api start=500 end=600 corr=1 name=cudaMalloc_v3020
api start=1100 end=1200 corr=2 name=cudaLaunchKernel_v7000
kernel start=3000 end=3100 corr=2 name=k
api start=1900 end=2100 corr=3 name=cudaLaunchKernel_v7000
kernel start=3200 end=3300 corr=3 name=k
api start=2500 end=2600 corr=4 name=cudaLaunchKernel_v7000
kernel start=3250 end=3400 corr=4 name=k
)");
  ApiSummaryOptions options;
  options.window = ParseWindowSpec("nvtx:step");
  const ApiSummary summary = ComputeApiSummary(trace, options);
  EXPECT_EQ(summary.calls, 2);
  EXPECT_EQ(summary.outside_calls, 2);
  EXPECT_EQ(summary.total_ns, 300);
  EXPECT_EQ(summary.window_range, "'step' (1 instance)");
  EXPECT_EQ(summary.window_start_ns, 1000);
  EXPECT_EQ(summary.window_end_ns, 2000);
}

// A device whose ops all take no time is left out of the engine load; findings says so too.
TEST_F(FindingsTest, ADeviceLeftOutOfTheEngineLoadIsSaid) {
  Trace trace = Nsys(R"(
kernel start=1000 end=2000 name=k dev=0
memcpy start=2500 end=2500 kind=HtoD bytes=100 dev=1
)");
  const FindingsResult result = ComputeFindings(trace, Options());
  bool said = false;
  for (const std::string& note : result.notes)
    said = said || note.find("device 1 left out: every GPU op of it takes no time") == 0;
  EXPECT_TRUE(said);
}

// `api --window processing` over a device with kernels and one with copies only: the second falls
// back to `all`, which widens the span the calls are counted in. The policy is the one asked for
// and the note names the device that fell back (it was labelled `all`).
TEST_F(FindingsTest, ApiWindowNamesTheDevicesThatFellBack) {
  Trace trace = Nsys(R"(
api start=500 end=600 corr=1 name=cudaLaunchKernel_v7000
kernel start=1000 end=2000 corr=1 name=k dev=0
memcpy start=2500 end=3000 kind=HtoD bytes=100 dev=1
)");
  ApiSummaryOptions options;
  options.window = ParseWindowSpec("processing");
  const ApiSummary summary = ComputeApiSummary(trace, options);
  EXPECT_EQ(summary.window_policy, "processing");
  EXPECT_EQ(summary.window_note,
            "device 1 has no processing window: its all window is part of "
            "the span");
  EXPECT_EQ(summary.window_start_ns, 1000);
  EXPECT_EQ(summary.window_end_ns, 3000);
}

}  // namespace
}  // namespace gpuroof
