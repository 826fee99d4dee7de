// Turns Kineto trace events, one at a time, into gpuroof's Trace model (docs/formats.md, "Kineto
// JSON traces"). No JSON here: kineto_json_reader.cc hands over each event's fields as text.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpuroof/model/non_copyable.h"
#include "gpuroof/model/trace.h"
#include "gpuroof/readers/kineto_event_kinds.h"
#include "gpuroof/readers/nsys_sqlite_reader.h"

namespace gpuroof {

// A pid or tid: Kineto writes numbers, negative numbers, or strings ("stream 7", "Spans").
// Kept as text: most events' ids are never looked at, so they are parsed only when used.
struct KinetoId {
  enum class Type : uint8_t { kAbsent, kNumber, kString };
  Type type = Type::kAbsent;
  std::string_view text;  // the number as written (kNumber), or the string's text (kString)
};

// One event's fields as the JSON gave them. Views stay valid until the next event.
struct KinetoEvent {
  std::string_view phase;
  std::string_view category;
  KinetoEventKind kind = KinetoEventKind::kOther;  // ClassifyKinetoCategory(category)
  std::string_view name;
  // `name` held a number, null, an object...: the record cannot be told from others of its kind
  // (every such kernel would merge into one nameless kernel), so it is skipped and counted.
  bool name_not_string = false;
  KinetoId pid;
  KinetoId tid;
  // Number text in µs as written ("1365627866520.196"); nullopt when the key is absent, "" when
  // its value is not a number or a string.
  std::optional<std::string_view> ts;
  std::optional<std::string_view> dur;
  struct Args {
    std::optional<int64_t> device;
    std::optional<int64_t> stream;
    std::optional<int64_t> context;
    std::optional<int64_t> correlation;
    std::optional<int64_t> bytes;
    std::optional<int64_t> from_device;  // peer copies
    std::optional<int64_t> to_device;
    // "External id" (legacy "external id"): ties an annotation's CPU and GPU-timeline copies.
    std::optional<int64_t> external_id;
    std::optional<int64_t> est_occupancy_pct;    // kernels: "est. achieved occupancy %"
    std::optional<int64_t> shared_memory_bytes;  // kernels: "shared memory" (static + dynamic)
    std::array<uint32_t, 3> grid = {0, 0, 0};
    std::array<uint32_t, 3> block = {0, 0, 0};
  } args;
};

// A fixed-capacity array of launch calls in its own memory mapping, so that freeing it hands the
// memory straight back to the system (malloc may keep large freed blocks): joining the chunks
// into Trace::api_calls at the end then costs one chunk of extra memory, not all of them.
// Instantiated for ApiCall and ParsedLaunchEnd.
template <typename Record>
class MappedChunk : NonCopyable {
 public:
  static constexpr size_t kCapacity = size_t{1} << 16;
  MappedChunk();  // throws std::bad_alloc
  ~MappedChunk();
  MappedChunk(MappedChunk&& other) noexcept;

  bool full() const { return size_ == kCapacity; }
  void push_back(const Record& record) { records_[size_++] = record; }
  const Record* begin() const { return records_; }
  const Record* end() const { return records_ + size_; }
  size_t size() const { return size_; }

 private:
  Record* records_ = nullptr;
  size_t size_ = 0;
};

// A launch call as kept while parsing with ReadScope::launch_ends_only: 24 bytes (a Kineto
// process key fits 32 bits), cut to a LaunchEnd by Finish(). The start is kept so that several
// processes' calls of one correlation id are told apart by the same rule as with whole calls.
struct ParsedLaunchEnd {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  uint32_t process_id = 0;
  uint32_t correlation = 0;
};

class KinetoTraceBuilder {
 public:
  // `calls.api_calls`: with ReadDetail::kFull (or kBreakdown), keep the launch calls
  // (Trace::api_calls); `all_api_calls` as well: every runtime/driver call, launches or not;
  // `launch_ends_only` instead: their ends only (Trace::launch_ends).
  KinetoTraceBuilder(std::string source, const ReadScope& calls);

  // Whether gpuroof uses events of this kind (their args, times, ids).
  static bool NeedsArgs(KinetoEventKind kind);
  // Whether it keeps their names (so that escaped names must be unescaped first).
  static bool NeedsName(KinetoEventKind kind);
  // Whether an event of this kind and (still escaped) name is one Add() reads at all; the JSON
  // reader stops reading an event as soon as this says no.
  bool IsUsed(KinetoEventKind kind, std::string_view name) const;

