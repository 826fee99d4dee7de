// What a Kineto (PyTorch profiler) trace event is, from its category and name
// (docs/formats.md, "Kineto JSON traces"), and the decimal time text parser.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "gpuroof/model/engine.h"
#include "gpuroof/model/trace.h"

namespace gpuroof {

enum class KinetoEventKind : uint8_t {
  kKernel,            // kernel / Kernel
  kMemcpy,            // gpu_memcpy / Memcpy
  kMemset,            // gpu_memset / Memset
  kCpuAnnotation,     // user_annotation / User (record_function, ProfilerStep#N)
  kGpuAnnotation,     // gpu_user_annotation (a CPU range projected onto a GPU stream row)
  kRuntimeCall,       // cuda_runtime / cuda_driver / Runtime (legacy)
  kGpuNotEngineWork,  // cuda_sync, cuda_event, hardware_counters: on GPU rows, never busy time
  kOther,             // cpu_op, python_function, flows, metadata, ...: not used
  kUnknownCategory,   // a category none of the above: read whole, and when it sits on a GPU
                      // stream (args.stream, or a "stream N" row) skipped and counted
};

// Classifies by category, case-insensitively, legacy names included (1.8 capitalised ones and the
// 2021-2022 typo "gpu_user_Annotation").
KinetoEventKind ClassifyKinetoCategory(std::string_view category);

// A copy's engine and memory kinds from its name, "Memcpy <kind> (<src> -> <dst>)". Array kinds
// follow nsys's copy kinds (HtoA H2D, AtoH D2H, AtoD/DtoA/AtoA D2D). Unknown kinds ("<unknown>")
// give nullopt: the caller counts the event as skipped.
struct CopyShape {
  Engine engine = Engine::kH2D;
  MemoryKind src = MemoryKind::kUnknown;
  MemoryKind dst = MemoryKind::kUnknown;
};
std::optional<CopyShape> ParseMemcpyName(std::string_view name);

// A memset's memory kind from "Memset (<memory>)" (kUnknown when absent).
MemoryKind ParseMemsetName(std::string_view name);

// Memory kind from Kineto's names ("Pageable", "Pinned", "Device", "Array", "Managed",
// "Device Static", "Managed Static"). Else kUnknown, ROCm's "Host" included: its writer names the
// sides from the copy kind alone, so "Host" may be pinned or pageable memory.
MemoryKind ParseMemoryKind(std::string_view text);

// Parses a JSON number text in microseconds ("12", "1365627866520.196", "-3", "1.5e3") into
// nanoseconds exactly, with integer arithmetic only: digits beyond the nanosecond are truncated
// toward zero. nullopt when the text is not a number or the value does not fit int64 ns.
std::optional<int64_t> ParseMicrosecondsAsNs(std::string_view text);

// Parses a decimal integer ("-1", "4294967295", "7"); nullopt when not one or out of int64.
std::optional<int64_t> ParseInteger(std::string_view text);

}  // namespace gpuroof
