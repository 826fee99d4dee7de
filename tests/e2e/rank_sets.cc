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
  for (int s = 0; s < 3; ++s) {
    int base = 1000 + 1000 * s;
    int arrival = s == 1 ? planted.late_arrival_us : 500;
    builder
        .Annotation(fmt::format("ProfilerStep#{}", s + 1), std::to_string(base),
                    std::to_string(planted.step_us))
        .Runtime("cudaLaunchKernel", std::to_string(base + 5), "2", 10 * s + 1)
        .Runtime("cudaLaunchKernel", std::to_string(base + 6), "2", 10 * s + 2)
        .Kernel("gemm", std::to_string(base + 10), std::to_string(planted.compute_us), 0, 7,
                10 * s + 1)
        .Kernel("ncclDevKernel_AllReduce_Sum_f32_RING_LL", std::to_string(base + arrival), "200", 0,
                8, 10 * s + 2);
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
