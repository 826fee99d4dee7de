#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

// How nsys's numeric codes map onto the model. Built-in tables follow the values verified in
// real exports (docs/formats.md, "Inputs"); a file's own ENUM_* tables override them by
// symbol name, so a file that renumbered a value is still read correctly.
class NsysEnums {
 public:
  NsysEnums();  // the built-in tables

  // Replaces the copy-kind table with one read from ENUM_CUDA_MEMCPY_OPER rows (id, name).
  // Unknown symbol names map to nothing (those copies are skipped and counted).
  void SetCopyKinds(const std::unordered_map<int64_t, std::string>& id_to_symbol);
  // Replaces the memory-kind table with ENUM_CUDA_MEM_KIND rows (id, name).
  void SetMemoryKinds(const std::unordered_map<int64_t, std::string>& id_to_symbol);

  // The engine a copy of kind `copy_kind` occupies, or nothing for unknown kinds.
  std::optional<Engine> CopyEngine(int64_t copy_kind) const;
  MemoryKind Memory(int64_t memory_kind) const;

  // Where an id's meaning came from: the file's table (or the built-in one when the file has
  // none), the built-in table because the file's table lacks the id (a partial table), or
  // nowhere (an id neither table knows: Memory() says kUnknown, CopyEngine() nothing).
  enum class Source : uint8_t { kTable, kBuiltIn, kNone };
  Source CopySource(int64_t copy_kind) const;
  Source MemorySource(int64_t memory_kind) const;
  // Built-in ids a file's table lacked but named elsewhere, so they were left unknown rather
  // than guessed (the file renumbered them): "conflicting" ids, for a note.
  const std::vector<int64_t>& conflicting_copy_ids() const { return conflicting_copy_ids_; }
  const std::vector<int64_t>& conflicting_memory_ids() const { return conflicting_memory_ids_; }

  // Visible for testing: maps a symbol such as "CUDA_MEMCPY_KIND_HTOD" to its engine.
  static std::optional<Engine> EngineFromCopySymbol(std::string_view symbol);
  // Visible for testing: maps "CUDA_MEMOPR_MEMORY_KIND_PINNED" to MemoryKind::kPinned.
  static std::optional<MemoryKind> MemoryFromSymbol(std::string_view symbol);

 private:
  // Indexed by id: enum ids are small (0-13 and 0-7 in every version); a larger id is unknown.
  static constexpr size_t kMaxId = 64;
  std::array<std::optional<Engine>, kMaxId> copy_engines_{};
  std::array<MemoryKind, kMaxId> memory_kinds_{};
  std::array<Source, kMaxId> copy_sources_{};
  std::array<Source, kMaxId> memory_sources_{};
  // A file's ids outside [0, kMaxId): followed by symbol name like the others.
  std::unordered_map<int64_t, std::optional<Engine>> large_copy_engines_;
  std::unordered_map<int64_t, MemoryKind> large_memory_kinds_;
  std::vector<int64_t> conflicting_copy_ids_;
  std::vector<int64_t> conflicting_memory_ids_;
};

}  // namespace gpuroof
