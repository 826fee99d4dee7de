#!/usr/bin/env bash
# bench/kineto_bench.sh [BUILD_DIR [SIZE_MB]]
#
# The Kineto reader benchmark of docs/performance.md ("Kineto JSON reader"): writes a synthetic
# PyTorch-profiler trace of SIZE_MB (default 1100) MB, then runs, 3 times interleaved,
# `gpuroof analyze` on it (single-threaded ingest + analysis; wall time, CPU time and peak RSS
# from /usr/bin/time) and simdjson's own On Demand walk over the same file (in memory).
# Prints MB/s of uncompressed JSON, bytes of peak RSS per GPU op, and the ratio to simdjson.
set -euo pipefail
build=${1:-build/release}
size_mb=${2:-1100}
gpuroof=$build/src/gpuroof
make_trace=$build/bench/gpuroof-make-kineto-bench-trace
baseline=$build/bench/gpuroof-kineto-simdjson-baseline
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trace=$dir/bench.pt.trace.json
"$make_trace" "$size_mb" "$trace" 2> "$dir/make.log"
cat "$dir/make.log" >&2
ops=$(sed -n 's/.*: \([0-9]*\) GPU ops.*/\1/p' "$dir/make.log")
bytes=$(stat -c %s "$trace")
cat "$trace" > /dev/null  # page cache: every run reads from memory
echo "file: $bytes bytes, $ops GPU ops; CPUs busy: $(uptime | sed 's/.*load average: //')"
for run in 1 2 3; do
  /usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$gpuroof" analyze "$trace" > /dev/null
  read -r wall user sys rss_kb < "$dir/time"
  awk -v w="$wall" -v u="$user" -v s="$sys" -v r="$rss_kb" -v b="$bytes" -v n="$ops" 'BEGIN {
    printf "run %d: analyze %.2f s wall (%.0f MB/s), %.2f s CPU (%.0f MB/s), peak %.1f MiB = %.1f B/GPU op\n",
      '"$run"', w, b / 1e6 / w, u + s, b / 1e6 / (u + s), r / 1024, r * 1024 / n }'
  "$baseline" "$trace" | sed "s/^/run $run: simdjson On Demand walk: /"
done
