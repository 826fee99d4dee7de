// `gpuroof findings` on the shared Kineto fixtures against their raw events, for the rules that
// need the GPU timeline or the CUDA calls: gpu-gap with host-bound, serialised-copies,
// pageable-copy, sync-call and launch-bound. Each figure is recomputed here from the JSON by its
// definition in docs/findings.md, with no gpuroof code, over the whole trace (--window all) with
// every finding kept (--min-cost-pct 0). The nsys side is checked by SQL in
// api_findings_cli_test.cc.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli_runner.h"
#include "kineto_raw_events.h"

namespace gpuroof::testing {
namespace {

using Intervals = std::vector<std::pair<int64_t, int64_t>>;

std::filesystem::path KinetoFixtures() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "kineto";
}

enum class OpKind { kKernel, kComm, kCopy, kMemset };

struct RawOp {
  OpKind kind = OpKind::kKernel;
  int64_t start = 0;
  int64_t end = 0;
  int64_t correlation = 0;
  bool host_device_copy = false;  // HtoD, DtoH (and the array forms HtoA, AtoH)
  bool pageable = false;          // a side named Pageable: "(Pageable -> Device)"
};

struct RawCall {
  std::string name;
  int64_t start = 0;
  int64_t end = 0;
};

struct RawTrace {
  std::map<int64_t, std::vector<RawOp>> ops;  // by device
  std::map<int64_t, RawCall> calls;           // by correlation id (0: none)
  std::vector<RawCall> uncorrelated_calls;
};

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The ops as the Kineto reader's categories name them (kernel, gpu_memcpy/memcpy,
// gpu_memset/memset, any case), and the cuda_runtime/cuda_driver/runtime calls.
RawTrace ReadRaw(const std::filesystem::path& path) {
  RawTrace raw;
  ForEachCompleteEvent(path, [&raw](const RawEvent& event) {
    const std::string& category = event.category;
    const std::string_view name = event.name;
    int64_t correlation = 0;
    if (event.args["correlation"].get(correlation) != simdjson::SUCCESS) correlation = 0;
    if (category == "cuda_runtime" || category == "cuda_driver" || category == "runtime") {
      RawCall call{std::string(name), event.start_ns, event.end_ns};
      if (correlation > 0) {
        raw.calls[correlation] = call;
      } else {
        raw.uncorrelated_calls.push_back(call);
      }
      return;
    }
    int64_t device = 0;
    if (event.args["device"].get(device) != simdjson::SUCCESS) return;
    RawOp op;
    op.start = event.start_ns;
    op.end = event.end_ns;
    op.correlation = correlation;
    if (category == "kernel") {
      op.kind = RawCollectiveKernel(name) ? OpKind::kComm : OpKind::kKernel;
    } else if (category == "gpu_memcpy" || category == "memcpy") {
      op.kind = OpKind::kCopy;
      for (std::string_view direction :
           {"Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH"}) {
        op.host_device_copy = op.host_device_copy || StartsWith(name, direction);
      }
      const size_t open = name.find('(');
      const std::string_view sides =
          open == std::string_view::npos ? std::string_view{} : name.substr(open);
      op.pageable = sides.find("Pageable") != std::string_view::npos;
    } else if (category == "gpu_memset" || category == "memset") {
      op.kind = OpKind::kMemset;
    } else {
      return;
    }
    raw.ops[device].push_back(op);
  });
  return raw;
}

Intervals Of(const std::vector<RawOp>& ops, std::initializer_list<OpKind> kinds) {
  Intervals out;
  for (const RawOp& op : ops) {
    if (std::find(kinds.begin(), kinds.end(), op.kind) != kinds.end())
      out.emplace_back(op.start, op.end);
  }
  return out;
}

// The findings rows of one run, keyed by (id, device).
std::map<std::pair<std::string, int64_t>, std::map<std::string, std::string>> RunFindings(
    const std::filesystem::path& path) {
  CliResult run = RunGpuroof({"findings", path.string(), "--window", "all", "--min-cost-pct", "0",
                              "--gap-min", "100us", "--format", "csv"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::map<std::pair<std::string, int64_t>, std::map<std::string, std::string>> found;
  for (const auto& row : ParseCsv(run.out))
    found[{row.at("id"), std::stoll(row.at("device"))}] = row;
  return found;
}

int64_t Field(
    const std::map<std::pair<std::string, int64_t>, std::map<std::string, std::string>>& found,
    const std::string& id, int64_t device, const std::string& column) {
  auto it = found.find({id, device});
  return it == found.end() ? 0 : std::stoll(it->second.at(column));
}

bool IsSynchronizing(const std::string& name) {
  for (const char* sync :
       {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
        "cudaThreadSynchronize", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize"}) {
    if (name == sync) return true;
  }
  const bool copy_or_set = StartsWith(name, "cudaMemcpy") || StartsWith(name, "cudaMemset") ||
                           StartsWith(name, "cuMemcpy") || StartsWith(name, "cuMemset");
  return copy_or_set && name.find("Async") == std::string::npos;
}

#define SKIP_WITHOUT_KINETO_FIXTURES()                                                \
  if (!std::filesystem::exists(KinetoFixtures())) {                                   \
    GTEST_SKIP() << "shared fixtures not found at " << KinetoFixtures()               \
                 << " (../shared/fixtures): the Kineto raw-event checks did not run"; \
  }

using Found = std::map<std::pair<std::string, int64_t>, std::map<std::string, std::string>>;

struct Fixture {
  std::string name;
  RawTrace raw;
  Found found;
};

// Every fixture read and run once for all the checks below (each run takes seconds).
const std::vector<Fixture>& Fixtures() {
  static const std::vector<Fixture> fixtures = [] {
    std::vector<Fixture> out;
    for (const auto& entry : std::filesystem::directory_iterator(KinetoFixtures())) {
      if (entry.path().string().find(".json.gz") == std::string::npos) continue;
      out.push_back(
          {entry.path().filename().string(), ReadRaw(entry.path()), RunFindings(entry.path())});
    }
    return out;
  }();
  return fixtures;
}

// Every fixture, each checked by `check(raw, found)`; returns how many were checked.
template <typename Check>
int ForEachFixture(Check check) {
  for (const Fixture& fixture : Fixtures()) {
    SCOPED_TRACE(fixture.name);
    check(fixture.raw, fixture.found);
  }
  return static_cast<int>(Fixtures().size());
}

// gpu-gap and host-bound split the device's idle gaps: their counts and costs add up to the
// gaps longer than 100 us between the device's ops that take time, in start order (an op that
// starts more than 100 us after every earlier op ended closes one).
void CheckGapFindingsAddUpToTheRawIdleGaps() {
  int64_t gaps_seen = 0;
  const int checked = ForEachFixture([&](const RawTrace& raw, const auto& found) {
    for (const auto& [device, ops] : raw.ops) {
      SCOPED_TRACE("device " + std::to_string(device));
      Intervals busy = Of(ops, {OpKind::kKernel, OpKind::kComm, OpKind::kCopy, OpKind::kMemset});
      busy.erase(std::remove_if(busy.begin(), busy.end(),
                                [](const auto& op) { return op.second <= op.first; }),
                 busy.end());
      std::sort(busy.begin(), busy.end());
      int64_t count = 0;
      int64_t idle = 0;
      for (size_t i = 1, latest = 0; i < busy.size(); ++i) {
        // `latest`: the op ending last among those before op i.
        if (busy[i - 1].second > busy[latest].second) latest = i - 1;
        const int64_t gap = busy[i].first - busy[latest].second;
        if (gap > 100'000) {
          ++count;
          idle += gap;
        }
      }
      EXPECT_EQ(
          Field(found, "gpu-gap", device, "count") + Field(found, "host-bound", device, "count"),
          count);
      EXPECT_EQ(Field(found, "gpu-gap", device, "cost_ns") +
                    Field(found, "host-bound", device, "cost_ns"),
                idle);
      gaps_seen += count;
    }
  });
  EXPECT_GE(checked, 6);
  EXPECT_GT(gaps_seen, 0);
}

// serialised-copies: copies exposed = |copies U kernels| - |kernels| (collectives are not
// compute); cost = min(exposed, max(0, |any op| - max(|kernels|, |copies|))); count = the merged
// copy stretches; no finding when the cost is 0.
void CheckSerialisedCopiesAreTheRawBusyUnions() {
  int fired = 0;
  ForEachFixture([&](const RawTrace& raw, const auto& found) {
    for (const auto& [device, ops] : raw.ops) {
      SCOPED_TRACE("device " + std::to_string(device));
      const Intervals kernels = Of(ops, {OpKind::kKernel});
      const Intervals copies = Of(ops, {OpKind::kCopy});
      const int64_t compute_busy = UnionNs(kernels);
      const int64_t copy_busy = UnionNs(copies);
      const int64_t any_busy =
          UnionNs(Of(ops, {OpKind::kKernel, OpKind::kComm, OpKind::kCopy, OpKind::kMemset}));
      const int64_t exposed = UnionNs(Of(ops, {OpKind::kKernel, OpKind::kCopy})) - compute_busy;
      const int64_t cost =
          compute_busy == 0 || copy_busy == 0
              ? 0
              : std::min(exposed,
                         std::max<int64_t>(0, any_busy - std::max(compute_busy, copy_busy)));
      ASSERT_EQ(found.count({"serialised-copies", device}) == 1, cost > 0);
      if (cost == 0) continue;
      EXPECT_EQ(Field(found, "serialised-copies", device, "cost_ns"), cost);
      EXPECT_EQ(Field(found, "serialised-copies", device, "count"), UnionStretches(copies));
      ++fired;
    }
  });
  EXPECT_GE(fired, 6);  // every fixture
}

// pageable-copy: HtoD/DtoH copies with a pageable host side whose launching call (same
// correlation id) has "Async" in its name; cost = their summed duration.
void CheckPageableCopiesAreTheRawAsyncPageableCopies() {
  int fired = 0;
  ForEachFixture([&](const RawTrace& raw, const auto& found) {
    for (const auto& [device, ops] : raw.ops) {
      SCOPED_TRACE("device " + std::to_string(device));
      int64_t count = 0;
      int64_t cost = 0;
      for (const RawOp& op : ops) {
        if (op.kind != OpKind::kCopy || !op.host_device_copy || !op.pageable) continue;
        auto call = raw.calls.find(op.correlation);
        if (op.correlation == 0 || call == raw.calls.end()) continue;
        if (call->second.name.find("Async") == std::string::npos) continue;
        ++count;
        cost += op.end - op.start;
      }
      ASSERT_EQ(found.count({"pageable-copy", device}) == 1, cost > 0);
      EXPECT_EQ(Field(found, "pageable-copy", device, "count"), cost > 0 ? count : 0);
      EXPECT_EQ(Field(found, "pageable-copy", device, "cost_ns"), cost);
      fired += cost > 0 ? 1 : 0;
    }
  });
  EXPECT_GE(fired, 4);  // hta_rank0_a100, hta_simple_add_a100, kineto_rn50_pt18, tracelens
}

// sync-call counts every synchronising call (docs/findings.md's list; copies and memsets without
// "Async") that overlaps the device's span, first op start to last op end. Every fixture has one
// device and one host process, so every call is that device's. A fixture where they cost no GPU
// idle time has no finding.
void CheckSyncCallsAreTheRawSynchronisingCalls() {
  int fired = 0;
  ForEachFixture([&](const RawTrace& raw, const auto& found) {
    ASSERT_EQ(raw.ops.size(), 1U);
    const auto& [device, ops] = *raw.ops.begin();
    int64_t first = ops.front().start;
    int64_t last = ops.front().end;
    for (const RawOp& op : ops) {
      first = std::min(first, op.start);
      last = std::max(last, op.end);
    }
    int64_t count = 0;
    auto consider = [&](const RawCall& call) {
      if (IsSynchronizing(call.name) && call.end > first && call.start < last) ++count;
    };
    for (const auto& [correlation, call] : raw.calls)
      consider(call);
    for (const RawCall& call : raw.uncorrelated_calls)
      consider(call);
    if (found.count({"sync-call", device}) == 0) return;  // below cost 0: checked by nsys SQL
    EXPECT_EQ(Field(found, "sync-call", device, "count"), count);
    ++fired;
  });
  EXPECT_GE(fired, 3);
}

// launch-bound: kernels (collectives too) joined to their launching call by correlation id that
// ran shorter than the call took; fires with at least 10 such kernels making at least 50 % of the
// joined launches; cost = the sum of (call duration - kernel duration). A call that launched
// several ops (a CUDA graph launch) joins none of them.
void CheckLaunchBoundIsTheRawShortKernels() {
  int fired = 0;
  ForEachFixture([&](const RawTrace& raw, const auto& found) {
    std::map<int64_t, int64_t> ops_of_call;
    for (const auto& [device, ops] : raw.ops) {
      for (const RawOp& op : ops)
        ++ops_of_call[op.correlation];
    }
    for (const auto& [device, ops] : raw.ops) {
      SCOPED_TRACE("device " + std::to_string(device));
      int64_t launches = 0;
      int64_t short_kernels = 0;
      int64_t cost = 0;
      for (const RawOp& op : ops) {
        if (op.kind != OpKind::kKernel && op.kind != OpKind::kComm) continue;
        auto call = raw.calls.find(op.correlation);
        if (op.correlation == 0 || call == raw.calls.end() || ops_of_call[op.correlation] > 1)
          continue;
        ++launches;
        const int64_t overhead = call->second.end - call->second.start;
        if (op.end - op.start >= overhead) continue;
        ++short_kernels;
        cost += overhead - (op.end - op.start);
      }
      const bool fires = short_kernels >= 10 && 2 * short_kernels >= launches;
      ASSERT_EQ(found.count({"launch-bound", device}) == 1, fires)
          << short_kernels << " of " << launches;
      if (!fires) continue;
      EXPECT_EQ(Field(found, "launch-bound", device, "count"), short_kernels);
      EXPECT_EQ(Field(found, "launch-bound", device, "cost_ns"), cost);
      ++fired;
    }
  });
  EXPECT_GE(fired, 2);  // kineto_rn50_pt18, tracelens_b200_eager
}

// One test for the five rules: under ctest each test is a process of its own, and the fixtures'
// runs are what takes the time.
TEST(FindingsKinetoCalls, EveryRuleMatchesTheRawEvents) {
  SKIP_WITHOUT_KINETO_FIXTURES();
  {
    SCOPED_TRACE("GapFindingsAddUpToTheRawIdleGaps");
    CheckGapFindingsAddUpToTheRawIdleGaps();
  }
  {
    SCOPED_TRACE("SerialisedCopiesAreTheRawBusyUnions");
    CheckSerialisedCopiesAreTheRawBusyUnions();
  }
  {
    SCOPED_TRACE("PageableCopiesAreTheRawAsyncPageableCopies");
    CheckPageableCopiesAreTheRawAsyncPageableCopies();
  }
  {
    SCOPED_TRACE("SyncCallsAreTheRawSynchronisingCalls");
    CheckSyncCallsAreTheRawSynchronisingCalls();
  }
  {
    SCOPED_TRACE("LaunchBoundIsTheRawShortKernels");
    CheckLaunchBoundIsTheRawShortKernels();
  }
}

}  // namespace
}  // namespace gpuroof::testing
