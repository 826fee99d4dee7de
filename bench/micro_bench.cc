// Micro-benchmarks of the analysis hot paths, on in-memory data (no SQLite, no files):
//   - IntervalUnion, the streaming union every engine-load pass feeds, over 1M intervals;
//   - UnionLengthNs, the sort-then-union helper, for contrast with the streaming form;
//   - ComputeEngineLoad over a 1M-op frame-pipeline Trace split into 4 sorted blocks, laid out
//     either as the nsys reader lays them out (one block per table chunk) or round robin (every
//     consecutive op in another block: the k-way merge's worst case).
// Run: build/release/bench/gpuroof_micro_bench [--benchmark_repetitions=5 ...]
#include <cstdint>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "gpuroof/analyses/engine_load.h"
#include "gpuroof/analyses/interval_union.h"
#include "gpuroof/model/trace.h"

namespace {

using gpuroof::ActivityBlock;
using gpuroof::Engine;
using gpuroof::Trace;

constexpr int64_t kOps = 1'000'000;

// splitmix64, as in make_bench_trace.cc: deterministic everywhere.
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t lo, int64_t hi) {  // in [lo, hi]
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }

 private:
  uint64_t state_;
};

// Intervals in start order with a mix of gaps and overlaps (about a third overlap the previous).
std::vector<std::pair<int64_t, int64_t>> MakeIntervals(int64_t count) {
  std::vector<std::pair<int64_t, int64_t>> intervals;
  intervals.reserve(static_cast<size_t>(count));
  Prng prng(42);
  int64_t start = 1'000'000;
  for (int64_t i = 0; i < count; ++i) {
    start += prng.Uniform(0, 3'000);
    intervals.emplace_back(start, start + prng.Uniform(0, 4'000));
  }
  return intervals;
}

void BM_IntervalUnion(benchmark::State& state) {
  const auto intervals = MakeIntervals(state.range(0));
  for (auto _ : state) {
    gpuroof::IntervalUnion interval_union;
    for (const auto& [start, end] : intervals)
      interval_union.Add(start, end);
    benchmark::DoNotOptimize(interval_union.length_ns());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_IntervalUnion)->Arg(kOps)->Unit(benchmark::kMillisecond);

// The sort-based helper on the same intervals, shuffled (it copies and sorts every time).
void BM_UnionLengthNs(benchmark::State& state) {
  auto intervals = MakeIntervals(state.range(0));
  Prng prng(7);
  for (size_t i = intervals.size(); i > 1; --i) {
    std::swap(intervals[i - 1], intervals[prng.Next() % i]);
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(gpuroof::UnionLengthNs(intervals));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_UnionLengthNs)->Arg(kOps)->Unit(benchmark::kMillisecond);

enum class Layout { kTableChunks = 0, kRoundRobin = 1 };

struct Op {
  Engine engine;
  int64_t start_ns;
  int64_t end_ns;
  uint32_t stream;
  uint32_t signature;
  uint64_t bytes;
};

// A 4-stream frame pipeline (H2D, kernel, D2H per frame) of `count` ops in 4 blocks, each sorted
// by start, built directly (like tests/unit/common/memory_trace.cc, without its per-op lookups).
Trace MakePipelineTrace(int64_t count, Layout layout) {
  Trace trace;
  trace.source = "bench.memory";
  trace.format = "memory";
  trace.devices.push_back({0, "Bench GPU"});
  for (uint32_t s = 0; s < 4; ++s)
    trace.streams.push_back({4242, 0, 1, 13 + 4 * s});
  const uint32_t kernel_names[] = {trace.strings.Intern("preprocess"), trace.strings.Intern("conv"),
                                   trace.strings.Intern("gemm"), trace.strings.Intern("topk")};
  for (uint32_t name : kernel_names) {
    gpuroof::OpSignature signature;
    signature.engine = Engine::kKernel;
    signature.name = name;
    trace.signatures.push_back(signature);
  }
  gpuroof::OpSignature h2d;
  h2d.engine = Engine::kH2D;
  trace.signatures.push_back(h2d);
  gpuroof::OpSignature d2h;
  d2h.engine = Engine::kD2H;
  trace.signatures.push_back(d2h);

  std::vector<Op> kernels;
  std::vector<Op> copies;  // in issue order, like the MEMCPY table
  Prng prng(1);
  for (int64_t frame = 0; 3 * frame < count; ++frame) {
    const auto stream = static_cast<uint32_t>(frame % 4);
    int64_t t = 1'500'000'000 + frame * 350'000 + prng.Uniform(0, 4'000);
    int64_t end = t + prng.Uniform(242'000, 258'000);
    copies.push_back({Engine::kH2D, t, end, stream, 4, 6'220'800});
    t = end + prng.Uniform(2'000, 6'000);
    end = t + prng.Uniform(288'000, 312'000);
    kernels.push_back({Engine::kKernel, t, end, stream, static_cast<uint32_t>(prng.Next() % 4), 0});
    t = end + prng.Uniform(2'000, 6'000);
    end = t + prng.Uniform(11'400, 12'600);
    copies.push_back({Engine::kD2H, t, end, stream, 5, 262'144});
  }
  std::vector<std::vector<Op>> blocks(4);
  if (layout == Layout::kTableChunks) {
    // The reader's layout: each table split into rowid ranges, one block per range.
    const size_t half_k = kernels.size() / 2;
    const size_t half_c = copies.size() / 2;
    blocks[0].assign(kernels.begin(), kernels.begin() + static_cast<std::ptrdiff_t>(half_k));
    blocks[1].assign(kernels.begin() + static_cast<std::ptrdiff_t>(half_k), kernels.end());
    blocks[2].assign(copies.begin(), copies.begin() + static_cast<std::ptrdiff_t>(half_c));
    blocks[3].assign(copies.begin() + static_cast<std::ptrdiff_t>(half_c), copies.end());
  } else {
    size_t i = 0;
    for (size_t k = 0, c = 0; k < kernels.size() || c < copies.size();) {
      // Time order across tables, dealt round robin, so every next op is in another block.
      const bool take_kernel =
          c >= copies.size() || (k < kernels.size() && kernels[k].start_ns < copies[c].start_ns);
      blocks[i++ % 4].push_back(take_kernel ? kernels[k++] : copies[c++]);
    }
  }
  for (const std::vector<Op>& ops : blocks) {
    ActivityBlock block;
    block.Reserve(ops.size());
    uint32_t correlation = 1;
    for (const Op& op : ops) {
      block.start_ns.push_back(op.start_ns);
      block.end_ns.push_back(op.end_ns);
      block.bytes.push_back(op.bytes);
      block.signature.push_back(op.signature);
      block.stream.push_back(op.stream);
      block.correlation.push_back(correlation++);
      block.engine.push_back(op.engine);
    }
    block.SortByStart();
    trace.blocks.push_back(std::move(block));
  }
  return trace;
}

void BM_ComputeEngineLoad(benchmark::State& state) {
  const Trace trace = MakePipelineTrace(state.range(0), static_cast<Layout>(state.range(1)));
  gpuroof::EngineLoadOptions options;
  options.units.kind = gpuroof::UnitsSpec::Kind::kFixed;
  options.units.count = state.range(0) / 3;
  for (auto _ : state) {
    auto loads = gpuroof::ComputeEngineLoad(trace, options);
    benchmark::DoNotOptimize(loads.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.activity_count()));
  state.SetLabel(state.range(1) == 0 ? "4 blocks, table chunks" : "4 blocks, round robin");
}
BENCHMARK(BM_ComputeEngineLoad)
    ->Args({kOps, static_cast<int64_t>(Layout::kTableChunks)})
    ->Args({kOps, static_cast<int64_t>(Layout::kRoundRobin)})
    ->Unit(benchmark::kMillisecond);

// Units counted from a kernel's launches: the same pass plus a signature lookup per kernel.
void BM_ComputeEngineLoadKernelUnits(benchmark::State& state) {
  const Trace trace = MakePipelineTrace(state.range(0), Layout::kTableChunks);
  gpuroof::EngineLoadOptions options;
  options.units.kind = gpuroof::UnitsSpec::Kind::kKernelLaunches;
  options.units.name = "gemm";
  for (auto _ : state) {
    auto loads = gpuroof::ComputeEngineLoad(trace, options);
    benchmark::DoNotOptimize(loads.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(trace.activity_count()));
}
BENCHMARK(BM_ComputeEngineLoadKernelUnits)->Arg(kOps)->Unit(benchmark::kMillisecond);

}  // namespace
