// The CUDA injection entry points of libgpuroof_recorder.so. The driver loads the library named
// by CUDA_INJECTION64_PATH during cuInit and calls InitializeInjection; NVTX loads the library
// named by NVTX_INJECTION64_PATH on the first NVTX call and calls InitializeInjectionNvtx2.
// Either starts the recorder once. Rules this file keeps (docs/formats.md, "gpuroof record files"):
// no CUDA calls here (we are inside cuInit), no exceptions across the C entry points, CUPTI
// errors leave the recorder inert instead of failing the program, and the application's threads
// only pop a pooled buffer or push a completed one; decoding and SQLite run on our own thread.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <cupti.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "gpuroof/recorder/buffer_pool.h"
#include "gpuroof/recorder/cupti_records.h"
#include "gpuroof/recorder/record_sink.h"
#include "gpuroof/recorder/recorder_env.h"

// Exported by libcupti.so.13 but not declared in its headers (CUPTI guide §2.5.3.1).
extern "C" CUptiResult CUPTIAPI cuptiNvtxInitialize2(void* get_export_table);

namespace gpuroof::recorder {
namespace {

constexpr size_t kBufferBytes = size_t{8} << 20;  // CUPTI suggests 1-10 MB
constexpr size_t kPrefilledBuffers = 4;
// CONCURRENT_KERNEL, not KERNEL, which serialises kernels. Without these three there is no trace
// worth writing; the optional kinds (DEVICE: TARGET_INFO_GPU, MEMCPY2: peer copies, MARKER: NVTX)
// may fail to enable (e.g. CUPTI_ERROR_NOT_COMPATIBLE): the status says which, and we go on.
constexpr CUpti_ActivityKind kRequiredKinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
struct OptionalKind {
  CUpti_ActivityKind kind;
  const char* name;
};
constexpr OptionalKind kOptionalKinds[] = {{CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE"},
                                           {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2"}};

struct CompletedBuffer {
  uint8_t* data;
  size_t valid_bytes;
};

// Never destroyed: the atexit handler and CUPTI's threads may run after static destructors.
struct Recorder {
  RecorderConfig config;
  pid_t pid = 0;
  CUpti_SubscriberHandle subscriber = nullptr;
  BufferPool* pool = nullptr;
  RecordSink* sink = nullptr;
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<CompletedBuffer> queue;
  bool decoding = false;            // the writer holds a buffer taken off `queue`
  std::condition_variable drained;  // signalled when `queue` is empty and nothing is decoding
  bool stopping = false;
  std::thread writer;
  std::atomic<int64_t> dropped{0};
  std::atomic<int64_t> failed_buffer_requests{0};
  std::atomic<bool> stopped{false};
  std::string write_error;  // set by the writer thread; read after join
  int64_t undecodable_buffers = 0;
  std::vector<std::string> unrecorded;  // "KIND: reason" per optional kind CUPTI refused
};

Recorder* g_recorder = nullptr;
std::once_flag g_start_once;

void Log(const std::string& message) {
  std::fprintf(stderr, "gpuroof-recorder[%d]: %s\n", static_cast<int>(getpid()), message.c_str());
}

std::string ResultText(CUptiResult result) {
  const char* text = nullptr;
  if (cuptiGetResultString(result, &text) != CUPTI_SUCCESS || text == nullptr) {
    return "CUPTI error " + std::to_string(static_cast<int>(result));
  }
  return text;
}

void CUPTIAPI BufferRequested(uint8_t** buffer, size_t* size, size_t* max_records) {
  Recorder& r = *g_recorder;
  *buffer = r.pool->Acquire();
  *size = *buffer != nullptr ? r.pool->BufferBytes() : 0;
  *max_records = 0;  // as many as fit
  if (*buffer == nullptr) r.failed_buffer_requests.fetch_add(1, std::memory_order_relaxed);
}

void CUPTIAPI BufferCompleted(CUcontext context, uint32_t stream, uint8_t* buffer, size_t,
                              size_t valid_bytes) {
  Recorder& r = *g_recorder;
  size_t dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) {
    r.dropped.fetch_add(static_cast<int64_t>(dropped), std::memory_order_relaxed);
  }
  {
    std::lock_guard lock(r.mutex);
    r.queue.push_back({buffer, valid_bytes});
  }
  r.wake.notify_one();
}

void WriterLoop(Recorder& r) {
  while (true) {
    CompletedBuffer buffer{};
    {
      std::unique_lock lock(r.mutex);
      r.wake.wait(lock, [&] { return r.stopping || !r.queue.empty(); });
      if (r.queue.empty()) return;  // stopping and drained
      buffer = r.queue.front();
      r.queue.pop_front();
      r.decoding = true;
    }
    if (r.write_error.empty() && buffer.valid_bytes > 0) {
      try {
        if (DecodeActivityBuffer(buffer.data, buffer.valid_bytes, *r.sink).buffer_error) {
          ++r.undecodable_buffers;
        }
      } catch (const std::exception& e) {
        r.write_error = e.what();  // keep draining so CUPTI gets its buffers back
      }
    }
    r.pool->Release(buffer.data);
    {
      std::lock_guard lock(r.mutex);
      r.decoding = false;
    }
    r.drained.notify_all();
  }
}

// Kernel records point at names owned by their module: after a forced flush, wait until the
// writer has decoded every buffer, before the program may tear the modules down.
void WaitUntilDrained(Recorder& r) {
  std::unique_lock lock(r.mutex);
  r.drained.wait(lock, [&] { return r.stopping || (r.queue.empty() && !r.decoding); });
}

// The writer must not take the program's signals (it is created inside cuInit, on whatever
// thread called it, and would inherit that thread's mask).
std::thread StartWriter(Recorder& r) {
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  try {
    std::thread writer(WriterLoop, std::ref(r));
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return writer;
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
}

void WriteStatus(const Recorder& r, const SinkStats* stats, const std::string& error,
                 int64_t finish_ns = 0) {
  RecorderStatus status;
  status.error = error;
  if (stats != nullptr) {
    status.records = stats->RecordsWritten();
    status.dropped = stats->dropped;
    status.failed_buffer_requests = stats->failed_buffer_requests;
    status.zero_timestamps = stats->zero_timestamps;
    status.unpaired_markers = stats->unpaired_markers;
    status.finish_ns = finish_ns;
    status.unrecorded = r.unrecorded;
  }
  WriteRecorderStatus(StatusPath(r.config.output), status);
}

// At exit (atexit runs it for exit() and a return from main). cudaDeviceReset only flushes.
void Stop() {
  Recorder* r = g_recorder;
  // A forked child inherits the handler but not the writer thread.
  if (r == nullptr || r->pid != getpid() || r->stopped.exchange(true)) return;
  const auto began = std::chrono::steady_clock::now();
  cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  // Records dropped after the last completed buffer are counted only in CUPTI's global queue.
  size_t late_dropped = 0;
  if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &late_dropped) == CUPTI_SUCCESS) {
    r->dropped.fetch_add(static_cast<int64_t>(late_dropped), std::memory_order_relaxed);
  }
  {
    std::lock_guard lock(r->mutex);
    r->stopping = true;
  }
  r->wake.notify_one();
  r->writer.join();
  std::string error = r->write_error;
  if (error.empty()) {
    try {
      // CUPTI's dropped count already includes the records lost for want of a buffer, so the
      // failed requests (a count of requests, not records) are kept apart.
      SinkStats stats = r->sink->Finish(r->dropped.load(), r->failed_buffer_requests.load());
      Log("wrote " + std::to_string(stats.RecordsWritten()) + " records to " + r->config.output +
          (stats.dropped > 0 ? "; " + std::to_string(stats.dropped) + " records DROPPED" : "") +
          (stats.zero_timestamps > 0 ? "; " + std::to_string(stats.zero_timestamps) +
                                           " records without timestamps left out"
                                     : ""));
      if (stats.failed_buffer_requests > 0) {
        Log(std::to_string(stats.failed_buffer_requests) + " buffer requests could not be met");
      }
      if (r->undecodable_buffers > 0) {
        Log(std::to_string(r->undecodable_buffers) + " activity buffers could not be read");
      }
      WriteStatus(*r, &stats, "",
                  std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - began)
                      .count());
      return;
    } catch (const std::exception& e) {
      error = e.what();
    }
  }
  Log("no trace written: " + error);
  WriteStatus(*r, nullptr, error);
}

void CUPTIAPI OnCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                         const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
      id == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
    const auto* info = static_cast<const CUpti_CallbackData*>(data);
    // The reset destroys the contexts whose records are still in device buffers, and the modules
    // whose kernel names the records point at: flush, and let the writer decode them first.
    if (info->callbackSite == CUPTI_API_ENTER && g_recorder != nullptr && !g_recorder->stopped) {
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      WaitUntilDrained(*g_recorder);
    }
  } else if (domain == CUPTI_CB_DOMAIN_RESOURCE &&
             id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING && g_recorder != nullptr &&
             !g_recorder->stopped) {
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    WaitUntilDrained(*g_recorder);
  } else if (domain == CUPTI_CB_DOMAIN_STATE && id == CUPTI_CBID_STATE_FATAL_ERROR) {
    const auto* state = static_cast<const CUpti_StateData*>(data);
    Log(std::string("CUPTI fatal error: ") + ResultText(state->notification.result) + ": " +
        (state->notification.message != nullptr ? state->notification.message : ""));
  }
}

