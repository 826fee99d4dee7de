// Writes small Kineto (PyTorch profiler) JSON traces from readable calls, for tests: each call
// is one event, times are microseconds written as the text Kineto would write ("12", "3.250").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpuroof::testing {

class KinetoJsonBuilder {
 public:
  // GPU work on `device` (pid) and `stream` (tid); args carry device, stream and correlation.
  KinetoJsonBuilder& Kernel(const std::string& name, const std::string& ts_us,
                            const std::string& dur_us, int device = 0, int stream = 7,
                            int64_t correlation = 0);
  KinetoJsonBuilder& Memcpy(const std::string& name, const std::string& ts_us,
                            const std::string& dur_us, uint64_t bytes, int device = 0,
                            int stream = 7, int64_t correlation = 0);
  KinetoJsonBuilder& Memset(const std::string& name, const std::string& ts_us,
                            const std::string& dur_us, uint64_t bytes, int device = 0,
                            int stream = 7, int64_t correlation = 0);
  // A CPU-thread range (category user_annotation), e.g. "ProfilerStep#3", with its
  // "External id": `external_id`, or when 0 the next of 1, 2, 3... (in Annotation() call order).
  KinetoJsonBuilder& Annotation(const std::string& name, const std::string& ts_us,
                                const std::string& dur_us, int64_t pid = 100, int64_t tid = 100,
                                int64_t external_id = 0);
  // The same range projected onto a GPU stream row (gpu_user_annotation), carrying the CPU
  // copy's External id; 0 writes none (as old writers did).
  KinetoJsonBuilder& GpuAnnotation(const std::string& name, const std::string& ts_us,
                                   const std::string& dur_us, int device = 0, int stream = 7,
                                   int64_t external_id = 0);
  // A cuda_runtime call (e.g. cudaLaunchKernel) on a CPU thread.
  KinetoJsonBuilder& Runtime(const std::string& name, const std::string& ts_us,
                             const std::string& dur_us, int64_t correlation, int64_t pid = 100,
                             int64_t tid = 100);
  // A CPU operator (cpu_op), which gpuroof does not keep.
  KinetoJsonBuilder& CpuOp(const std::string& name, const std::string& ts_us,
                           const std::string& dur_us, int64_t pid = 100, int64_t tid = 100);
  // A kernel (no launch correlation) with its "est. achieved occupancy %" argument.
  KinetoJsonBuilder& KernelWithOccupancy(const std::string& name, const std::string& ts_us,
                                         const std::string& dur_us, int occupancy_pct,
                                         int device = 0, int stream = 7);
  // Any event, as JSON object text.
  KinetoJsonBuilder& Raw(const std::string& event_json);
  // A top-level key with its JSON value, written before (or after) traceEvents.
  KinetoJsonBuilder& TopLevel(const std::string& key, const std::string& value_json,
                              bool after_events = false);

  // {"schemaVersion": 1, <top-level keys>, "traceEvents": [...], <keys after>}
  std::string ObjectJson() const;
  // [ ...events... ] (the bare-array form of the Trace Event Format)
  std::string ArrayJson() const;

 private:
  KinetoJsonBuilder& GpuOp(const std::string& category, const std::string& name,
                           const std::string& ts_us, const std::string& dur_us, int device,
                           int stream, int64_t correlation, const std::string& extra_args);
  std::vector<std::string> events_;
  std::vector<std::string> before_;
  std::vector<std::string> after_;
  int64_t annotations_ = 0;  // External ids handed out by Annotation()
};

// JSON string literal of `text` (quotes, backslashes and control characters escaped).
std::string JsonQuote(const std::string& text);

}  // namespace gpuroof::testing
