#include "gpuroof/analyses/launch_calls.h"

#include <random>

#include <gtest/gtest.h>

namespace gpuroof {
namespace {

// The first call with the op's (process, correlation), by a plain scan: the reference.
const ApiCall* ScanForCall(const Trace& trace, const ActivityBlock& block, size_t row) {
  if (block.correlation.empty() || block.correlation[row] == 0) return nullptr;
  const uint64_t process = trace.streams[block.stream[row]].process_id;
  for (const ApiCall& call : trace.api_calls) {
    if (call.process_id == process && call.correlation == block.correlation[row]) return &call;
  }
  return nullptr;
}

void AddOp(ActivityBlock& block, int64_t start_ns, uint32_t stream, uint32_t correlation) {
  block.start_ns.push_back(start_ns);
  block.end_ns.push_back(start_ns + 5);
  block.bytes.push_back(0);
  block.signature.push_back(0);
  block.stream.push_back(stream);
  block.engine.push_back(Engine::kKernel);
  block.correlation.push_back(correlation);
}

// Two processes, ops whose correlation ids mostly rise but jump back and forth, ids without a
// call, ops without an id, and calls that launched several ops (graph launches): every op gets
// the call a plain scan finds, and every call the number of ops that name it.
TEST(LaunchCalls, EveryOpFindsTheCallAScanFinds) {
  Trace trace;
  trace.streams = {StreamInfo{100, 0, 1, 7}, StreamInfo{200, 0, 1, 8}};
  trace.signatures.resize(1);
  for (uint64_t process : {uint64_t{100}, uint64_t{200}}) {
    for (uint32_t correlation = 1; correlation <= 400; ++correlation) {
      if (correlation % 7 == 0) continue;  // these ids have no call in the trace
      ApiCall call;
      call.process_id = process;
      call.correlation = correlation;
      call.start_ns = correlation;
      call.end_ns = correlation + 1;
      trace.api_calls.push_back(call);
    }
  }
  std::mt19937 random(7);
  for (int b = 0; b < 3; ++b) {
    ActivityBlock block;
    for (int i = 0; i < 600; ++i) {
      const uint32_t stream = static_cast<uint32_t>(random() % 2);
      uint32_t correlation = static_cast<uint32_t>(i * 400 / 600 + 1);
      switch (random() % 6) {
        case 0:
          correlation = static_cast<uint32_t>(random() % 420);  // anywhere, 0 and past the end too
          break;
        case 1:
          correlation = 0;
          break;
        default:
          break;  // rising, several ops per id: a graph launch's nodes
      }
      AddOp(block, i, stream, correlation);
    }
    trace.blocks.push_back(std::move(block));
  }
  ActivityBlock without_ids;  // a reader that kept no correlation ids
  without_ids.start_ns.push_back(0);
  without_ids.end_ns.push_back(1);
  without_ids.bytes.push_back(0);
  without_ids.signature.push_back(0);
  without_ids.stream.push_back(0);
  without_ids.engine.push_back(Engine::kKernel);
  trace.blocks.push_back(std::move(without_ids));

  const LaunchCalls calls(trace);
  std::vector<uint32_t> expected_ops(trace.api_calls.size(), 0);
  size_t found = 0;
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const ActivityBlock& block = trace.blocks[b];
    for (size_t i = 0; i < block.size(); ++i) {
      const ApiCall* expected = ScanForCall(trace, block, i);
      ASSERT_EQ(calls.Of(b, i), expected) << "block " << b << " op " << i;
      ASSERT_EQ(calls.Of(block, i), expected);
      if (expected != nullptr) {
        ++found;
        ++expected_ops[static_cast<size_t>(expected - trace.api_calls.data())];
      }
    }
  }
  EXPECT_GT(found, 1000u);  // the test does exercise the join
  bool any_shared = false;
  for (size_t c = 0; c < trace.api_calls.size(); ++c) {
    EXPECT_EQ(calls.OpsLaunchedBy(trace.api_calls[c]), expected_ops[c]) << "call " << c;
    any_shared = any_shared || expected_ops[c] > 1;
  }
  EXPECT_TRUE(any_shared);
}

TEST(LaunchCalls, ATraceWithoutCallsJoinsNothing) {
  Trace trace;
  trace.streams = {StreamInfo{100, 0, 1, 7}};
  ActivityBlock block;
  AddOp(block, 0, 0, 5);
  trace.blocks.push_back(std::move(block));
  const LaunchCalls calls(trace);
  EXPECT_EQ(calls.Of(0, 0), nullptr);
}

}  // namespace
}  // namespace gpuroof
