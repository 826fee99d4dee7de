#include "gpuroof/model/trace.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace gpuroof {

std::string_view MemoryKindName(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kPageable:
      return "Pageable";
    case MemoryKind::kPinned:
      return "Pinned";
    case MemoryKind::kDevice:
      return "Device";
    case MemoryKind::kArray:
      return "Array";
    case MemoryKind::kManaged:
      return "Managed";
    case MemoryKind::kDeviceStatic:
      return "Device Static";
    case MemoryKind::kManagedStatic:
      return "Managed Static";
    case MemoryKind::kUnknown:
      return "Unknown";
  }
  return "Unknown";
}

void ActivityBlock::Reserve(size_t n) {
  start_ns.reserve(n);
  end_ns.reserve(n);
  bytes.reserve(n);
  signature.reserve(n);
  stream.reserve(n);
  correlation.reserve(n);
  engine.reserve(n);
}

void ActivityBlock::ShrinkToFit() {
  start_ns.shrink_to_fit();
  end_ns.shrink_to_fit();
  bytes.shrink_to_fit();
  signature.shrink_to_fit();
  stream.shrink_to_fit();
  correlation.shrink_to_fit();
  engine.shrink_to_fit();
}

bool ActivityBlock::IsSortedByStart() const {
  return std::is_sorted(start_ns.begin(), start_ns.end());
}

namespace {
template <typename T>
void ApplyPermutation(std::vector<T>& column, const std::vector<uint32_t>& order) {
  std::vector<T> sorted(column.size());
  for (size_t i = 0; i < order.size(); ++i)
    sorted[i] = column[order[i]];
  column.swap(sorted);
}
}  // namespace

void ActivityBlock::SortByStart() {
  if (IsSortedByStart()) return;
  std::vector<uint32_t> order(size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [this](uint32_t a, uint32_t b) { return start_ns[a] < start_ns[b]; });
  ApplyPermutation(start_ns, order);
  ApplyPermutation(end_ns, order);
  ApplyPermutation(bytes, order);
  ApplyPermutation(signature, order);
  ApplyPermutation(stream, order);
  ApplyPermutation(correlation, order);
  ApplyPermutation(engine, order);
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

}  // namespace gpuroof
