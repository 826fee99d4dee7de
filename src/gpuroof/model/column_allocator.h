#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

namespace gpuroof {

// Returns memory for `bytes`; large requests are 2 MiB-aligned and marked for transparent huge
// pages. Defined in column_allocator.cc.
void* AllocateColumn(size_t bytes);
void FreeColumn(void* pointer) noexcept;

// Allocator of the trace's activity columns. A 10-million-op trace fills ~330 MB of columns
// once; with 4 KiB pages that is ~80 000 first-touch page faults, which on virtual machines cost
// more than reading the rows from SQLite. Huge pages cut them 512-fold (measured:
// docs/performance.md). Small columns use plain malloc, so tiny traces waste nothing.
template <typename T>
struct ColumnAllocator {
  using value_type = T;
  ColumnAllocator() = default;
  template <typename U>
  explicit ColumnAllocator(const ColumnAllocator<U>& /*other*/) noexcept {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(AllocateColumn(n * sizeof(T)));
  }
  void deallocate(T* pointer, size_t /*n*/) noexcept { FreeColumn(pointer); }

  template <typename U>
  bool operator==(const ColumnAllocator<U>& /*other*/) const noexcept {
    return true;
  }
};

}  // namespace gpuroof
