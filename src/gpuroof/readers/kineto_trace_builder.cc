#include "gpuroof/readers/kineto_trace_builder.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <limits>
#include <map>
#include <new>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <fmt/format.h>
#include <sys/mman.h>

#include "gpuroof/model/errors.h"
#include "gpuroof/model/exact_duplicates.h"
#include "gpuroof/model/scalar_read.h"
#include "gpuroof/model/time_limits.h"
#include "gpuroof/readers/kineto_launch_processes.h"
#include "gpuroof/readers/memory_rate_check.h"

namespace gpuroof {

namespace {

constexpr std::string_view kGpuTable = "traceEvents (GPU ops)";
constexpr std::string_view kAnnotationTable = "traceEvents (annotations)";
constexpr std::string_view kCallTable = "traceEvents (CUDA API calls)";
constexpr std::string_view kEventTable = "traceEvents";

// Longer GPU ops or ranges are corrupt (docs/formats.md, "Kineto JSON traces").
constexpr int64_t kMaxDurationNs = int64_t{7} * 24 * 3600 * 1'000'000'000;

// Ids up to 2^31 are used as they are; larger or non-numeric ones are interned with this bit.
constexpr uint64_t kInternedBit = uint64_t{1} << 31;

bool ContainsIgnoringCase(std::string_view text, std::string_view word) {
  auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  return std::search(text.begin(), text.end(), word.begin(), word.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != text.end();
}

// CUDA/HIP runtime and driver calls that enqueue GPU work: kernel and graph launches, copies,
// memsets (cudaLaunchKernel, cuLaunchKernelEx, cudaGraphLaunch, cudaMemcpyAsync, hipMemset...).
// Other calls (cudaEventQuery, cudaStreamSynchronize...) carry correlation ids too but launch
// nothing; not keeping them bounds the memory of CPU-side events.
bool CanLaunchGpuWork(std::string_view name) {
  // The usual spellings first (cudaLaunchKernel, cuLaunchKernelEx, cudaMemcpyAsync): no folding.
  for (std::string_view word : {"Launch", "Memcpy", "Memset"}) {
    if (name.find(word) != std::string_view::npos) return true;
  }
  return ContainsIgnoringCase(name, "launch") || ContainsIgnoringCase(name, "memcpy") ||
         ContainsIgnoringCase(name, "memset");
}

// Appends the bytes of each field (never of a whole struct: padding bytes are indeterminate).
template <typename... T>
std::string KeyOf(const T&... fields) {
  std::string key;
  (key.append(reinterpret_cast<const char*>(&fields), sizeof fields), ...);
  return key;
}

// "stream 7" (PyTorch <= 1.9 GPU rows) -> 7.
std::optional<int64_t> LegacyStreamNumber(std::string_view text) {
  constexpr std::string_view kPrefix = "stream ";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::string_view rest = text.substr(kPrefix.size());
  while (!rest.empty() && rest.back() == ' ')
    rest.remove_suffix(1);
  return ParseInteger(rest);
}

std::optional<int64_t> NumericId(const KinetoId& id) {
  if (id.type == KinetoId::Type::kAbsent) return std::nullopt;
  return ParseInteger(id.text);
}

}  // namespace

template <typename Record>
MappedChunk<Record>::MappedChunk() {
  void* memory = mmap(nullptr, kCapacity * sizeof(Record), PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  records_ = static_cast<Record*>(memory);
}

template <typename Record>
MappedChunk<Record>::~MappedChunk() {
  if (records_ != nullptr) munmap(records_, kCapacity * sizeof(Record));
}

template <typename Record>
MappedChunk<Record>::MappedChunk(MappedChunk&& other) noexcept
    : records_(std::exchange(other.records_, nullptr)), size_(std::exchange(other.size_, 0)) {}

template class MappedChunk<ApiCall>;
template class MappedChunk<ParsedLaunchEnd>;

KinetoTraceBuilder::KinetoTraceBuilder(std::string source, const ReadScope& calls)
    : detail_(calls.detail),
      keep_calls_(calls.detail != ReadDetail::kEngineLoad && calls.api_calls),
      keep_all_calls_(keep_calls_ && calls.all_api_calls),
      keep_launch_ends_(keep_calls_ && !keep_all_calls_ && calls.launch_ends_only) {
  trace_.source = std::move(source);
  trace_.format = "kineto-json";
}

bool KinetoTraceBuilder::NeedsArgs(KinetoEventKind kind) {
  // CPU annotations too: their External id pairs them with their GPU-timeline copies.
  return kind != KinetoEventKind::kOther && kind != KinetoEventKind::kGpuNotEngineWork;
}

bool KinetoTraceBuilder::NeedsName(KinetoEventKind kind) {
  return kind != KinetoEventKind::kGpuNotEngineWork;
}

namespace {
// PyTorch 1.8 wrote the step ranges as operators ("Operator" category): they are the iterations
// all the same.
bool IsLegacyStep(KinetoEventKind kind, std::string_view name) {
  return kind == KinetoEventKind::kOther && name.substr(0, 13) == "ProfilerStep#";
}

// The calls that can be the one that launched a GPU op, in their order: with every call kept
// (ReadScope::all_api_calls), a cudaStreamSynchronize or aten::item carries a correlation id too.
template <typename Call>
std::vector<const Call*> LaunchCallsOf([[maybe_unused]] const Trace& trace,
                                       const std::vector<Call>& calls) {
  std::vector<const Call*> launches;
  launches.reserve(calls.size());
  for (const Call& call : calls) {
    if constexpr (std::is_same_v<Call, ApiCall>) {
      if (!CanLaunchGpuWork(trace.strings.Get(call.name))) continue;
    }  // ParsedLaunchEnd: only launch calls are kept
    launches.push_back(&call);
  }
  return launches;
}

}  // namespace

bool KinetoTraceBuilder::IsUsed(KinetoEventKind kind, std::string_view name) const {
  switch (kind) {
    case KinetoEventKind::kRuntimeCall:
      return keep_calls_ && (keep_all_calls_ || CanLaunchGpuWork(name));
    case KinetoEventKind::kGpuNotEngineWork:
      return false;
    case KinetoEventKind::kOther:
      return IsLegacyStep(kind, name) || (keep_all_calls_ && name == kScalarReadOpName);
    default:
      return true;
  }
}

void KinetoTraceBuilder::Skip(std::string_view table, std::string_view reason, Severity severity) {
  trace_.diagnostics.Skip(table, reason, severity);
}

void KinetoTraceBuilder::AddMalformed(uint64_t offset, std::string_view problem) {
  ++events_;
  trace_.diagnostics.CountRead(1);
  Skip(kEventTable, "malformed JSON event", Severity::kDataLoss);
  if (malformed_++ == 0) {
    trace_.diagnostics.Note(
        fmt::format("first malformed traceEvents element at byte {}: {}", offset, problem));
  }
}

void KinetoTraceBuilder::Add(const KinetoEvent& event) {
  ++events_;
  KinetoEventKind kind = event.kind;
  if (IsLegacyStep(kind, event.name)) kind = KinetoEventKind::kCpuAnnotation;
  switch (kind) {
    case KinetoEventKind::kKernel:
    case KinetoEventKind::kMemcpy:
    case KinetoEventKind::kMemset:
      trace_.diagnostics.CountRead(1);
      AddGpuOp(event, kind);
      return;
    case KinetoEventKind::kCpuAnnotation:
    case KinetoEventKind::kGpuAnnotation:
      trace_.diagnostics.CountRead(1);
      AddAnnotation(event, kind == KinetoEventKind::kGpuAnnotation);
      return;
    case KinetoEventKind::kRuntimeCall:
      AddApiCall(event);
      return;
    case KinetoEventKind::kOther:
      // PyTorch's .item(): kept with every call, as the host-side op that synchronises.
      if (keep_all_calls_ && event.name == kScalarReadOpName) AddApiCall(event);
      return;
    case KinetoEventKind::kGpuNotEngineWork:
      return;  // not records gpuroof reads (docs/formats.md, Kineto)
    case KinetoEventKind::kUnknownCategory:
      // On a GPU stream, an op of a kind gpuroof does not know: counted, never dropped unsaid.
      if (event.phase == "X" && (event.args.stream || (event.tid.type == KinetoId::Type::kString &&
                                                       LegacyStreamNumber(event.tid.text)))) {
        trace_.diagnostics.CountRead(1);
        Skip(kGpuTable, fmt::format("unknown GPU event category '{}'", event.category),
             Severity::kDataLoss);
      }
      return;
  }
}

bool KinetoTraceBuilder::ReadInterval(const KinetoEvent& event, std::string_view table,
                                      int64_t* start_ns, int64_t* end_ns) {
  if (event.phase != "X") {
    Skip(table, "not a complete ('X') event", Severity::kDataLoss);
    return false;
  }
  // Checked with the interval, which every record needs too: a record's name tells it apart.
  if (event.name_not_string) {
    Skip(table, "name not a string", Severity::kDataLoss);
    return false;
  }
  // ts and dur: present, and a number of microseconds.
  auto microseconds = [&](const std::optional<std::string_view>& text,
                          std::string_view name) -> std::optional<int64_t> {
    if (!text) {
      Skip(table, fmt::format("missing {}", name), Severity::kDataLoss);
      return std::nullopt;
    }
    std::optional<int64_t> ns = ParseMicrosecondsAsNs(*text);
    if (!ns) Skip(table, fmt::format("{} not a number of microseconds", name), Severity::kDataLoss);
    return ns;
  };
  std::optional<int64_t> start = microseconds(event.ts, "ts");
  if (!start) return false;
  std::optional<int64_t> duration = microseconds(event.dur, "dur");
  if (!duration) return false;
  if (*duration < 0) {
    Skip(table, "negative duration", Severity::kError);
    return false;
  }
  if (*duration > kMaxDurationNs) {
    Skip(table, "duration over 7 days", Severity::kError);
    return false;
  }
  // Both ends within the bound every reader applies (model/time_limits.h); checked before the
  // addition, which could otherwise overflow.
  if (!TimestampInRange(*start) || *start >= kTimestampLimitNs - *duration) {
    Skip(table, "implausible timestamp", Severity::kError);
    return false;
  }
  *start_ns = *start;
  *end_ns = *start + *duration;
  return true;
}

uint32_t KinetoTraceBuilder::InternedKeyPart(const KinetoId& id) {
  std::optional<int64_t> number = NumericId(id);
  if (number && *number >= 0 && static_cast<uint64_t>(*number) < kInternedBit) {
    return static_cast<uint32_t>(*number);
  }
  std::string key =
      id.type == KinetoId::Type::kString ? std::string(id.text) : fmt::format("#{}", id.text);
  auto [it, inserted] =
      id_keys_.try_emplace(std::move(key), static_cast<uint32_t>(kInternedBit | id_keys_.size()));
  return it->second;
}

uint64_t KinetoTraceBuilder::ProcessKey(const KinetoId& pid) {
  return InternedKeyPart(pid);
}

uint64_t KinetoTraceBuilder::ThreadKey(const KinetoId& pid, const KinetoId& tid) {
  return ProcessKey(pid) << 32 | InternedKeyPart(tid);
}

uint32_t KinetoTraceBuilder::StreamId(const StreamInfo& stream) {
  auto [it, inserted] =
      stream_ids_.try_emplace(KeyOf(stream.device_id, stream.context_id, stream.stream_id),
                              static_cast<uint32_t>(stream_ids_.size()));
  if (inserted) trace_.streams.push_back(stream);
  return it->second;
}

uint32_t KinetoTraceBuilder::SignatureId(const OpSignature& signature) {
  const OpSignature& s = signature;
  auto [it, inserted] =
      signature_ids_.try_emplace(KeyOf(s.engine, s.name, s.detail_name, s.grid, s.block, s.src_kind,
                                       s.dst_kind, s.src_device, s.dst_device, s.est_occupancy_pct),
                                 static_cast<uint32_t>(signature_ids_.size()));
  if (inserted) trace_.signatures.push_back(signature);
  return it->second;
}

void KinetoTraceBuilder::AddGpuOp(const KinetoEvent& event, KinetoEventKind kind) {
  int64_t start_ns = 0;
  int64_t end_ns = 0;
  if (!ReadInterval(event, kGpuTable, &start_ns, &end_ns)) return;
  std::optional<int64_t> device = event.args.device ? event.args.device : NumericId(event.pid);
  std::optional<int64_t> stream = event.args.stream;
  if (!stream) {
    stream = event.tid.type == KinetoId::Type::kString ? LegacyStreamNumber(event.tid.text)
                                                       : std::nullopt;
    if (!stream) stream = NumericId(event.tid);
  }
  if (!device || *device < 0 || *device > std::numeric_limits<int32_t>::max()) {
    Skip(kGpuTable, "no device (args.device or a numeric pid)", Severity::kDataLoss);
    return;
  }
  if (!stream) {
    Skip(kGpuTable, "no stream (args.stream or a numeric tid)", Severity::kDataLoss);
    return;
  }
  bool full = detail_ != ReadDetail::kEngineLoad;  // kBreakdown reads as kFull here
  OpSignature signature;
  uint64_t bytes = 0;
  if (kind != KinetoEventKind::kKernel) {
    // Every profiler-written copy and memset says its bytes (0 for an empty one): without them
    // its GB/s would be printed as if measured. Skipped and counted, as the nsys reader does.
    if (!event.args.bytes || *event.args.bytes < 0) {
      Skip(kGpuTable, "bytes missing or not a non-negative integer", Severity::kDataLoss);
      return;
    }
    bytes = static_cast<uint64_t>(*event.args.bytes);
    if (bytes > kByteCountLimit) {
      Skip(kGpuTable, "implausible byte count", Severity::kDataLoss);
      return;
    }
  }
  switch (kind) {
    case KinetoEventKind::kKernel:
      signature.engine = Engine::kKernel;
      signature.name = trace_.strings.Intern(event.name);
      if (full) {
        signature.grid = event.args.grid;
        signature.block = event.args.block;
        const std::optional<int64_t>& occupancy = event.args.est_occupancy_pct;
        if (occupancy && *occupancy >= 0 && *occupancy <= 100) {
          signature.est_occupancy_pct = static_cast<int8_t>(*occupancy);
        }
        // 0 % is a real (rounded) estimate for a grid too small to fill the GPU, but the
        // calculator's failure for a kernel above the 48 KB of shared memory it assumes.
        constexpr int64_t kDefaultSharedMemoryLimit = 48 * 1024;
        if (occupancy && *occupancy == 0 && event.args.shared_memory_bytes &&
            *event.args.shared_memory_bytes > kDefaultSharedMemoryLimit) {
          signature.est_occupancy_pct = kOccupancyEstimateFailed;
        }
      }
      break;
    case KinetoEventKind::kMemcpy: {
      std::optional<CopyShape> shape = ParseMemcpyName(event.name);
      if (!shape) {
        Skip(kGpuTable, "copy of unknown direction (name is not 'Memcpy HtoD|DtoH|DtoD|PtoP...')",
             Severity::kDataLoss);
        return;
      }
      signature.engine = shape->engine;
      if (full) {
        signature.src_kind = shape->src;
        signature.dst_kind = shape->dst;
        if (shape->engine == Engine::kP2P) {
          signature.src_device = static_cast<int32_t>(event.args.from_device.value_or(-1));
          signature.dst_device = static_cast<int32_t>(event.args.to_device.value_or(-1));
        }
      }
      break;
    }
    default:
      signature.engine = Engine::kMemset;
      if (full) signature.src_kind = ParseMemsetName(event.name);
      break;
  }
  StreamInfo info;
  info.device_id = static_cast<int32_t>(*device);
  info.stream_id = static_cast<uint32_t>(*stream);
  if (full) info.context_id = static_cast<uint32_t>(event.args.context.value_or(0));

  if (trace_.blocks.empty() || trace_.blocks.back().size() == kBlockOps) {
    // With the correlation ids even for engine load: duplicates are told by them (Finish()).
    trace_.blocks.emplace_back().Reserve(kBlockOps, true);
  }
  ActivityBlock& block = trace_.blocks.back();
  block.start_ns.push_back(start_ns);
  block.end_ns.push_back(end_ns);
  block.bytes.push_back(bytes);
  block.signature.push_back(SignatureId(signature));
  block.stream.push_back(StreamId(info));
  {
    // CUPTI's ids are 32-bit; a larger one (a hand-made or corrupt file) names no call, as calls
    // with one are read without it (AddApiCall): the op is kept, unjoined, and counted. Kept for
    // engine load too until Finish() has compared the ops (4 bytes an op), then freed.
    int64_t correlation = event.args.correlation.value_or(0);
    if (correlation < 0 || correlation > 0xFFFFFFFFLL) {
      if (full) ++out_of_range_correlations_;
      correlation = 0;
    }
    block.correlation.push_back(static_cast<uint32_t>(correlation));
  }
  block.engine.push_back(signature.engine);
  if (start_ns == end_ns) ++zero_duration_ops_;
  trace_.diagnostics.CountUsed(1);
}

void KinetoTraceBuilder::AddAnnotation(const KinetoEvent& event, bool on_gpu) {
  NvtxRange range;
  if (!ReadInterval(event, kAnnotationTable, &range.start_ns, &range.end_ns)) return;
  range.name = trace_.strings.Intern(event.name);
  range.start_end = false;
  range.on_gpu = on_gpu;
  if (on_gpu) {
    std::optional<int64_t> device = event.args.device ? event.args.device : NumericId(event.pid);
    if (!device || *device < 0 || *device > std::numeric_limits<int32_t>::max()) {
      Skip(kAnnotationTable, "GPU annotation without a device", Severity::kDataLoss);
      return;
    }
    range.device_id = static_cast<int32_t>(*device);
  } else {
    range.thread_id = ThreadKey(event.pid, event.tid);
    range.process_id = ProcessKey(event.pid);
  }
  trace_.nvtx_ranges.push_back(range);
  annotation_external_ids_.push_back(event.args.external_id.value_or(-1));
  trace_.diagnostics.CountUsed(1);
}

void KinetoTraceBuilder::PairAnnotationCopies() {
  std::vector<NvtxRange>& ranges = trace_.nvtx_ranges;
  // CPU annotations by (name, External id); without ids, by name in start order.
  std::map<std::pair<uint32_t, int64_t>, size_t> cpu_by_id;
  std::map<uint32_t, std::vector<size_t>> cpu_by_name;
  std::map<uint32_t, std::vector<size_t>> gpu_without_id;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].on_gpu) continue;
    cpu_by_name[ranges[i].name].push_back(i);
    if (annotation_external_ids_[i] >= 0)
      cpu_by_id.emplace(std::make_pair(ranges[i].name, annotation_external_ids_[i]), i);
  }
  std::vector<bool> paired(ranges.size(), false);
  auto join = [&](size_t cpu, size_t gpu) {
    NvtxRange& target = ranges[cpu];
    const NvtxRange& copy = ranges[gpu];
    if (!target.has_gpu_copy) {
      target.has_gpu_copy = true;
      target.gpu_copy_start_ns = copy.start_ns;
      target.gpu_copy_end_ns = copy.end_ns;
      target.gpu_copy_device_id = copy.device_id;
    } else {  // projected onto several streams: the span of all of them
      target.gpu_copy_start_ns = std::min(target.gpu_copy_start_ns, copy.start_ns);
      target.gpu_copy_end_ns = std::max(target.gpu_copy_end_ns, copy.end_ns);
    }
    paired[gpu] = true;
  };
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!ranges[i].on_gpu) continue;
    auto it = annotation_external_ids_[i] >= 0
                  ? cpu_by_id.find({ranges[i].name, annotation_external_ids_[i]})
                  : cpu_by_id.end();
    if (it != cpu_by_id.end()) {
      join(it->second, i);
    } else if (annotation_external_ids_[i] < 0) {
      gpu_without_id[ranges[i].name].push_back(i);
    }
  }
  // Files without External ids: the k-th GPU copy of a name is the k-th CPU instance's, when the
  // counts agree and each copy starts after its CPU range does (a projection cannot precede it).
  for (auto& [name, gpu] : gpu_without_id) {
    auto cpu = cpu_by_name.find(name);
    if (cpu == cpu_by_name.end() || cpu->second.size() != gpu.size()) continue;
    auto by_start = [&](size_t a, size_t b) { return ranges[a].start_ns < ranges[b].start_ns; };
    std::stable_sort(gpu.begin(), gpu.end(), by_start);
    std::vector<size_t>& cpus = cpu->second;
    std::stable_sort(cpus.begin(), cpus.end(), by_start);
    bool ordered = true;
    for (size_t k = 0; k < gpu.size() && ordered; ++k)
      ordered = ranges[gpu[k]].start_ns >= ranges[cpus[k]].start_ns;
    if (!ordered) continue;
    for (size_t k = 0; k < gpu.size(); ++k)
      join(cpus[k], gpu[k]);
  }
  const auto joined = static_cast<int64_t>(std::count(paired.begin(), paired.end(), true));
  if (joined == 0) return;
  size_t kept = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (!paired[i]) ranges[kept++] = ranges[i];
  }
  ranges.resize(kept);
  trace_.diagnostics.Note(fmt::format(
      "{} GPU-timeline annotation(s) (gpu_user_annotation) joined to the CPU annotation they "
      "project: one range each",
      joined));
}

