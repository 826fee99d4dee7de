// CUPTI and nsys number some enums differently; the recorder writes nsys's numbering so that
// every reader of nsys exports reads its files unchanged.
#pragma once

#include <cstdint>

namespace gpuroof::recorder {

// nsys ENUM_CUDA_MEM_KIND ids: 0 Pageable, 1 Pinned, 2 Device, 3 Array, 4 Managed,
// 5 Device Static, 6 Managed Static, 7 Unknown. CUPTI puts Unknown at 0 and shifts the rest up
// by one; values CUPTI may add later map to Unknown rather than to a wrong kind.
inline constexpr int kNsysMemoryKindUnknown = 7;
int NsysMemoryKind(int cupti_memory_kind);

// CUpti_ActivityMemcpyKind and nsys ENUM_CUDA_MEMCPY_OPER agree on 0 Unknown ... 10 PtoP.
// nsys's 11-13 come from unified-memory counters, which the recorder never produces; anything
// else is written as 0 (Unknown) so that readers count it instead of misfiling it.
int NsysCopyKind(int cupti_copy_kind);

// nsys packs process and thread ids as (vm << 48) | (pid << 24) | tid with VM id 1; readers
// decode pid with (value >> 24) & 0xFFFFFF.
int64_t NsysGlobalPid(uint32_t pid);
int64_t NsysGlobalTid(uint32_t pid, uint32_t tid);

}  // namespace gpuroof::recorder
