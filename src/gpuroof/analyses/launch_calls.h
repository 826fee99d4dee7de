// Each op's launching call, joined once for the whole trace: `launches` and the findings rules
// ask for it per op, and a binary search per op and rule cost findings a third of its time on
// ten million ops (docs/performance.md, "findings").
#pragma once

#include <cstdint>
#include <vector>

#include "gpuroof/model/trace.h"

namespace gpuroof {

class LaunchCalls {
 public:
  // Joins every op of `trace` to trace.api_calls by (stream's process, correlation id). The
  // trace must outlive this object and keep its blocks and calls unchanged.
  explicit LaunchCalls(const Trace& trace);
  explicit LaunchCalls(const Trace&& trace) = delete;  // it keeps a reference to the trace

  // The launching call of op `row` of trace.blocks[block]; nullptr when the op has no
  // correlation id or the trace lacks the call.
  const ApiCall* Of(size_t block, size_t row) const;
  const ApiCall* Of(const ActivityBlock& block, size_t row) const;

  // How many ops of the whole trace (any engine, any device) `call` launched. More than one: a
  // CUDA graph launch, whose nodes all carry the call's correlation id.
  uint32_t OpsLaunchedBy(const ApiCall& call) const;

 private:
  static constexpr uint32_t kNoCall = UINT32_MAX;
  const Trace& trace_;
  // [block][row]: index in api_calls or kNoCall; empty when the trace has no calls
  std::vector<std::vector<uint32_t>> call_of_op_;
  std::vector<uint32_t> ops_of_call_;  // [index in api_calls]
};

}  // namespace gpuroof
