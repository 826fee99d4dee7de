#!/usr/bin/env bash
# Installs the dependencies, builds gpuroof (release), and analyzes the bundled example trace:
# a 4-stream frame pipeline whose answers are worked out by hand in docs/metrics.md.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build/demo -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUROOF_BUILD_TESTS=OFF >/dev/null
cmake --build build/demo --target gpuroof
build/demo/src/gpuroof analyze examples/frame_pipeline.sqlite --units 2000 --unit-name frame
