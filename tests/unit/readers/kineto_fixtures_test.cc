// Every Kineto trace in ../shared/fixtures/kineto loads, and gpuroof's own analyses
// (ComputeEngineLoad, ComputeEngineOverlap) reproduce reference_metrics.json to the nanosecond:
// per-device window, per-engine count, sum and busy union, any-engine busy time, kernel/copy
// overlaps and ops per stream. The reference was computed by a separate Python script.
#include <algorithm>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/engine_overlap.h"
#include "gpuroof/readers/kineto_json_reader.h"
#include "gpuroof/readers/reader_registry.h"

namespace gpuroof {
namespace {

std::filesystem::path FixtureDir() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "kineto";
}

int64_t Int(simdjson::dom::element e) {
  return e.get_int64().value();
}

int64_t OverlapNs(const EngineOverlap& overlap, Engine a, Engine b) {
  auto at = [&](Engine e) -> std::optional<size_t> {
    auto it = std::find(overlap.engines.begin(), overlap.engines.end(), e);
    if (it == overlap.engines.end()) return std::nullopt;
    return static_cast<size_t>(it - overlap.engines.begin());
  };
  if (!at(a) || !at(b)) return 0;
  return overlap.intersection_ns[*at(a)][*at(b)];
}

TEST(SharedKinetoFixtures, EveryTraceMatchesTheReferenceMetrics) {
  std::filesystem::path reference = FixtureDir() / "reference_metrics.json";
  if (!std::filesystem::exists(reference)) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared Kineto fixtures not found at " << FixtureDir()
                 << " (CI has ../shared beside the clone)";
  }
  simdjson::dom::parser parser;
  simdjson::dom::object files = parser.load(reference.string()).get_object().value();
  int checked = 0;
  for (auto [file_key, expected] : files) {
    if (file_key.substr(0, 1) == "_") continue;
    std::string file(file_key);
    SCOPED_TRACE(file);
    // Through the registry, as the CLI reads it: chosen by content.
    Trace trace = ReadTrace(FixtureDir() / file);
    EXPECT_EQ(trace.format, "kineto-json");
    const Diagnostics& d = trace.diagnostics;
    EXPECT_EQ(d.records_read(), d.records_used() + d.records_skipped()) << d.Summary();
    EXPECT_FALSE(d.has_data_loss()) << d.Summary();
    EXPECT_EQ(trace.metadata.at("kineto_events"), std::to_string(Int(expected["events"])));

    // The reference's "kernel" is every kernel; gpuroof keeps collectives (NCCL) apart as the
    // comm engine. Fold them back for this comparison; CommKernels below checks the split.
    for (ActivityBlock& block : trace.blocks) {
      for (Engine& engine : block.engine) {
        if (engine == Engine::kComm) engine = Engine::kKernel;
      }
    }
    EngineLoadOptions options;
    options.window = ParseWindowSpec("all");
    std::vector<DeviceLoad> loads = ComputeEngineLoad(trace, options);
    std::vector<EngineOverlap> overlaps = ComputeEngineOverlap(trace, loads);
    simdjson::dom::object devices = expected["per_device"].get_object().value();
    EXPECT_EQ(loads.size(), devices.size());
    for (auto [device_key, want] : devices) {
      int32_t device_id = std::stoi(std::string(device_key));
      SCOPED_TRACE("device " + std::to_string(device_id));
      size_t index = 0;
      while (index < loads.size() && loads[index].device_id != device_id)
        ++index;
      ASSERT_LT(index, loads.size());
      const DeviceLoad& load = loads[index];
      EXPECT_EQ(load.window.length_ns(), Int(want["window_ns"]));
      EXPECT_EQ(load.any_busy_ns, Int(want["any_gpu_busy_union_ns"]));
      for (const char* name : {"kernel", "h2d", "d2h", "d2d", "p2p", "memset"}) {
        Engine engine = *EngineFromName(name);
        simdjson::dom::element figures;
        if (want[name].get(figures) != simdjson::SUCCESS) {
          EXPECT_EQ(load.engine(engine).ops, 0) << name;
          continue;
        }
        EXPECT_EQ(load.engine(engine).ops, Int(figures["count"])) << name;
        EXPECT_EQ(load.engine(engine).sum_ns, Int(figures["sum_ns"])) << name;
        EXPECT_EQ(load.engine(engine).busy_ns, Int(figures["busy_union_ns"])) << name;
        simdjson::dom::element overlap;
        if (engine != Engine::kKernel &&
            want["overlap_kernel_" + std::string(name) + "_ns"].get(overlap) == simdjson::SUCCESS) {
          EXPECT_EQ(OverlapNs(overlaps[index], Engine::kKernel, engine), Int(overlap)) << name;
        }
      }
      std::map<std::string, int64_t> per_stream;
      for (const ActivityBlock& block : trace.blocks) {
        for (uint32_t s : block.stream) {
          if (trace.streams[s].device_id == device_id) {
            ++per_stream[std::to_string(trace.streams[s].stream_id)];
          }
        }
      }
      std::map<std::string, int64_t> want_streams;
      simdjson::dom::object streams;
      ASSERT_EQ(want["streams"].get(streams), simdjson::SUCCESS);
      for (simdjson::dom::key_value_pair stream : streams)
        want_streams[std::string(stream.key)] = Int(stream.value);
      EXPECT_EQ(per_stream, want_streams);
    }
    ++checked;
  }
  EXPECT_EQ(checked, 6);
}

