// The tables of an nsys SQLite export that the readers read (docs/formats.md, "Inputs"), named
// once for the activity reader and the API-call reader.
#pragma once

#include <string_view>

namespace gpuroof::nsys_tables {

inline constexpr std::string_view kStrings = "StringIds";
inline constexpr std::string_view kKernel = "CUPTI_ACTIVITY_KIND_KERNEL";
inline constexpr std::string_view kMemcpy = "CUPTI_ACTIVITY_KIND_MEMCPY";
inline constexpr std::string_view kMemset = "CUPTI_ACTIVITY_KIND_MEMSET";
inline constexpr std::string_view kGraph = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
inline constexpr std::string_view kRuntime = "CUPTI_ACTIVITY_KIND_RUNTIME";
inline constexpr std::string_view kNvtx = "NVTX_EVENTS";

}  // namespace gpuroof::nsys_tables
