// PyTorch's `.item()` on a CUDA tensor, as Kineto traces record it.
#pragma once

#include <string_view>

namespace gpuroof {

// The host-side op of `.item()` (Kineto cpu_op `aten::_local_scalar_dense`). Readers asked for
// every API call keep it among Trace::api_calls (correlation 0): it blocks the host until the GPU
// has produced the value, which the findings need to name.
inline constexpr std::string_view kScalarReadOpName = "aten::_local_scalar_dense";

}  // namespace gpuroof