// Range and launch data the `ranges` command needs, on the two formats that have them.
TEST(SharedKinetoFixtures, StepsAndLaunchesAreRead) {
  std::filesystem::path rank0 = FixtureDir() / "hta_rank0_a100.json.gz";
  std::filesystem::path b200 = FixtureDir() / "tracelens_b200_eager.json.gz";
  if (!std::filesystem::is_directory(FixtureDir())) {
    GTEST_SKIP() << "SKIPPED LOUDLY: shared Kineto fixtures not found at " << FixtureDir();
  }
  // The folder is there: a missing file is a broken fixture set, not a reason to skip.
  ASSERT_TRUE(std::filesystem::exists(rank0)) << rank0 << " is missing from the fixtures";
  ASSERT_TRUE(std::filesystem::exists(b200)) << b200 << " is missing from the fixtures";
  Trace trace = ReadKinetoJson(rank0);
  // PROVENANCE.md: 5 ProfilerStep#N user annotations; launches cudaLaunchKernel 5240 +
  // cudaMemcpyAsync 1250 + cudaGraphLaunch 70 + cudaMemsetAsync 40 name a traced op.
  int steps = 0;
  for (const NvtxRange& range : trace.nvtx_ranges)
    steps += trace.strings.Get(range.name).substr(0, 13) == "ProfilerStep#";
  EXPECT_EQ(steps, 5);
  EXPECT_EQ(trace.api_calls.size(), 6600u);
  EXPECT_TRUE(std::is_sorted(
      trace.api_calls.begin(), trace.api_calls.end(), [](const ApiCall& a, const ApiCall& b) {
        return std::pair(a.process_id, a.correlation) < std::pair(b.process_id, b.correlation);
      }));
  for (const StreamInfo& stream : trace.streams)
    EXPECT_EQ(stream.process_id, 4515u);  // the host pid that launched onto every stream
  EXPECT_EQ(trace.DeviceName(0), "NVIDIA A100-SXM4-80GB");

  // Collectives are the comm engine: 80 ncclKernel_SendRecv launches, 190,345 us in all (raw
  // events counted with Python's json module: kernels whose name starts with "nccl").
  EngineLoadOptions all;
  all.window = ParseWindowSpec("all");
  const DeviceLoad rank0_load = ComputeEngineLoad(trace, all).at(0);
  EXPECT_EQ(rank0_load.engine(Engine::kComm).ops, 80);
  EXPECT_EQ(rank0_load.engine(Engine::kComm).sum_ns, 190'345'000);
  EXPECT_EQ(rank0_load.engine(Engine::kKernel).ops, 6000);

  // Each of the 3 annotations is written twice (user_annotation on the CPU thread,
  // gpu_user_annotation on stream 7, with the same External id): one range each, the GPU copy's
  // span kept (execute_context_1...: 84,044.109 us on device 0).
  Trace eager = ReadKinetoJson(b200);
  ASSERT_EQ(eager.nvtx_ranges.size(), 3u);
  for (const NvtxRange& range : eager.nvtx_ranges) {
    EXPECT_FALSE(range.on_gpu);
    EXPECT_TRUE(range.has_gpu_copy);
    EXPECT_EQ(range.gpu_copy_device_id, 0);
  }
  const auto context =
      std::find_if(eager.nvtx_ranges.begin(), eager.nvtx_ranges.end(), [&](const NvtxRange& range) {
        return eager.strings.Get(range.name).starts_with("execute_context_1");
      });
  ASSERT_NE(context, eager.nvtx_ranges.end());
  EXPECT_EQ(context->gpu_copy_end_ns - context->gpu_copy_start_ns, 84'044'109);
  EXPECT_EQ(eager.metadata.at("kineto_base_time_ns"), "1767189312000000000");
  // cuLaunchKernelEx (220 driver launches) are correlated too: 161 + 367 + 220 + 1 + 180.
  EXPECT_EQ(eager.api_calls.size(), 929u);

  // Its all-reduces go through PyTorch's symmetric memory, not NCCL: 73
  // multimem_all_reduce_kernel launches are communication like the one ncclDevKernel_AllGather,
  // 2,141.501 us in all; the other 694 kernels are compute (raw events counted in Python).
  const DeviceLoad eager_load = ComputeEngineLoad(eager, all).at(0);
  EXPECT_EQ(eager_load.engine(Engine::kComm).ops, 74);
  EXPECT_EQ(eager_load.engine(Engine::kComm).sum_ns, 2'141'501);
  EXPECT_EQ(eager_load.engine(Engine::kKernel).ops, 694);
}

}  // namespace
}  // namespace gpuroof
