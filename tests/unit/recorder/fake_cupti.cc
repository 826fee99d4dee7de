// A stand-in for libcupti.so.13 with the calls libgpuroof_recorder.so makes, so the injection
// library's own logic (which kinds it requires, how it counts dropped records, its writer thread,
// its flush on cudaDeviceReset) is tested on machines without a GPU. Loaded through
// LD_LIBRARY_PATH, which the dynamic linker searches before the recorder's RUNPATH.
// Activity buffers hold an array of CUpti_ActivityKernel10 records (the fake's own layout, walked
// by its cuptiActivityGetNextRecord). The test drives it through the fakeCupti* functions.
// $GPUROOF_FAKE_CUPTI_NOT_COMPATIBLE: comma-separated activity kind numbers whose
// cuptiActivityEnable fails with CUPTI_ERROR_NOT_COMPATIBLE.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cupti.h>

#define FAKE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

CUpti_BuffersCallbackRequestFunc g_request = nullptr;
CUpti_BuffersCallbackCompleteFunc g_complete = nullptr;
CUpti_CallbackFunc g_callback = nullptr;
void* g_callback_data = nullptr;
size_t g_global_dropped = 0;   // returned (and reset) for the global queue (context NULL)
size_t g_context_dropped = 0;  // returned (and reset) for any context
std::vector<CUpti_ActivityKernel10> g_on_flush;  // completed in a fresh buffer by the next flush

bool NotCompatible(CUpti_ActivityKind kind) {
  const char* list = std::getenv("GPUROOF_FAKE_CUPTI_NOT_COMPATIBLE");
  if (list == nullptr) return false;
  std::string text = std::string(",") + list + ",";
  return text.find("," + std::to_string(static_cast<int>(kind)) + ",") != std::string::npos;
}

void Complete(const std::vector<CUpti_ActivityKernel10>& records) {
  uint8_t* buffer = nullptr;
  size_t size = 0;
  size_t max_records = 0;
  g_request(&buffer, &size, &max_records);
  if (buffer == nullptr) return;
  const size_t bytes = records.size() * sizeof(CUpti_ActivityKernel10);
  if (bytes > size) std::abort();
  if (bytes > 0) std::memcpy(buffer, records.data(), bytes);
  g_complete(reinterpret_cast<CUcontext>(0x1), 7, buffer, size, bytes);
}

}  // namespace

FAKE_EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char** text) {
  *text = result == CUPTI_ERROR_NOT_COMPATIBLE ? "CUPTI_ERROR_NOT_COMPATIBLE" : "CUPTI_ERROR_FAKE";
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiGetVersion(uint32_t* version) {
  *version = 130000;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle* subscriber,
                                          CUpti_CallbackFunc callback, void* data,
                                          CUpti_SubscriberParams*) {
  g_callback = callback;
  g_callback_data = data;
  *subscriber = reinterpret_cast<CUpti_SubscriberHandle>(0x5);
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle) {
  g_callback = nullptr;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                            CUpti_CallbackId) {
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
                                                       CUpti_BuffersCallbackCompleteFunc complete) {
  g_request = request;
  g_complete = complete;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute, size_t*, void*) {
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
  return NotCompatible(kind) ? CUPTI_ERROR_NOT_COMPATIBLE : CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind) {
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiSetThreadIdType(CUpti_ActivityThreadIdType) {
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityFlushAll(uint32_t) {
  if (!g_on_flush.empty() && g_request != nullptr) {
    const std::vector<CUpti_ActivityKernel10> records = std::move(g_on_flush);
    g_on_flush.clear();
    Complete(records);
  }
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t,
                                                          size_t* dropped) {
  size_t& count = context == nullptr ? g_global_dropped : g_context_dropped;
  *dropped = count;
  count = 0;
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t* buffer, size_t valid_bytes,
                                                   CUpti_Activity** record) {
  uint8_t* next = *record == nullptr
                      ? buffer
                      : reinterpret_cast<uint8_t*>(*record) + sizeof(CUpti_ActivityKernel10);
  if (next + sizeof(CUpti_ActivityKernel10) > buffer + valid_bytes) {
    return CUPTI_ERROR_MAX_LIMIT_REACHED;
  }
  *record = reinterpret_cast<CUpti_Activity*>(next);
  return CUPTI_SUCCESS;
}
FAKE_EXPORT CUptiResult cuptiNvtxInitialize2(void*) {
  return CUPTI_SUCCESS;
}

// --- what the test drives ---------------------------------------------------------------------

// Completes a buffer now holding `count` records, CUPTI reporting `dropped` for its context.
FAKE_EXPORT void fakeCuptiCompleteBuffer(const CUpti_ActivityKernel10* records, size_t count,
                                         size_t context_dropped) {
  g_context_dropped += context_dropped;
  Complete(std::vector<CUpti_ActivityKernel10>(records, records + count));
}
// Records the next cuptiActivityFlushAll delivers in a buffer of its own.
FAKE_EXPORT void fakeCuptiOnNextFlush(const CUpti_ActivityKernel10* records, size_t count) {
  g_on_flush.assign(records, records + count);
}
// Records dropped after the last completed buffer: only the global queue's count has them.
FAKE_EXPORT void fakeCuptiDropLate(size_t dropped) {
  g_global_dropped += dropped;
}
// Calls the recorder's callback as the runtime would at the entry of cudaDeviceReset.
FAKE_EXPORT void fakeCuptiDeviceReset() {
  CUpti_CallbackData data{};
  data.callbackSite = CUPTI_API_ENTER;
  g_callback(g_callback_data, CUPTI_CB_DOMAIN_RUNTIME_API,
             CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020, &data);
}
