#include "gpuroof/recorder/buffer_pool.h"

#include <cstdlib>
#include <cstring>

namespace gpuroof::recorder {

BufferPool::BufferPool(size_t buffer_bytes, size_t prefill)
    : buffer_bytes_((buffer_bytes + kAlignment - 1) / kAlignment * kAlignment) {
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < prefill; ++i) {
    if (uint8_t* buffer = Allocate()) free_.push_back(buffer);
  }
}

BufferPool::~BufferPool() {
  for (uint8_t* buffer : all_)
    std::free(buffer);
}

uint8_t* BufferPool::Allocate() {
  auto* buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, buffer_bytes_));
  if (buffer == nullptr) return nullptr;
  std::memset(buffer, 0, buffer_bytes_);  // zeroed and pre-faulted
  all_.push_back(buffer);
  allocated_.fetch_add(1, std::memory_order_relaxed);
  return buffer;
}

uint8_t* BufferPool::Acquire() {
  std::lock_guard lock(mutex_);
  if (!free_.empty()) {
    uint8_t* buffer = free_.back();
    free_.pop_back();
    return buffer;
  }
  fallbacks_.fetch_add(1, std::memory_order_relaxed);
  return Allocate();
}

void BufferPool::Release(uint8_t* buffer) {
  if (buffer == nullptr) return;
  std::memset(buffer, 0, buffer_bytes_);
  std::lock_guard lock(mutex_);
  free_.push_back(buffer);
}

}  // namespace gpuroof::recorder