void KinetoTraceBuilder::AddApiCall(const KinetoEvent& event) {
  // Only calls that may have launched GPU work are records (see CanLaunchGpuWork); Finish()
  // keeps those whose correlation names a traced op.
  if (!keep_calls_ || (!keep_all_calls_ && !CanLaunchGpuWork(event.name))) return;
  const bool has_correlation = event.args.correlation && *event.args.correlation > 0 &&
                               *event.args.correlation <= 0xFFFFFFFFLL;
  if (!has_correlation && !keep_all_calls_) return;
  trace_.diagnostics.CountRead(1);
  ApiCall call;
  if (!ReadInterval(event, kCallTable, &call.start_ns, &call.end_ns)) return;
  call.process_id = ProcessKey(event.pid);
  call.correlation = has_correlation ? static_cast<uint32_t>(*event.args.correlation) : 0;
  if (keep_launch_ends_) {
    if (launch_chunks_.empty() || launch_chunks_.back().full()) launch_chunks_.emplace_back();
    // ProcessKey is an InternedKeyPart: 32 bits.
    launch_chunks_.back().push_back(
        {call.start_ns, call.end_ns, static_cast<uint32_t>(call.process_id), call.correlation});
    return;
  }
  call.thread_id = ThreadKey(event.pid, event.tid);
  call.name = trace_.strings.Intern(event.name);
  if (call_chunks_.empty() || call_chunks_.back().full()) call_chunks_.emplace_back();
  call_chunks_.back().push_back(call);
}

