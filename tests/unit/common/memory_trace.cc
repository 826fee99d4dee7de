#include "common/memory_trace.h"

#include <algorithm>

namespace gpuroof::testing {

Trace MakeTrace(const std::vector<Op>& ops, int blocks) {
  Trace trace;
  trace.source = "memory.trace";
  trace.format = "memory";
  trace.blocks.resize(static_cast<size_t>(blocks));
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    StreamInfo stream{4242, op.device, 1, op.stream};
    auto found = std::find(trace.streams.begin(), trace.streams.end(), stream);
    auto stream_index = static_cast<uint32_t>(found - trace.streams.begin());
    if (found == trace.streams.end()) trace.streams.push_back(stream);
    OpSignature signature;
    signature.engine = op.engine;
    if (IsKernelEngine(op.engine)) signature.name = trace.strings.Intern(op.name);
    auto sig = std::find(trace.signatures.begin(), trace.signatures.end(), signature);
    auto signature_index = static_cast<uint32_t>(sig - trace.signatures.begin());
    if (sig == trace.signatures.end()) trace.signatures.push_back(signature);
    ActivityBlock& block = trace.blocks[i % static_cast<size_t>(blocks)];
    block.start_ns.push_back(op.start_ns);
    block.end_ns.push_back(op.end_ns);
    block.bytes.push_back(op.bytes);
    block.signature.push_back(signature_index);
    block.stream.push_back(stream_index);
    block.correlation.push_back(static_cast<uint32_t>(i + 1));
    block.engine.push_back(op.engine);
  }
  for (ActivityBlock& block : trace.blocks)
    block.SortByStart();
  std::erase_if(trace.blocks, [](const ActivityBlock& block) { return block.size() == 0; });
  int32_t max_device = -1;
  for (const StreamInfo& s : trace.streams)
    max_device = std::max(max_device, s.device_id);
  for (int32_t d = 0; d <= max_device; ++d)
    trace.devices.push_back({d, "Test GPU"});
  return trace;
}

void AddRange(Trace& trace, const std::string& name, int64_t start_ns, int64_t end_ns,
              uint64_t thread_id) {
  NvtxRange range;
  range.thread_id = thread_id;
  range.process_id = 4242;  // AddLaunch's process
  range.start_ns = start_ns;
  range.end_ns = end_ns;
  range.name = trace.strings.Intern(name);
  trace.nvtx_ranges.push_back(range);
  std::stable_sort(trace.nvtx_ranges.begin(), trace.nvtx_ranges.end(),
                   [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
}

void AddLaunch(Trace& trace, size_t op_index, uint64_t thread_id, int64_t start_ns) {
  ApiCall call;
  call.start_ns = start_ns;
  call.end_ns = start_ns + 5;
  call.process_id = 4242;
  call.thread_id = thread_id;
  call.correlation = static_cast<uint32_t>(op_index + 1);
  trace.api_calls.push_back(call);
  std::sort(trace.api_calls.begin(), trace.api_calls.end(),
            [](const ApiCall& a, const ApiCall& b) { return a.correlation < b.correlation; });
}

}  // namespace gpuroof::testing
