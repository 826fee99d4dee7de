// Runs independent jobs on a few threads: the nsys reader's table chunks, the regression gate's
// metrics. Results must not depend on the order the jobs run in. No I/O.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace gpuroof {

// Calls job(0) .. job(count - 1), each once, on up to `threads` threads (0: one per hardware
// thread, at most 8), this one included; jobs are taken in index order as threads come free, so
// put the longest first. Rethrows the exception of the lowest-numbered job that threw, after all
// have finished.
template <typename Job>
void ParallelFor(size_t count, Job&& job, unsigned threads = 0) {
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  auto worker = [&]() {
    for (size_t i = next++; i < count; i = next++) {
      try {
        job(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (size_t i = 1; i < std::min<size_t>(threads, count); ++i)
      pool.emplace_back(worker);
  } catch (const std::system_error&) {
    // No more threads to be had: the ones started, and this one, share the jobs.
  }
  worker();
  for (std::thread& t : pool)
    t.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace gpuroof