void KinetoTraceBuilder::ShiftByBaseTime(int64_t& t) const {
  int64_t base = *base_time_ns_;
  if (__builtin_add_overflow(t, base, &t) || !TimestampInRange(t)) {
    throw InputError(trace_.source,
                     fmt::format("baseTimeNanoseconds {} makes timestamps overflow", base));
  }
}

namespace {

// An exact copy of a record already read: a file merged with itself or with an overlapping
// capture. CUPTI never reports one op or call twice, and counted twice they doubled the sums and
// made each launch look like a CUDA graph's (several ops per call).
constexpr std::string_view kDuplicateReason = "exact duplicate event";
constexpr size_t kDuplicateScan = 64;  // kept records of one start (one id) compared, at most

template <typename Call>
bool SameCall(const Call& a, const Call& b) {
  bool same = a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.process_id == b.process_id &&
              a.correlation == b.correlation;
  if constexpr (std::is_same_v<Call, ApiCall>) {
    same = same && a.thread_id == b.thread_id && a.name == b.name;
  }
  return same;
}

}  // namespace

template <typename Call>
std::vector<Call> KinetoTraceBuilder::JoinLaunchCalls(std::vector<MappedChunk<Call>>& chunks) {
  // Keep the calls whose correlation id names a traced op, and give each stream the host process
  // that launched onto it (a GPU row's pid is the device, not the process; with several
  // processes, AssignLaunchingProcesses splits a stream they share). Sorted vectors rather
  // than hash tables (4 bytes per op at the memory peak instead of ~40), and each chunk of calls
  // is freed as soon as it is copied. Calls come mostly in correlation order: the sorts check
  // first, and the ops are matched in one merge rather than a search per call.
  size_t calls_read = 0;
  for (const MappedChunk<Call>& chunk : chunks)
    calls_read += chunk.size();
  std::vector<Call> calls;
  calls.reserve(calls_read);
  for (MappedChunk<Call>& chunk : chunks) {
    calls.insert(calls.end(), chunk.begin(), chunk.end());
    MappedChunk<Call> freed = std::move(chunk);
  }
  chunks.clear();
  auto by_correlation = [](const Call& a, const Call& b) {
    return a.correlation != b.correlation ? a.correlation < b.correlation
                                          : a.process_id < b.process_id;
  };
  if (!std::is_sorted(calls.begin(), calls.end(), by_correlation))
    std::sort(calls.begin(), calls.end(), by_correlation);
  // Exact duplicates (see DropExactDuplicates): sorted by id, a copy lies among the calls of its
  // id and process. Calls without an id are not compared.
  size_t duplicate_calls = 0;
  {
    size_t kept = 0;
    size_t run = 0;
    for (size_t i = 0; i < calls.size(); ++i) {
      const Call call = calls[i];
      if (kept == 0 || calls[kept - 1].correlation != call.correlation ||
          calls[kept - 1].process_id != call.process_id) {
        run = kept;
      }
      bool duplicate = false;
      for (size_t j = kept;
           call.correlation != 0 && j > run && kept - j < kDuplicateScan && !duplicate; --j) {
        duplicate = SameCall(calls[j - 1], call);
      }
      if (!duplicate) calls[kept++] = call;
    }
    duplicate_calls = calls.size() - kept;
    duplicate_calls_ += static_cast<int64_t>(duplicate_calls);
    calls.resize(kept);
  }
  if (duplicate_calls > 0) {
    calls_read -= duplicate_calls;  // read, and counted as skipped rather than left uncounted
    trace_.diagnostics.Skip(kCallTable, kDuplicateReason, Severity::kInfo,
                            static_cast<int64_t>(duplicate_calls));
  }

  if (!keep_all_calls_) {  // asked for every call, launch or not: all are kept
    std::vector<uint32_t> op_correlations;
    op_correlations.reserve(trace_.activity_count());
    for (const ActivityBlock& block : trace_.blocks) {
      for (uint32_t c : block.correlation) {
        if (c != 0) op_correlations.push_back(c);
      }
    }
    if (!std::is_sorted(op_correlations.begin(), op_correlations.end()))
      std::sort(op_correlations.begin(), op_correlations.end());
    // Both sorted by correlation: one merge keeps the calls whose id an op has.
    size_t kept = 0;
    auto op = op_correlations.begin();
    for (const Call& call : calls) {
      while (op != op_correlations.end() && *op < call.correlation)
        ++op;
      if (op != op_correlations.end() && *op == call.correlation) {
        calls[kept++] = call;
      } else if constexpr (std::is_same_v<Call, ApiCall>) {
        trace_.calls_without_op.push_back(call);  // analyses say which ranges made them
      }
    }
    calls.resize(kept);
    // Most launch calls launched a traced op; when most did not, the spare room goes back.
    if (calls.size() < calls.capacity() / 2) calls.shrink_to_fit();
  }
  // Launch-like calls that launched no traced op are not records (like cpu_op events): the
  // launch may have failed, or its op fell outside the capture window (pytorch #192021).
  trace_.diagnostics.CountRead(-static_cast<int64_t>(calls_read - calls.size()));
  trace_.diagnostics.CountUsed(static_cast<int64_t>(calls.size()));

  if (base_time_ns_ && *base_time_ns_ != 0) {
    for (Call& call : calls) {
      ShiftByBaseTime(call.start_ns);
      ShiftByBaseTime(call.end_ns);
    }
    if constexpr (std::is_same_v<Call, ApiCall>) {
      for (ApiCall& call : trace_.calls_without_op) {
        ShiftByBaseTime(call.start_ns);
        ShiftByBaseTime(call.end_ns);
      }
    }
  }

  bool one_process = std::all_of(calls.begin(), calls.end(), [&](const Call& call) {
    return call.process_id == calls[0].process_id;
  });
  if (one_process) {
    const uint64_t only_process = calls.empty() ? 0 : calls[0].process_id;
    for (StreamInfo& stream : trace_.streams)
      stream.process_id = only_process;
  } else if (const ProcessPlacement placed =
                 AssignLaunchingProcesses(trace_, LaunchCallsOf(trace_, calls));
             placed.by_stream + placed.by_fit + placed.by_time + placed.undecided > 0) {
    trace_.diagnostics.Note(fmt::format(
        "{} GPU op(s) carry a correlation id that calls of several host processes have: {} given "
        "the only process that launched other ops onto their stream, {} the process whose calls "
        "could have launched (started before) most such ops of their device, {} joined by time to "
        "the call of that id that started last but not after the op did, on streams several "
        "processes launched onto; guesses, wrong where hosts and GPUs keep different clocks or "
        "queue depths; {} not joined, as nothing tells which process launched them (counted as "
        "lacking their launching call)",
        placed.by_stream + placed.by_fit + placed.by_time + placed.undecided, placed.by_stream,
        placed.by_fit, placed.by_time, placed.undecided));
  }

  // One process: sorted by correlation is sorted by (process, correlation) already.
  auto by_process = [](const Call& a, const Call& b) {
    return a.process_id != b.process_id ? a.process_id < b.process_id
                                        : a.correlation < b.correlation;
  };
  if (!one_process) std::sort(calls.begin(), calls.end(), by_process);
  return calls;
}