  // Takes one event of traceEvents; anything unusable is counted in the diagnostics.
  void Add(const KinetoEvent& event);
  // An element of traceEvents that is not valid JSON (or not an object); `offset` is its byte
  // offset in the (decompressed) file.
  void AddMalformed(uint64_t offset, std::string_view problem);

  void SetBaseTimeNs(int64_t base_ns) { base_time_ns_ = base_ns; }
  void AddDevice(DeviceInfo device) { trace_.devices.push_back(std::move(device)); }
  void SetMetadata(std::string key, std::string value) {
    trace_.metadata[std::move(key)] = std::move(value);
  }
  // A note for the trace's diagnostics (shown with it, e.g. by `gpuroof ranks`).
  void Note(std::string message) { trace_.diagnostics.Note(std::move(message)); }

  // Finishes the trace: applies baseTimeNanoseconds, links launch calls to streams, keeps only
  // the calls that launched a traced GPU op, and sorts every table. Throws InputError when
  // shifting by baseTimeNanoseconds overflows.
  Trace Finish();

  // Activities per block, reserved whole when the block starts: columns never reallocate (no
  // copy doubling the memory peak), and untouched capacity is never resident. 2^18 int64 values
  // fill one 2 MiB huge page.
  static constexpr size_t kBlockOps = size_t{1} << 18;

 private:
  void AddGpuOp(const KinetoEvent& event, KinetoEventKind kind);
  void AddAnnotation(const KinetoEvent& event, bool on_gpu);
  void AddApiCall(const KinetoEvent& event);
  // Keeps the chunks' calls that launched a traced op (all with keep_all_calls_), frees the
  // chunks, shifts the calls by baseTimeNanoseconds, gives each stream the process that launched
  // onto it (one stream per process where several share it), and returns the calls sorted by
  // (process, correlation).
  template <typename Call>
  std::vector<Call> JoinLaunchCalls(std::vector<MappedChunk<Call>>& chunks);
  // Adds baseTimeNanoseconds to `t`; throws InputError when it overflows.
  void ShiftByBaseTime(int64_t& t) const;
  // Joins each GPU-timeline annotation (gpu_user_annotation) to the CPU annotation it projects,
  // so that one record_function is one range (docs/formats.md, "Kineto JSON traces").
  void PairAnnotationCopies();
  // start/end in ns, or false with the reason counted under `table` (also when the name is not
  // a string: no record can be told apart without it).
  bool ReadInterval(const KinetoEvent& event, std::string_view table, int64_t* start_ns,
                    int64_t* end_ns);
  uint64_t ProcessKey(const KinetoId& pid);
  uint64_t ThreadKey(const KinetoId& pid, const KinetoId& tid);
  uint32_t InternedKeyPart(const KinetoId& id);
  uint32_t StreamId(const StreamInfo& stream);
  uint32_t SignatureId(const OpSignature& signature);
  void Skip(std::string_view table, std::string_view reason, Severity severity);

  Trace trace_;
  ReadDetail detail_;
  bool keep_calls_;
  bool keep_all_calls_;    // with keep_calls_: calls that launched nothing too
  bool keep_launch_ends_;  // with keep_calls_ (not keep_all_calls_): their ends only
  std::optional<int64_t> base_time_ns_;
  std::unordered_map<std::string, uint32_t> id_keys_;  // pid/tid text -> key part
  // Streams and signatures interned by their bytes (both are small, padding-free PODs).
  std::unordered_map<std::string, uint32_t> stream_ids_;
  std::unordered_map<std::string, uint32_t> signature_ids_;
  // Launch calls, joined into api_calls (or launch_ends) by Finish().
  std::vector<MappedChunk<ApiCall>> call_chunks_;
  std::vector<MappedChunk<ParsedLaunchEnd>> launch_chunks_;
  // External id of each annotation, parallel to trace_.nvtx_ranges until Finish() (-1: none).
  std::vector<int64_t> annotation_external_ids_;
  int64_t zero_duration_ops_ = 0;
  int64_t out_of_range_correlations_ = 0;  // GPU ops whose correlation id is not 32-bit
  int64_t duplicate_calls_ = 0;            // exact duplicate launch calls dropped
  int64_t events_ = 0;
  int64_t malformed_ = 0;
};

}  // namespace gpuroof
