#include "gpuroof/model/trace.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

namespace gpuroof {

std::string_view MemoryKindName(MemoryKind kind) {
  return NameOf(kMemoryKindNames, kind, "Unknown");
}

void ActivityBlock::Reserve(size_t n, bool with_correlation) {
  start_ns.reserve(n);
  end_ns.reserve(n);
  bytes.reserve(n);
  signature.reserve(n);
  stream.reserve(n);
  if (with_correlation) correlation.reserve(n);
  engine.reserve(n);
}

void ActivityBlock::ShrinkToFit() {
  ForEachColumn([](auto& column) { column.shrink_to_fit(); });
}

bool ActivityBlock::IsSortedByStart() const {
  return std::is_sorted(start_ns.begin(), start_ns.end());
}

namespace {

// One op's fields, moved as a unit while sorting the columns together.
struct OpRecord {
  int64_t start_ns;
  int64_t end_ns;
  uint64_t bytes;
  uint32_t signature;
  uint32_t stream;
  uint32_t correlation;
  Engine engine;
};

OpRecord Load(const ActivityBlock& b, size_t i) {
  uint32_t correlation = b.correlation.empty() ? 0u : b.correlation[i];
  return {b.start_ns[i], b.end_ns[i], b.bytes[i], b.signature[i],
          b.stream[i],   correlation, b.engine[i]};
}

void Store(ActivityBlock& b, size_t i, const OpRecord& r) {
  b.start_ns[i] = r.start_ns;
  b.end_ns[i] = r.end_ns;
  b.bytes[i] = r.bytes;
  b.signature[i] = r.signature;
  b.stream[i] = r.stream;
  if (!b.correlation.empty()) b.correlation[i] = r.correlation;
  b.engine[i] = r.engine;
}

// Insertion sort in place, giving up once it has moved more than `budget` ops. Traces come
// nearly sorted (a copy written after a later-starting one on another stream), so this usually
// finishes in one pass with no extra memory. Returns false when the budget ran out; the block is
// then a partly sorted permutation of itself.
bool InsertionSortWithin(ActivityBlock& b, size_t budget) {
  size_t moves = 0;
  for (size_t i = 1; i < b.size(); ++i) {
    if (b.start_ns[i] >= b.start_ns[i - 1]) continue;
    OpRecord op = Load(b, i);
    size_t j = i;
    while (j > 0 && b.start_ns[j - 1] > op.start_ns) {
      b.MoveOp(j - 1, j);
      --j;
      if (++moves > budget) {
        Store(b, j, op);
        return false;
      }
    }
    Store(b, j, op);
  }
  return true;
}

// Stable sort through a permutation applied in place cycle by cycle: 4 extra bytes per op.
void PermutationSort(ActivityBlock& b) {
  std::vector<uint32_t> order(b.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&b](uint32_t x, uint32_t y) { return b.start_ns[x] < b.start_ns[y]; });
  // Position i must receive the op now at order[i]; a finished slot is marked order[i] == i.
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] == i) continue;
    OpRecord first = Load(b, i);
    size_t hole = i;
    while (order[hole] != i) {
      size_t next = order[hole];
      b.MoveOp(next, hole);
      order[hole] = static_cast<uint32_t>(hole);
      hole = next;
    }
    Store(b, hole, first);
    order[hole] = static_cast<uint32_t>(hole);
  }
}

}  // namespace

void ActivityBlock::SortByStart() {
  if (IsSortedByStart()) return;
  if (!InsertionSortWithin(*this, 16 * size() + 1024)) PermutationSort(*this);
}

size_t Trace::activity_count() const {
  size_t total = 0;
  for (const ActivityBlock& block : blocks)
    total += block.size();
  return total;
}

std::vector<int32_t> Trace::ActiveDeviceIds() const {
  std::vector<bool> stream_used(streams.size(), false);
  for (const ActivityBlock& block : blocks) {
    for (uint32_t s : block.stream)
      stream_used[s] = true;
  }
  std::set<int32_t> ids;
  for (size_t i = 0; i < streams.size(); ++i) {
    if (stream_used[i]) ids.insert(streams[i].device_id);
  }
  return {ids.begin(), ids.end()};
}

std::string_view Trace::DeviceName(int32_t device_id) const {
  for (const DeviceInfo& device : devices) {
    if (device.id == device_id) return device.name;
  }
  return {};
}

void ClassifyCollectiveKernels(Trace& trace) {
  std::vector<bool> collective(trace.signatures.size(), false);
  bool any = false;
  for (size_t s = 0; s < trace.signatures.size(); ++s) {
    OpSignature& signature = trace.signatures[s];
    if (signature.engine != Engine::kKernel) continue;
    if (IsCollectiveKernelName(trace.strings.Get(signature.name)) ||
        (signature.detail_name != 0 &&
         IsCollectiveKernelName(trace.strings.Get(signature.detail_name)))) {
      signature.engine = Engine::kComm;
      collective[s] = true;
      any = true;
    }
  }
  if (!any) return;
  for (ActivityBlock& block : trace.blocks) {
    for (size_t i = 0; i < block.size(); ++i) {
      if (collective[block.signature[i]]) block.engine[i] = Engine::kComm;
    }
  }
}

int64_t Trace::FirstGpuOpNs() const {
  // Blocks are sorted by start: their first elements are their earliest.
  std::optional<int64_t> first;
  for (const ActivityBlock& block : blocks) {
    if (block.size() > 0) first = std::min(first.value_or(block.start_ns[0]), block.start_ns[0]);
  }
  return first.value_or(0);
}

std::vector<LaunchEnd> LaunchEndsOf(const std::vector<ApiCall>& calls) {
  std::vector<LaunchEnd> ends;
  ends.reserve(static_cast<size_t>(std::count_if(
      calls.begin(), calls.end(), [](const ApiCall& call) { return call.correlation != 0; })));
  for (const ApiCall& call : calls) {
    if (call.correlation != 0) ends.push_back({call.end_ns, call.process_id, call.correlation});
  }
  return ends;
}

}  // namespace gpuroof
