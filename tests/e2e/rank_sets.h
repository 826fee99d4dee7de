// Rank sets the e2e tests of `gpuroof ranks` share: a small Kineto job, made by the JSON
// builder, with a planted straggler and a planted late collective.
#pragma once

#include <filesystem>
#include <string>

namespace gpuroof::testing {

// Every rank runs 3 steps of 1000 µs (step s starts at 1000 + 1000 s). In each step, µs after its
// start: a gemm launched at 5 (call 2 µs long) runs [10, 10 + compute) on stream 7; an all-reduce
// launched at 6 runs [arrival, arrival + 200) on stream 8.
//   normal: compute 600, arrival 500 -> compute 600, comm 200, hidden 110, exposed 90;
//           idle: [0,10) host-bound 7 (the launch ends at 7), waiting 3; [700,1000) other 300.
//   straggler: compute 800 -> compute 800, hidden 200, exposed 0; other idle 190.
//   late: arrival 650 in step 2 only -> that collective's spread across ranks is 150 µs.
// Outliers (docs/metrics.md): compute 600 600 800 600 -> median 600, MAD 0, +33.3 %.
struct PlantedRank {
  int compute_us = 600;
  int late_arrival_us = 500;     // the arrival in step 2
  int step_us = 1000;            // the length of the step ranges (the GPU work keeps its times)
  bool step_ranges = true;       // false: the ranges are named "Iteration#N", not "ProfilerStep#N"
  int after_steps_us = 0;        // > 0: one more gemm, of this length, at 4100 µs: in no step
  std::string device_name;       // non-empty: deviceProperties names device 0's GPU model
  int first_step = 1;            // the steps are ProfilerStep#first_step .. #first_step + 2
  bool skipped_records = false;  // two more kernels the reader skips: dur -5, and no ts
  int extra_collective_us = 0;   // > 0: in step 2 another all-reduce (200 µs) starts there first
};

// One rank as Kineto JSON naming `rank` and `world_size` in its distributedInfo.
std::string KinetoRank(int rank, int world_size, const PlantedRank& planted);

// Ranks 0..3 of a Kineto job; rank 2 is the straggler and rank 3 arrives late. The file names
// run against the rank order, so the rank must come from distributedInfo.
void WriteKinetoJob(const std::filesystem::path& dir, int world_size = 4);

// The same job with uneven steps: rank 0 runs a 300 µs gemm after its last step (in no step),
// and rank 1's trace has no step ranges (its ranges are named "Iteration#N"), so its one step is
// the whole trace.
void WriteUnevenStepsJob(const std::filesystem::path& dir);

}  // namespace gpuroof::testing
