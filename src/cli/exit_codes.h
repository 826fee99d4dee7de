#pragma once

namespace gpuroof {

// Process exit codes (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitCheckFailed = 1;  // a regression, a refused guard, --strict data loss
inline constexpr int kExitBadInput = 2;     // bad usage, input or output
inline constexpr int kExitInternalError = 3;

}  // namespace gpuroof
