// Writes the recorder's records as an SQLite file with the table and column names of
// `nsys export --type sqlite` (schema 3.17.2) for the subset the recorder produces, so that every
// reader of nsys exports reads it unchanged. Plain C++ and SQLite: no CUDA needed to build or
// test it. Layout: docs/formats.md, "gpuroof record files".
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "gpuroof/model/non_copyable.h"
#include "gpuroof/recorder/records.h"

namespace gpuroof::recorder {

struct SinkOptions {
  uint32_t pid = 0;           // the recorded process; written into globalPid/globalTid
  std::string cupti_version;  // e.g. "130001"; empty when unknown
};

// Counts the sink keeps; `dropped` comes from CUPTI and is passed to Finish().
struct SinkStats {
  int64_t kernels = 0;
  int64_t memcpys = 0;
  int64_t memsets = 0;
  int64_t nvtx_events = 0;
  // Records without a usable timestamp (start or end 0, or end before start): counted, not
  // written.
  int64_t zero_timestamps = 0;
  int64_t unpaired_markers = 0;
  int64_t dropped = 0;                 // records CUPTI reported as dropped
  int64_t failed_buffer_requests = 0;  // buffer requests we could not meet (not a record count)
  int64_t RecordsWritten() const { return kernels + memcpys + memsets + nvtx_events; }
};

// Rows go to `final_path` + ".tmp" inside one transaction; Finish() writes the enum and metadata
// tables, commits and renames the file to `final_path`. A sink destroyed without Finish()
// removes its temporary file, so a failed run never leaves a partial trace.
// SQLite failures throw std::runtime_error naming the file.
class RecordSink : NonCopyable {
 public:
  RecordSink(std::filesystem::path final_path, SinkOptions options);
  ~RecordSink();

  void AddKernel(const KernelRecord& record);
  void AddMemcpy(const MemcpyRecord& record);
  void AddMemset(const MemsetRecord& record);
  void AddMarker(const MarkerRecord& record);
  void AddDevice(const DeviceRecord& record);  // the last record for an id wins

  const SinkStats& Stats() const;
  // `dropped_records`: what CUPTI reported lost (cuptiActivityGetNumDroppedRecords), which
  // includes the records lost for want of a buffer; `failed_buffer_requests`: how often the
  // recorder had no buffer to give CUPTI. Both go into RECORDER_STATS.
  SinkStats Finish(int64_t dropped_records, int64_t failed_buffer_requests = 0);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpuroof::recorder
