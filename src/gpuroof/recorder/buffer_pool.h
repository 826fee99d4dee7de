// The activity buffers handed to CUPTI. CUPTI asks for a buffer on the application's threads, so
// handing one out must be cheap: buffers are allocated, zeroed and pre-faulted ahead of time
// (at start and when the writer thread returns them), and a request only pops a pointer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "gpuroof/model/non_copyable.h"

namespace gpuroof::recorder {

class BufferPool : NonCopyable {
 public:
  // CUPTI requires 8-byte aligned buffers; page alignment also keeps them off shared lines.
  static constexpr size_t kAlignment = 4096;

  BufferPool(size_t buffer_bytes, size_t prefill);
  ~BufferPool();

  // A zeroed buffer of BufferBytes(); allocates one (and counts it) when the pool is empty.
  // Returns nullptr only when memory is exhausted.
  uint8_t* Acquire();
  // Zeroes `buffer` (off the application's threads) and keeps it for the next Acquire().
  void Release(uint8_t* buffer);

  size_t BufferBytes() const { return buffer_bytes_; }
  // Buffers allocated because the pool was empty when CUPTI asked: each one cost the application
  // thread an allocation and page faults.
  int64_t FallbackAllocations() const { return fallbacks_.load(std::memory_order_relaxed); }
  int64_t Allocated() const { return allocated_.load(std::memory_order_relaxed); }

 private:
  uint8_t* Allocate();

  const size_t buffer_bytes_;
  std::mutex mutex_;
  std::vector<uint8_t*> free_;
  std::vector<uint8_t*> all_;  // every buffer ever allocated, freed by the destructor
  std::atomic<int64_t> fallbacks_{0};
  std::atomic<int64_t> allocated_{0};
};

}  // namespace gpuroof::recorder
