#include "gpuroof/recorder/enum_conversion.h"

namespace gpuroof::recorder {
namespace {

constexpr int kCuptiMemoryKindUnknown = 0;
constexpr int kCuptiMemoryKindLast = 7;  // CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC
constexpr int kCopyKindLast = 10;        // CUPTI_ACTIVITY_MEMCPY_KIND_PTOP
constexpr int64_t kVmId = int64_t{1} << 48;
constexpr uint32_t k24Bits = (uint32_t{1} << 24) - 1;

}  // namespace

int NsysMemoryKind(int cupti_memory_kind) {
  if (cupti_memory_kind <= kCuptiMemoryKindUnknown || cupti_memory_kind > kCuptiMemoryKindLast) {
    return kNsysMemoryKindUnknown;
  }
  return cupti_memory_kind - 1;
}

int NsysCopyKind(int cupti_copy_kind) {
  return cupti_copy_kind >= 0 && cupti_copy_kind <= kCopyKindLast ? cupti_copy_kind : 0;
}

int64_t NsysGlobalPid(uint32_t pid) {
  return kVmId | (static_cast<int64_t>(pid & k24Bits) << 24);
}

int64_t NsysGlobalTid(uint32_t pid, uint32_t tid) {
  return NsysGlobalPid(pid) | static_cast<int64_t>(tid & k24Bits);
}

}  // namespace gpuroof::recorder
