#include "gpuroof/readers/nsys_enums.h"

#include <array>
#include <utility>

namespace gpuroof {

namespace {

// CUPTI/nsys copy kinds (ENUM_CUDA_MEMCPY_OPER), with their built-in ids (identical in every nsys
// version seen, 2020 -> 2026). Array copies run on the same engines as the host<->device or
// device-local copies they resemble; kind 0 (unknown) has no engine.
struct CopyKind {
  int64_t builtin_id;
  std::string_view symbol;
  Engine engine;
};
constexpr std::array<CopyKind, 13> kCopyKinds = {{
    {1, "CUDA_MEMCPY_KIND_HTOD", Engine::kH2D},
    {2, "CUDA_MEMCPY_KIND_DTOH", Engine::kD2H},
    {3, "CUDA_MEMCPY_KIND_HTOA", Engine::kH2D},
    {4, "CUDA_MEMCPY_KIND_ATOH", Engine::kD2H},
    {5, "CUDA_MEMCPY_KIND_ATOA", Engine::kD2D},
    {6, "CUDA_MEMCPY_KIND_ATOD", Engine::kD2D},
    {7, "CUDA_MEMCPY_KIND_DTOA", Engine::kD2D},
    {8, "CUDA_MEMCPY_KIND_DTOD", Engine::kD2D},
    {9, "CUDA_MEMCPY_KIND_HTOH", Engine::kH2H},
    {10, "CUDA_MEMCPY_KIND_PTOP", Engine::kP2P},
    {11, "CUDA_MEMCPY_KIND_UVM_HTOD", Engine::kUvmH2D},
    {12, "CUDA_MEMCPY_KIND_UVM_DTOH", Engine::kUvmD2H},
    {13, "CUDA_MEMCPY_KIND_UVM_DTOD", Engine::kUvmD2D},
}};

// nsys's own memory-kind numbering (not CUPTI's): the enum value is the id.
constexpr std::array<std::pair<std::string_view, MemoryKind>, 8> kMemorySymbols = {{
    {"CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", MemoryKind::kPageable},
    {"CUDA_MEMOPR_MEMORY_KIND_PINNED", MemoryKind::kPinned},
    {"CUDA_MEMOPR_MEMORY_KIND_DEVICE", MemoryKind::kDevice},
    {"CUDA_MEMOPR_MEMORY_KIND_ARRAY", MemoryKind::kArray},
    {"CUDA_MEMOPR_MEMORY_KIND_MANAGED", MemoryKind::kManaged},
    {"CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", MemoryKind::kDeviceStatic},
    {"CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", MemoryKind::kManagedStatic},
    {"CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", MemoryKind::kUnknown},
}};

}  // namespace

NsysEnums::NsysEnums() {
  copy_sources_.fill(Source::kNone);
  for (const CopyKind& kind : kCopyKinds) {
    copy_engines_[static_cast<size_t>(kind.builtin_id)] = kind.engine;
    copy_sources_[static_cast<size_t>(kind.builtin_id)] = Source::kTable;
  }
  // nsys's numbering is the enum's own order: id k is the k-th kind.
  memory_kinds_.fill(MemoryKind::kUnknown);
  memory_sources_.fill(Source::kNone);
  for (const auto& [symbol, kind] : kMemorySymbols) {
    memory_kinds_[static_cast<size_t>(kind)] = kind;
    memory_sources_[static_cast<size_t>(kind)] = Source::kTable;
  }
}

namespace {
bool SmallId(int64_t id, size_t max) {
  return id >= 0 && id < static_cast<int64_t>(max);
}
}  // namespace

void NsysEnums::SetCopyKinds(const std::unordered_map<int64_t, std::string>& id_to_symbol) {
  copy_engines_.fill(std::nullopt);
  copy_sources_.fill(Source::kNone);
  large_copy_engines_.clear();
  conflicting_copy_ids_.clear();
  std::unordered_map<std::string_view, int64_t> id_of_symbol;
  for (const auto& [id, symbol] : id_to_symbol) {
    const std::optional<Engine> engine = EngineFromCopySymbol(symbol);
    id_of_symbol.emplace(symbol, id);
    if (SmallId(id, kMaxId)) {
      copy_engines_[static_cast<size_t>(id)] = engine;
      copy_sources_[static_cast<size_t>(id)] = engine ? Source::kTable : Source::kNone;
    } else {
      large_copy_engines_[id] = engine;
    }
  }
  // A partial table: an id it lacks keeps its built-in meaning, unless the file gives that
  // meaning to another id (renumbered: the id is then unknown, and said).
  for (const CopyKind& kind : kCopyKinds) {
    if (id_to_symbol.count(kind.builtin_id) > 0) continue;
    if (id_of_symbol.count(kind.symbol) > 0) {
      conflicting_copy_ids_.push_back(kind.builtin_id);
      continue;
    }
    copy_engines_[static_cast<size_t>(kind.builtin_id)] = kind.engine;
    copy_sources_[static_cast<size_t>(kind.builtin_id)] = Source::kBuiltIn;
  }
}

void NsysEnums::SetMemoryKinds(const std::unordered_map<int64_t, std::string>& id_to_symbol) {
  memory_kinds_.fill(MemoryKind::kUnknown);
  memory_sources_.fill(Source::kNone);
  large_memory_kinds_.clear();
  conflicting_memory_ids_.clear();
  std::unordered_map<std::string_view, int64_t> id_of_symbol;
  for (const auto& [id, symbol] : id_to_symbol) {
    id_of_symbol.emplace(symbol, id);
    auto kind = MemoryFromSymbol(symbol);
    if (!kind) continue;  // a symbol gpuroof does not know: the id stays unknown
    if (SmallId(id, kMaxId)) {
      memory_kinds_[static_cast<size_t>(id)] = *kind;
      memory_sources_[static_cast<size_t>(id)] = Source::kTable;
    } else {
      large_memory_kinds_[id] = *kind;
    }
  }
  for (const auto& [symbol, kind] : kMemorySymbols) {
    const auto id = static_cast<int64_t>(kind);
    if (id_to_symbol.count(id) > 0) continue;
    if (id_of_symbol.count(symbol) > 0) {
      conflicting_memory_ids_.push_back(id);
      continue;
    }
    memory_kinds_[static_cast<size_t>(id)] = kind;
    memory_sources_[static_cast<size_t>(id)] = Source::kBuiltIn;
  }
}

std::optional<Engine> NsysEnums::CopyEngine(int64_t copy_kind) const {
  if (!SmallId(copy_kind, kMaxId)) {
    auto it = large_copy_engines_.find(copy_kind);
    return it == large_copy_engines_.end() ? std::nullopt : it->second;
  }
  return copy_engines_[static_cast<size_t>(copy_kind)];
}

MemoryKind NsysEnums::Memory(int64_t memory_kind) const {
  if (!SmallId(memory_kind, kMaxId)) {
    auto it = large_memory_kinds_.find(memory_kind);
    return it == large_memory_kinds_.end() ? MemoryKind::kUnknown : it->second;
  }
  return memory_kinds_[static_cast<size_t>(memory_kind)];
}

NsysEnums::Source NsysEnums::CopySource(int64_t copy_kind) const {
  if (!SmallId(copy_kind, kMaxId)) {
    auto it = large_copy_engines_.find(copy_kind);
    return it != large_copy_engines_.end() && it->second ? Source::kTable : Source::kNone;
  }
  return copy_sources_[static_cast<size_t>(copy_kind)];
}

NsysEnums::Source NsysEnums::MemorySource(int64_t memory_kind) const {
  if (!SmallId(memory_kind, kMaxId)) {
    return large_memory_kinds_.count(memory_kind) > 0 ? Source::kTable : Source::kNone;
  }
  return memory_sources_[static_cast<size_t>(memory_kind)];
}

std::optional<Engine> NsysEnums::EngineFromCopySymbol(std::string_view symbol) {
  for (const CopyKind& kind : kCopyKinds) {
    if (kind.symbol == symbol) return kind.engine;
  }
  return std::nullopt;
}

std::optional<MemoryKind> NsysEnums::MemoryFromSymbol(std::string_view symbol) {
  for (const auto& [name, kind] : kMemorySymbols) {
    if (name == symbol) return kind;
  }
  return std::nullopt;
}

}  // namespace gpuroof
