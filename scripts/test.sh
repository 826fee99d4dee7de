#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: installs the dependencies, checks the
# formatting, then configures, builds and runs every test twice: under ASan + UBSan
# (`--preset ci`) and as an optimised release build with the benchmarks (`--preset ci-release`,
# where GCC's optimiser finds warnings a debug build does not), both with warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

# Formatting is part of the suite: clang-format must leave every C++ file unchanged.
mapfile -t sources < <(git ls-files '*.h' '*.cc' 2>/dev/null || find src tests bench -name '*.h' -o -name '*.cc')
if [ ${#sources[@]} -gt 0 ]; then
  clang-format --dry-run --Werror "${sources[@]}"
fi

cmake --workflow --preset ci
cmake --workflow --preset ci-release