Trace KinetoTraceBuilder::Finish() {
  if (base_time_ns_ && *base_time_ns_ != 0) {
    for (ActivityBlock& block : trace_.blocks) {
      for (int64_t& t : block.start_ns)
        ShiftByBaseTime(t);
      for (int64_t& t : block.end_ns)
        ShiftByBaseTime(t);
    }
    for (NvtxRange& range : trace_.nvtx_ranges) {
      ShiftByBaseTime(range.start_ns);
      ShiftByBaseTime(range.end_ns);
    }
  }
  if (keep_launch_ends_) {
    std::vector<ParsedLaunchEnd> launches = JoinLaunchCalls(launch_chunks_);
    trace_.launch_ends.reserve(launches.size());
    for (const ParsedLaunchEnd& launch : launches)
      trace_.launch_ends.push_back({launch.end_ns, launch.process_id, launch.correlation});
  } else {
    trace_.api_calls = JoinLaunchCalls(call_chunks_);
  }
  PairAnnotationCopies();
  std::stable_sort(trace_.nvtx_ranges.begin(), trace_.nvtx_ranges.end(),
                   [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
  // No ShrinkToFit: it would copy every column; capacity never written is not resident.
  int64_t duplicates = 0;
  for (ActivityBlock& block : trace_.blocks) {
    block.SortByStart();
    duplicates += static_cast<int64_t>(DropExactDuplicates(block));
  }
  // A copy in another block of 2^18 ops (a file merged with itself lies that far apart).
  for (size_t removed : DropExactDuplicatesAcrossBlocks(trace_.blocks))
    duplicates += static_cast<int64_t>(removed);
  std::erase_if(trace_.blocks, [](const ActivityBlock& block) { return block.size() == 0; });
  if (detail_ == ReadDetail::kEngineLoad) {
    for (ActivityBlock& block : trace_.blocks)
      Column<uint32_t>().swap(block.correlation);
  }
  if (duplicates > 0) {
    trace_.diagnostics.CountUsed(-duplicates);
    trace_.diagnostics.Skip(kGpuTable, kDuplicateReason, Severity::kInfo, duplicates);
  }
  if (duplicates > 0 || duplicate_calls_ > 0) {
    // Said, not implied by the skip count: the CPU-side ranges of such a file are still doubled.
    // With keep_all_calls_ (api, report) every CUDA API call is checked, launch or not.
    const std::string_view calls = keep_all_calls_ ? "CUDA API call" : "launch call";
    trace_.diagnostics.Note(fmt::format(
        "{} exact duplicate GPU op(s){} were dropped (a file merged with itself?); only GPU ops "
        "and {}s are checked: CPU ranges (annotations, NVTX, ProfilerStep) are not, and may be "
        "counted twice",
        duplicates,
        duplicate_calls_ > 0 ? fmt::format(" and {} {}(s)", duplicate_calls_, calls) : "", calls));
  }
  std::sort(trace_.devices.begin(), trace_.devices.end(),
            [](const DeviceInfo& a, const DeviceInfo& b) { return a.id < b.id; });

  ClassifyCollectiveKernels(trace_);
  NoteFarOutlyingOps(trace_);
  trace_.metadata["kineto_events"] = std::to_string(events_);
  if (out_of_range_correlations_ > 0) {
    trace_.diagnostics.Note(fmt::format(
        "{} GPU op(s) carry a correlation id outside 0..2^32-1 (CUPTI's are 32-bit): kept, joined "
        "to no launching call",
        out_of_range_correlations_));
  }
  if (zero_duration_ops_ > 0) {
    trace_.diagnostics.Note(fmt::format(
        "{} GPU op(s) have zero duration (the file's timestamps are whole microseconds); they are "
        "kept and counted",
        zero_duration_ops_));
  }
  return std::move(trace_);
}

}  // namespace gpuroof
