// `gpuroof findings` on the shared Kineto fixtures against the raw events: low-occupancy and
// exposed-comm, whose evidence a trace records in its kernel events (docs/findings.md), are
// recomputed here from the JSON with no gpuroof code, per device, over the whole trace.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <simdjson.h>

#include "cli_runner.h"
#include "kineto_raw_events.h"

namespace gpuroof::testing {
namespace {

std::filesystem::path KinetoFixtures() {
  return std::filesystem::path(GPUROOF_SHARED_FIXTURES_DIR) / "kineto";
}

// One device's kernels as the raw events have them.
struct RawDevice {
  std::vector<std::pair<int64_t, int64_t>> compute;  // kernels that are not collectives
  std::vector<std::pair<int64_t, int64_t>> comm;     // collectives (RawCollectiveKernel)
  int64_t estimated_ns = 0;                          // compute kernels with an occupancy estimate
  double weighted_pct_ns = 0;
  int64_t low_ns = 0;  // ... below 50 %
  int64_t low_kernels = 0;
};

std::map<int64_t, RawDevice> DevicesFromRawEvents(const std::filesystem::path& path) {
  std::map<int64_t, RawDevice> devices;
  ForEachCompleteEvent(path, [&devices](const RawEvent& event) {
    if (event.category != "kernel") return;
    int64_t device = 0;
    if (event.args["device"].get(device) != simdjson::SUCCESS) return;
    const int64_t start = event.start_ns;
    const int64_t end = event.end_ns;
    RawDevice& d = devices[device];
    if (RawCollectiveKernel(event.name)) {
      d.comm.emplace_back(start, end);
      return;
    }
    d.compute.emplace_back(start, end);
    simdjson::dom::element occupancy;
    if (event.args["est. achieved occupancy %"].get(occupancy) != simdjson::SUCCESS) return;
    const double pct = occupancy.is_int64() ? static_cast<double>(int64_t{occupancy.get_int64()})
                                            : double{occupancy.get_double()};
    // 0 % above 48 KB of shared memory is no estimate: Kineto's calculator found no resident
    // block for a kernel that ran (docs/findings.md). A 0 % of a tiny grid is a real estimate.
    int64_t shared_memory = 0;
    if (pct == 0 && event.args["shared memory"].get(shared_memory) == simdjson::SUCCESS &&
        shared_memory > 48 * 1024) {
      return;
    }
    d.estimated_ns += end - start;
    d.weighted_pct_ns += pct * static_cast<double>(end - start);
    if (pct < 50.0) {
      d.low_ns += end - start;
      ++d.low_kernels;
    }
  });
  return devices;
}

// low-occupancy fires on a device when its kernel-time-weighted estimate is below 50 % (the
// default threshold) with kernel time below it: cost = that time, count = those launches.
// exposed-comm fires when collective time runs with no compute kernel: cost = |comm U compute|
// - |compute|, count = the merged collective stretches.
TEST(FindingsKinetoRaw, LowOccupancyAndExposedCommAreTheRawEventsFigures) {
  if (!std::filesystem::exists(KinetoFixtures())) {
    GTEST_SKIP() << "shared fixtures not found at " << KinetoFixtures()
                 << " (../shared/fixtures): the raw-event checks did not run";
  }
  int low_fired = 0;
  int comm_fired = 0;
  for (const auto& entry : std::filesystem::directory_iterator(KinetoFixtures())) {
    if (entry.path().string().find(".json.gz") == std::string::npos) continue;
    SCOPED_TRACE(entry.path().filename().string());
    CliResult run = RunGpuroof({"findings", entry.path().string(), "--window", "all",
                                "--min-cost-pct", "0", "--format", "csv"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    std::map<std::pair<std::string, int64_t>, std::map<std::string, std::string>> found;
    for (const auto& row : ParseCsv(run.out))
      found[{row.at("id"), std::stoll(row.at("device"))}] = row;
    for (const auto& [device, raw] : DevicesFromRawEvents(entry.path())) {
      SCOPED_TRACE("device " + std::to_string(device));
      auto low = found.find({"low-occupancy", device});
      const bool low_expected = raw.estimated_ns > 0 && raw.low_ns > 0 &&
                                raw.weighted_pct_ns / static_cast<double>(raw.estimated_ns) < 50.0;
      ASSERT_EQ(low != found.end(), low_expected);
      if (low_expected) {
        EXPECT_EQ(std::stoll(low->second.at("cost_ns")), raw.low_ns);
        EXPECT_EQ(std::stoll(low->second.at("count")), raw.low_kernels);
        ++low_fired;
      }
      std::vector<std::pair<int64_t, int64_t>> both = raw.compute;
      both.insert(both.end(), raw.comm.begin(), raw.comm.end());
      const int64_t exposed = raw.comm.empty() ? 0 : UnionNs(both) - UnionNs(raw.compute);
      auto comm = found.find({"exposed-comm", device});
      ASSERT_EQ(comm != found.end(), exposed > 0);
      if (exposed > 0) {
        EXPECT_EQ(std::stoll(comm->second.at("cost_ns")), exposed);
        EXPECT_EQ(std::stoll(comm->second.at("count")), UnionStretches(raw.comm));
        ++comm_fired;
      }
    }
  }
  EXPECT_GE(low_fired, 2);   // hta_rank0_a100, tracelens_b200_eager (and hta_simple_add_a100)
  EXPECT_GE(comm_fired, 1);  // hta_rank0_a100
}

}  // namespace
}  // namespace gpuroof::testing
