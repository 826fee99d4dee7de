// The CUPTI-facing half of the recorder: CUPTI activity records (CUDA 13.0 header versions) to
// the plain records of records.h. Pure functions plus one buffer walk, so they are unit-tested
// on hand-filled structs and buffers; no GPU or driver is needed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <cupti.h>

#include "gpuroof/recorder/record_sink.h"
#include "gpuroof/recorder/records.h"

namespace gpuroof::recorder {

KernelRecord ToKernelRecord(const CUpti_ActivityKernel10& kernel);
MemcpyRecord ToMemcpyRecord(const CUpti_ActivityMemcpy6& copy);
MemcpyRecord ToMemcpyRecord(const CUpti_ActivityMemcpyPtoP4& copy);  // peer-to-peer
MemsetRecord ToMemsetRecord(const CUpti_ActivityMemset4& memset);
// Nothing for marker records that are neither a range end nor a mark (sync-object flags).
std::optional<MarkerRecord> ToMarkerRecord(const CUpti_ActivityMarker2& marker);
// Converts CUPTI's kHz and kB/s to nsys's Hz and B/s.
DeviceRecord ToDeviceRecord(const CUpti_ActivityDevice5& device);

struct DecodeCounts {
  int64_t records = 0;        // records in the buffer
  int64_t other_kinds = 0;    // kinds the recorder does not write (contexts, ...)
  bool buffer_error = false;  // cuptiActivityGetNextRecord failed before the buffer's end
};

// Walks one completed activity buffer with cuptiActivityGetNextRecord and feeds every record it
// knows into `sink`. Names are copied at once: CUPTI's name pointers may dangle later.
DecodeCounts DecodeActivityBuffer(uint8_t* buffer, size_t valid_bytes, RecordSink& sink);

}  // namespace gpuroof::recorder
