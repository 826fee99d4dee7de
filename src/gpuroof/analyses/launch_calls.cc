#include "gpuroof/analyses/launch_calls.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace gpuroof {

namespace {

using CallKey = std::pair<uint64_t, uint32_t>;  // (process, correlation): api_calls' order

CallKey KeyOf(const ApiCall& call) {
  return {call.process_id, call.correlation};
}

// The first call at or after `key`, searched from `hint` (the previous op's answer): a block's
// ops run in start order and their correlation ids mostly rise with it, so galloping forward
// from the last answer touches a few calls where a binary search over all of them would touch
// twenty-odd, most of them cache misses. Any order of keys still gets the right answer.
size_t LowerBound(const std::vector<ApiCall>& calls, const CallKey& key, size_t hint) {
  auto before = [](const ApiCall& call, const CallKey& k) { return KeyOf(call) < k; };
  const size_t n = calls.size();
  if (hint >= n || !before(calls[hint], key)) {
    const auto end = calls.begin() + static_cast<std::ptrdiff_t>(std::min(hint, n));
    return static_cast<size_t>(std::lower_bound(calls.begin(), end, key, before) - calls.begin());
  }
  size_t low = hint + 1;  // calls[hint] < key
  size_t step = 1;
  while (low + step <= n && before(calls[low + step - 1], key)) {
    low += step;
    step *= 2;
  }
  const auto first = calls.begin() + static_cast<std::ptrdiff_t>(low);
  const auto last = calls.begin() + static_cast<std::ptrdiff_t>(std::min(low + step, n));
  return static_cast<size_t>(std::lower_bound(first, last, key, before) - calls.begin());
}

}  // namespace

LaunchCalls::LaunchCalls(const Trace& trace)
    : trace_(trace), ops_of_call_(trace.api_calls.size(), 0) {
  const std::vector<ApiCall>& calls = trace.api_calls;
  if (calls.empty()) return;  // no op has a call: nothing to hold (Of answers nullptr)
  call_of_op_.resize(trace.blocks.size());
  for (size_t b = 0; b < trace.blocks.size(); ++b) {
    const ActivityBlock& block = trace.blocks[b];
    std::vector<uint32_t>& call_of = call_of_op_[b];
    call_of.assign(block.size(), kNoCall);
    if (block.correlation.size() < block.size()) continue;
    size_t hint = 0;
    for (size_t i = 0; i < block.size(); ++i) {
      if (block.correlation[i] == 0) continue;
      const CallKey key{trace.streams[block.stream[i]].process_id, block.correlation[i]};
      const size_t at = LowerBound(calls, key, hint);
      hint = at;
      if (at == calls.size() || KeyOf(calls[at]) != key) continue;
      call_of[i] = static_cast<uint32_t>(at);
      ++ops_of_call_[at];
    }
  }
}

const ApiCall* LaunchCalls::Of(size_t block, size_t row) const {
  if (call_of_op_.empty()) return nullptr;
  const uint32_t at = call_of_op_[block][row];
  return at == kNoCall ? nullptr : &trace_.api_calls[at];
}

const ApiCall* LaunchCalls::Of(const ActivityBlock& block, size_t row) const {
  return Of(static_cast<size_t>(&block - trace_.blocks.data()), row);
}

uint32_t LaunchCalls::OpsLaunchedBy(const ApiCall& call) const {
  return ops_of_call_[static_cast<size_t>(&call - trace_.api_calls.data())];
}

}  // namespace gpuroof
