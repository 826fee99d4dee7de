#include "support/kineto_json_builder.h"

#include <fmt/format.h>

namespace gpuroof::testing {

std::string JsonQuote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

KinetoJsonBuilder& KinetoJsonBuilder::GpuOp(const std::string& category, const std::string& name,
                                            const std::string& ts_us, const std::string& dur_us,
                                            int device, int stream, int64_t correlation,
                                            const std::string& extra_args) {
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "{}", "name": {}, "pid": {}, "tid": {}, "ts": {}, "dur": {}, )"
      R"("args": {{"device": {}, "context": 1, "stream": {}, "correlation": {}{}}}}})",
      category, JsonQuote(name), device, stream, ts_us, dur_us, device, stream, correlation,
      extra_args));
  return *this;
}

KinetoJsonBuilder& KinetoJsonBuilder::Kernel(const std::string& name, const std::string& ts_us,
                                             const std::string& dur_us, int device, int stream,
                                             int64_t correlation) {
  return GpuOp("kernel", name, ts_us, dur_us, device, stream, correlation,
               R"(, "grid": [4, 2, 1], "block": [128, 1, 1])");
}

KinetoJsonBuilder& KinetoJsonBuilder::Memcpy(const std::string& name, const std::string& ts_us,
                                             const std::string& dur_us, uint64_t bytes, int device,
                                             int stream, int64_t correlation) {
  return GpuOp("gpu_memcpy", name, ts_us, dur_us, device, stream, correlation,
               fmt::format(R"(, "bytes": {})", bytes));
}

KinetoJsonBuilder& KinetoJsonBuilder::Memset(const std::string& name, const std::string& ts_us,
                                             const std::string& dur_us, uint64_t bytes, int device,
                                             int stream, int64_t correlation) {
  return GpuOp("gpu_memset", name, ts_us, dur_us, device, stream, correlation,
               fmt::format(R"(, "bytes": {})", bytes));
}

KinetoJsonBuilder& KinetoJsonBuilder::Annotation(const std::string& name, const std::string& ts_us,
                                                 const std::string& dur_us, int64_t pid,
                                                 int64_t tid, int64_t external_id) {
  if (external_id == 0) external_id = ++annotations_;
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "user_annotation", "name": {}, "pid": {}, "tid": {}, "ts": {}, )"
      R"("dur": {}, "args": {{"External id": {}}}}})",
      JsonQuote(name), pid, tid, ts_us, dur_us, external_id));
  return *this;
}

KinetoJsonBuilder& KinetoJsonBuilder::GpuAnnotation(const std::string& name,
                                                    const std::string& ts_us,
                                                    const std::string& dur_us, int device,
                                                    int stream, int64_t external_id) {
  const std::string args =
      external_id == 0 ? "{}" : fmt::format(R"({{"External id": {}}})", external_id);
  events_.push_back(
      fmt::format(R"({{"ph": "X", "cat": "gpu_user_annotation", "name": {}, "pid": {}, "tid": {}, )"
                  R"("ts": {}, "dur": {}, "args": {}}})",
                  JsonQuote(name), device, stream, ts_us, dur_us, args));
  return *this;
}

KinetoJsonBuilder& KinetoJsonBuilder::Runtime(const std::string& name, const std::string& ts_us,
                                              const std::string& dur_us, int64_t correlation,
                                              int64_t pid, int64_t tid) {
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "cuda_runtime", "name": {}, "pid": {}, "tid": {}, "ts": {}, )"
      R"("dur": {}, "args": {{"cbid": 211, "correlation": {}}}}})",
      JsonQuote(name), pid, tid, ts_us, dur_us, correlation));
  return *this;
}

KinetoJsonBuilder& KinetoJsonBuilder::CpuOp(const std::string& name, const std::string& ts_us,
                                            const std::string& dur_us, int64_t pid, int64_t tid) {
  events_.push_back(fmt::format(
      R"({{"ph": "X", "cat": "cpu_op", "name": {}, "pid": {}, "tid": {}, "ts": {}, "dur": {}, )"
      R"("args": {{"Input Dims": [[2, 3], []], "Input type": ["float", ""]}}}})",
      JsonQuote(name), pid, tid, ts_us, dur_us));
  return *this;
}

KinetoJsonBuilder& KinetoJsonBuilder::KernelWithOccupancy(const std::string& name,
                                                          const std::string& ts_us,
                                                          const std::string& dur_us,
                                                          int occupancy_pct, int device,
                                                          int stream) {
  return GpuOp("kernel", name, ts_us, dur_us, device, stream, 0,
               fmt::format(R"(, "est. achieved occupancy %": {})", occupancy_pct));
}

KinetoJsonBuilder& KinetoJsonBuilder::Raw(const std::string& event_json) {
  events_.push_back(event_json);
  return *this;
}

KinetoJsonBuilder& KinetoJsonBuilder::TopLevel(const std::string& key,
                                               const std::string& value_json, bool after_events) {
  (after_events ? after_ : before_).push_back(fmt::format("{}: {}", JsonQuote(key), value_json));
  return *this;
}

std::string KinetoJsonBuilder::ArrayJson() const {
  std::string out = "[\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    out += "  " + events_[i] + (i + 1 < events_.size() ? ",\n" : "\n");
  }
  return out + "]";
}

std::string KinetoJsonBuilder::ObjectJson() const {
  std::string out = "{\n  \"schemaVersion\": 1,\n";
  for (const std::string& member : before_)
    out += "  " + member + ",\n";
  out += "  \"traceEvents\": " + ArrayJson();
  for (const std::string& member : after_)
    out += ",\n  " + member;
  return out + "\n}\n";
}

}  // namespace gpuroof::testing