// Every step that can fail; the first failure undoes what was done and leaves us inert.
// Returns what went wrong, or an empty string.
std::string Subscribe(Recorder& r) {
  CUpti_SubscriberParams params{};
  params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
  params.subscriberName = "gpuroof-recorder";
  char holder[256] = {};
  params.oldSubscriberName = holder;
  params.oldSubscriberSize = sizeof(holder);
  CUptiResult result = cuptiSubscribe_v2(&r.subscriber, OnCallback, nullptr, &params);
  if (result == CUPTI_SUCCESS) return "";
  std::string message = "cannot subscribe to CUPTI: " + ResultText(result);
  if (holder[0] != '\0') message += std::string(" (already held by ") + holder + ")";
  Log(message + "; recording nothing");
  r.subscriber = nullptr;
  return message;
}

bool Enable(Recorder& r) {
  auto check = [](CUptiResult result, const char* what) {
    if (result == CUPTI_SUCCESS) return true;
    Log(std::string(what) + " failed: " + ResultText(result) + "; recording nothing");
    return false;
  };
  if (!check(cuptiActivityRegisterCallbacks(BufferRequested, BufferCompleted),
             "cuptiActivityRegisterCallbacks")) {
    return false;
  }
  // We zero buffers on the writer thread, so CUPTI need not do it on the application's.
  uint8_t zeroed = 1;
  size_t zeroed_size = sizeof(zeroed);
  cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &zeroed_size, &zeroed);
  for (CUpti_ActivityKind kind : kRequiredKinds) {
    if (!check(cuptiActivityEnable(kind), "cuptiActivityEnable")) return false;
  }
  auto optional = [&r](CUpti_ActivityKind kind, const char* name) {
    const CUptiResult result = cuptiActivityEnable(kind);
    if (result == CUPTI_SUCCESS) return;
    r.unrecorded.push_back(std::string(name) + ": " + ResultText(result));
    Log(std::string("cannot record ") + name + " activity: " + ResultText(result) +
        "; recording the rest");
  };
  for (const OptionalKind& kind : kOptionalKinds)
    optional(kind.kind, kind.name);
  // NVTX marker records then carry OS thread ids (gettid), as nsys's globalTid does.
  cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
  if (r.config.nvtx) optional(CUPTI_ACTIVITY_KIND_MARKER, "MARKER (NVTX)");
  // Three rare callbacks only: enabling a whole API domain would cost every CUDA call.
  cuptiEnableCallback(1, r.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                      CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
  cuptiEnableCallback(1, r.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                      CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
  cuptiEnableCallback(1, r.subscriber, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR);
  return true;
}

void Start() noexcept {
  try {
    auto* r = new Recorder();
    r->config = ReadRecorderConfig(getpid());
    r->pid = getpid();
    uint32_t version = 0;
    cuptiGetVersion(&version);
    try {
      r->sink = new RecordSink(r->config.output,
                               SinkOptions{static_cast<uint32_t>(r->pid), std::to_string(version)});
    } catch (const std::exception& e) {
      Log(std::string("cannot create the trace: ") + e.what() + "; recording nothing");
      WriteStatus(*r, nullptr, e.what());
      delete r;
      return;
    }
    if (std::string error = Subscribe(*r); !error.empty()) {
      delete r->sink;  // removes its temporary file
      WriteStatus(*r, nullptr, error);
      delete r;
      return;
    }
    r->pool = new BufferPool(kBufferBytes, kPrefilledBuffers);
    g_recorder = r;
    if (!Enable(*r)) {
      for (CUpti_ActivityKind kind : kRequiredKinds)
        cuptiActivityDisable(kind);
      for (const OptionalKind& kind : kOptionalKinds)
        cuptiActivityDisable(kind.kind);
      cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MARKER);
      cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      cuptiUnsubscribe(r->subscriber);
      delete r->sink;
      r->sink = nullptr;
      WriteStatus(*r, nullptr, "CUPTI activity setup failed");
      // g_recorder stays: CUPTI may still hand back buffers, which then wait in the queue.
      return;
    }
    try {
      r->writer = StartWriter(*r);
    } catch (...) {
      // No writer: nothing may wait for it to drain (WaitUntilDrained), and no trace is written.
      {
        std::lock_guard lock(r->mutex);
        r->stopping = true;
      }
      WriteStatus(*r, nullptr, "cannot start the writer thread");
      throw;
    }
    std::atexit(Stop);
  } catch (const std::exception& e) {
    Log(std::string("cannot start: ") + e.what() + "; recording nothing");
  }
}

}  // namespace
}  // namespace gpuroof::recorder

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  std::call_once(gpuroof::recorder::g_start_once, gpuroof::recorder::Start);
  return 1;  // always: a recorder that cannot record must not stop the program
}

// NVTX_INJECTION64_PATH may name this library too, so both variables name one CUPTI copy; the
// first NVTX call may come before cuInit, so it starts the recorder as well.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* table) {
  std::call_once(gpuroof::recorder::g_start_once, gpuroof::recorder::Start);
  return cuptiNvtxInitialize2(table) == CUPTI_SUCCESS ? 1 : 0;
}
