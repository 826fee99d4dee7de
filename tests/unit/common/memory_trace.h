#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof::testing {

// One op for an in-memory trace: enough to test analyses without any file.
struct Op {
  Engine engine = Engine::kKernel;
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  int32_t device = 0;
  uint32_t stream = 7;
  uint64_t bytes = 0;
  std::string name = "k";  // kernels (compute and collective) only
};

// Builds a Trace whose ops are split over `blocks` blocks (round robin, each then sorted), so
// tests also exercise the multi-block ordered scan.
Trace MakeTrace(const std::vector<Op>& ops, int blocks = 1);

// Adds an NVTX range to `trace` (kept sorted by start), on a thread of AddLaunch's process.
void AddRange(Trace& trace, const std::string& name, int64_t start_ns, int64_t end_ns,
              uint64_t thread_id = 0);

// Adds the API call that launched op number `op_index` of MakeTrace's list (correlation
// op_index + 1, process 4242), made on `thread_id` at `start_ns` (kept sorted).
void AddLaunch(Trace& trace, size_t op_index, uint64_t thread_id, int64_t start_ns);

}  // namespace gpuroof::testing
