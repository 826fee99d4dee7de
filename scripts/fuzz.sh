#!/usr/bin/env bash
# Long fuzzing runs (docs/reliability.md). Builds the libFuzzer targets with clang-14 (preset
# `fuzz`: ASan + UBSan + coverage) and fuzzes TARGET (or every target in turn) for SECONDS each.
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]     default: all, 300 seconds per target
#   scripts/fuzz.sh --merge TARGET             minimise fuzz/corpus/TARGET with what runs found
#
# Seeds: fuzz/corpus/TARGET, plus the shared real-world fixtures where a target reads them
# (../shared/fixtures; read only, never copied into the repository). New inputs collect in
# build/fuzz/work/TARGET; crashes land in build/fuzz/artifacts/. `--merge` keeps the inputs that
# add coverage (libFuzzer -merge=1) and always keeps the named regression inputs (finding*).
set -euo pipefail
cd "$(dirname "$0")/.."

targets=(kineto_json trace_file nsys_schema sweep_toml history_jsonl)
fixtures="$(pwd)/../shared/fixtures"

if ! command -v clang++-14 >/dev/null; then
  echo "fuzz.sh: needs clang-14 with libFuzzer (Debian: apt-get install clang-14)" >&2
  exit 2
fi

build() {
  cmake --preset fuzz >/dev/null
  cmake --build build/fuzz --target "${@/#/fuzz_}"
}

seeds_for() {
  case "$1" in
    trace_file)
      [ -d "$fixtures/kineto" ] && echo "$fixtures/kineto"
      [ -d "$fixtures/nsys" ] && echo "$fixtures/nsys"
      ;;
  esac
  return 0
}

max_len_for() {
  case "$1" in
    trace_file) echo 65536 ;;  # small SQLite files and gzip members
    *) echo 8192 ;;
  esac
}

if [ "${1:-}" = "--merge" ]; then
  target="${2:?usage: scripts/fuzz.sh --merge TARGET}"
  build "$target"
  fresh="build/fuzz/merged/$target"
  rm -rf "$fresh" && mkdir -p "$fresh" "build/fuzz/work/$target"
  # Edges only (no hit counters or comparison features): the smallest corpus with the same coverage.
  "build/fuzz/fuzz/fuzz_$target" -merge=1 -use_counters=0 -use_cmp=0 -use_value_profile=0 \
    "$fresh" "fuzz/corpus/$target" "build/fuzz/work/$target"
  cp fuzz/corpus/"$target"/finding* "$fresh"/ 2>/dev/null || true
  rm -rf "fuzz/corpus/$target" && mv "$fresh" "fuzz/corpus/$target"
  echo "fuzz.sh: fuzz/corpus/$target now holds $(ls "fuzz/corpus/$target" | wc -l) inputs" >&2
  exit 0
fi

which="${1:-all}"
seconds="${2:-300}"
if [ "$which" = "all" ]; then selected=("${targets[@]}"); else selected=("$which"); fi
build "${selected[@]}"
mkdir -p build/fuzz/artifacts
for target in "${selected[@]}"; do
  mkdir -p "build/fuzz/work/$target"
  mapfile -t extra < <(seeds_for "$target")
  echo "fuzz.sh: $target for ${seconds}s" >&2
  "build/fuzz/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len="$(max_len_for "$target")" -print_final_stats=1 \
    -artifact_prefix="build/fuzz/artifacts/$target-" \
    "build/fuzz/work/$target" "fuzz/corpus/$target" "${extra[@]}"
done
