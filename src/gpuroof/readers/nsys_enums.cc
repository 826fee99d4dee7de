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
  for (const CopyKind& kind : kCopyKinds)
    copy_engines_[static_cast<size_t>(kind.builtin_id)] = kind.engine;
  // nsys's numbering is the enum's own order: id k is the k-th kind.
  memory_kinds_.fill(MemoryKind::kUnknown);
  for (const auto& [symbol, kind] : kMemorySymbols)
    memory_kinds_[static_cast<size_t>(kind)] = kind;
}

void NsysEnums::SetCopyKinds(const std::unordered_map<int64_t, std::string>& id_to_symbol) {
  copy_engines_.fill(std::nullopt);
  for (const auto& [id, symbol] : id_to_symbol) {
    if (id >= 0 && id < static_cast<int64_t>(kMaxId)) {
      copy_engines_[static_cast<size_t>(id)] = EngineFromCopySymbol(symbol);
    }
  }
}

void NsysEnums::SetMemoryKinds(const std::unordered_map<int64_t, std::string>& id_to_symbol) {
  memory_kinds_.fill(MemoryKind::kUnknown);
  for (const auto& [id, symbol] : id_to_symbol) {
    auto kind = MemoryFromSymbol(symbol);
    if (kind && id >= 0 && id < static_cast<int64_t>(kMaxId)) {
      memory_kinds_[static_cast<size_t>(id)] = *kind;
    }
  }
}

std::optional<Engine> NsysEnums::CopyEngine(int64_t copy_kind) const {
  if (copy_kind < 0 || copy_kind >= static_cast<int64_t>(kMaxId)) return std::nullopt;
  return copy_engines_[static_cast<size_t>(copy_kind)];
}

MemoryKind NsysEnums::Memory(int64_t memory_kind) const {
  if (memory_kind < 0 || memory_kind >= static_cast<int64_t>(kMaxId)) return MemoryKind::kUnknown;
  return memory_kinds_[static_cast<size_t>(memory_kind)];
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
