#include "rank_sets.h"

#include <vector>

#include <fmt/format.h>

#include "cli_runner.h"
#include "support/kineto_json_builder.h"

namespace gpuroof::testing {

std::string KinetoRank(int rank, int world_size, const PlantedRank& planted) {
  KinetoJsonBuilder builder;
  builder.TopLevel(
      "distributedInfo",
      fmt::format(R"({{"backend": "nccl", "rank": {}, "world_size": {}}})", rank, world_size));
  if (!planted.device_name.empty()) {
    builder.TopLevel("deviceProperties",
                     fmt::format(R"([{{"id": 0, "name": "{}"}}])", planted.device_name));
  }
  for (int s = 0; s < 3; ++s) {
    int base = 1000 + 1000 * s;
    int arrival = s == 1 ? planted.late_arrival_us : 500;
    builder
        .Annotation(fmt::format("{}#{}", planted.step_ranges ? "ProfilerStep" : "Iteration",
                                s + planted.first_step),
                    std::to_string(base), std::to_string(planted.step_us))
        .Runtime("cudaLaunchKernel", std::to_string(base + 5), "2", 10 * s + 1)
        .Runtime("cudaLaunchKernel", std::to_string(base + 6), "2", 10 * s + 2)
        .Kernel("gemm", std::to_string(base + 10), std::to_string(planted.compute_us), 0, 7,
                10 * s + 1)
        .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", std::to_string(base + arrival), "200", 0,
                8, 10 * s + 2);
    if (s == 1 && planted.extra_collective_us > 0) {
      builder.Runtime("cudaLaunchKernel", std::to_string(base + 3), "1", 10 * s + 3)
          .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL",
                  std::to_string(base + planted.extra_collective_us), "200", 0, 8, 10 * s + 3);
    }
  }
  if (planted.after_steps_us > 0) {
    builder.Runtime("cudaLaunchKernel", "4090", "2", 91)
        .Kernel("gemm", "4100", std::to_string(planted.after_steps_us), 0, 7, 91);
  }
  if (planted.skipped_records) {
    builder
        .Raw(R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1500, )"
             R"("dur": -5, "args": {"device": 0, "stream": 7}})")
        .Raw(R"({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "dur": 5, )"
             R"("args": {"device": 0, "stream": 7}})");
  }
  return builder.ObjectJson();
}

void WriteKinetoJob(const std::filesystem::path& dir, int world_size) {
  std::filesystem::create_directories(dir);
  std::vector<PlantedRank> ranks(4);
  ranks[2].compute_us = 800;
  ranks[3].late_arrival_us = 650;
  for (int r = 0; r < 4; ++r)
    WriteFile(dir / fmt::format("worker_{}.pt.trace.json", 3 - r),
              KinetoRank(r, world_size, ranks[static_cast<size_t>(r)]));
}

}  // namespace gpuroof::testing

namespace gpuroof::testing {

void WriteUnevenStepsJob(const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::vector<PlantedRank> ranks(4);
  ranks[0].after_steps_us = 300;
  ranks[1].step_ranges = false;
  ranks[2].compute_us = 800;
  ranks[3].late_arrival_us = 650;
  for (int r = 0; r < 4; ++r)
    WriteFile(dir / fmt::format("worker_{}.pt.trace.json", r),
              KinetoRank(r, 4, ranks[static_cast<size_t>(r)]));
}

}  // namespace gpuroof::testing
