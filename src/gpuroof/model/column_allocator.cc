#include "gpuroof/model/column_allocator.h"

#include <sys/mman.h>

namespace gpuroof {

namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

void* AllocateColumn(size_t bytes) {
  if (bytes < kHugePage) {
    void* pointer = std::malloc(bytes == 0 ? 1 : bytes);
    if (pointer == nullptr) throw std::bad_alloc();
    return pointer;
  }
  size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* pointer = std::aligned_alloc(kHugePage, rounded);
  if (pointer == nullptr) throw std::bad_alloc();
  // Advice only: where transparent huge pages are off this changes nothing.
  madvise(pointer, rounded, MADV_HUGEPAGE);
  return pointer;
}

void FreeColumn(void* pointer) noexcept {
  std::free(pointer);
}

}  // namespace gpuroof
