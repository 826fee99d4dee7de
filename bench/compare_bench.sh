#!/usr/bin/env bash
# Whole-process benchmark of `gpuroof compare` on two profiles of 1 million kernel launches each,
# side by side with the sqlite3 shell scanning the columns that mode reads from both files (the
# floor any SQLite reader pays). The profiles are gpuroof-make-bench-trace's frame pipeline (one
# kernel, one H2D and one D2H copy per frame; 3 M activities and, with iterations, 3 M runtime
# calls per profile), the current one with every kernel 10 % slower and another jitter seed, so
# the gate has real work and a known answer: REGRESSED, exit 1. Two modes:
#   launches   compare --baseline A --current B                  (per-launch samples; reads the
#                                                                  kernel table only)
#   iterations compare ... --iteration-range frame_batch         (10,000 iterations of 100 frames,
#                                                                  attributed through 3 M runtime
#                                                                  calls per profile)
# and for each the sqlite3 scan of that mode's columns (the SELECT lists of the nsys reader for a
# compare read: nsys_sqlite_reader.cc ColumnsOf without the memory kinds and demangled names,
# nsys_api_calls.cc, NVTX_EVENTS), file after file, summed with total() so nothing is printed. Runs are interleaved (gpuroof, sqlite3, gpuroof, ...), REPS each
# (default 3): median wall time, largest peak RSS (GNU time), ratio gpuroof / sqlite3.
# Goals (issue 5 and issue 14): launches median wall < MAX_WALL_S (default 2); iterations median
# wall <= MAX_RATIO (default 1.1) x its sqlite3 scan; both modes find the regression.
# Exits 0 when every goal passes, 1 when one fails, 2 on a usage or tool error.
#
# Builds nothing itself. Build first (Release, benchmarks on):
#   cmake --preset release && cmake --build build/release --target gpuroof gpuroof-make-bench-trace
#   bench/compare_bench.sh [GPUROOF [MAKE_BENCH_TRACE]]
# Environment (all optional): GPUROOF, MAKE_BENCH_TRACE, BENCH_DIR (traces, reused), FRAMES
# (default 1000000), REPS, MAX_WALL_S (default 2), MAX_RATIO (default 1.1), CANDIDATE (a second
# gpuroof binary, e.g. an older build, timed in the same interleaved runs; informational).
set -euo pipefail

bench_name=compare_bench.sh
# shellcheck source=bench/bench_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
bench_setup "$@"
frames=${FRAMES:-1000000}
max_wall_s=${MAX_WALL_S:-2}
[[ $frames =~ ^[1-9][0-9]*$ ]] || die "FRAMES must be a positive number, got '$frames'"

activities=$((3 * frames))
base=$bench_dir/compare_base_$frames.sqlite
current=$bench_dir/compare_current_$frames.sqlite
[[ -s $base ]] || "$make_trace" "$activities" "$base" --iteration-frames 100 >/dev/null ||
  die "cannot write $base"
[[ -s $current ]] || "$make_trace" "$activities" "$current" --iteration-frames 100 --seed 1 \
  --kernel-scale 1.10 >/dev/null || die "cannot write $current"
cat "$base" "$current" >/dev/null  # warm the page cache, as a re-run would find it

command -v sqlite3 >/dev/null || die "the sqlite3 command-line tool is needed"
max_ratio=${MAX_RATIO:-1.1}
candidate=${CANDIDATE:-}
[[ -z $candidate || -x $candidate ]] || die "no candidate binary at '$candidate'"

# The sqlite3 scan of what a mode reads: the kernel table (launches), or every activity table,
# the runtime calls with a correlation id and the NVTX ranges (iterations).
# One aggregate over the sum of a row's columns: every column is visited, with one function call
# per row (fifteen total()s would cost sqlite3 half as much again).
kernel_scan='SELECT total(start + "end" + deviceId + contextId + streamId + correlationId +
  globalPid + shortName + gridX + gridY + gridZ + blockX + blockY + blockZ)
  FROM CUPTI_ACTIVITY_KIND_KERNEL;'
iteration_scan="$kernel_scan"'
SELECT total(start + "end" + deviceId + contextId + streamId + correlationId + globalPid + bytes +
  copyKind) FROM CUPTI_ACTIVITY_KIND_MEMCPY;
SELECT total(start + "end" + globalTid + correlationId)
  FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE correlationId IS NOT NULL AND correlationId != 0;
SELECT total(start + "end" + eventType + length(text) + globalTid) FROM NVTX_EVENTS;'
for file in "$base" "$current"; do
  sqlite3 "$file" "$iteration_scan" >/dev/null 2>"$work/err" ||
    die "sqlite3 cannot scan $file: $(head -n 1 "$work/err")"
done

# run LOG COMMAND...: one timed run; appends "wall rss exit" to LOG.
run() {
  local log=$1 code=0 wall rss
  shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || code=$?
  # GNU time puts "Command exited with non-zero status N" first when the gate fails (exit 1).
  read -r wall rss < <(tail -n 1 "$work/time")
  echo "$wall $rss $code" >>"$log"
}

status=0
echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $reps interleaved runs each"
printf '%-11s %-8s %10s %12s %6s %16s %8s\n' mode tool "wall s" "peak RSS MB" exit "x sqlite3 scan" result
for mode in launches iterations; do
  args=(compare --baseline "$base" --current "$current" -q)
  scan=$kernel_scan
  if [[ $mode == iterations ]]; then
    args+=(--iteration-range frame_batch)
    scan=$iteration_scan
  fi
  : >"$work/gpuroof.log"
  : >"$work/sqlite3.log"
  : >"$work/candidate.log"
  verdict=ok
  for ((rep = 0; rep < reps; rep++)); do
    run "$work/gpuroof.log" "$gpuroof" "${args[@]}"
    # The kernels are 10 % slower: anything but a regression means the gate did not do its job.
    tail -n 1 "$work/gpuroof.log" | awk '{exit !($3 == 1)}' && grep -q REGRESSED "$work/out" ||
      verdict=missed
    tail -n 1 "$work/gpuroof.log" | awk '{exit !($3 == 2)}' &&
      die "$mode: gpuroof compare failed: $(tail -n 1 "$work/err")"
    [[ -n $candidate ]] && run "$work/candidate.log" "$candidate" "${args[@]}"
    # The two files one after the other, as one timed command (the inner shell expands $1..$3).
    # shellcheck disable=SC2016
    run "$work/sqlite3.log" bash -c 'sqlite3 "$1" "$3" >/dev/null && sqlite3 "$2" "$3" >/dev/null' \
      _ "$base" "$current" "$scan"
  done
  wall=$(cut -d' ' -f1 "$work/gpuroof.log" | median)
  rss=$(cut -d' ' -f2 "$work/gpuroof.log" | sort -n | tail -n 1)
  scan_wall=$(cut -d' ' -f1 "$work/sqlite3.log" | median)
  scan_rss=$(cut -d' ' -f2 "$work/sqlite3.log" | sort -n | tail -n 1)
  ratio=$(awk -v g="$wall" -v s="$scan_wall" 'BEGIN {printf "%.2f", (s > 0) ? g / s : 0}')
  result=PASS
  if [[ $verdict != ok ]]; then
    result=FAIL
  elif [[ $mode == launches ]] && awk -v w="$wall" -v m="$max_wall_s" 'BEGIN {exit !(w >= m)}'; then
    result=FAIL
  elif [[ $mode == iterations ]] && awk -v r="$ratio" -v m="$max_ratio" 'BEGIN {exit !(r > m)}'; then
    result=FAIL
  fi
  [[ $result == FAIL ]] && status=1
  printf '%-11s %-8s %10s %12.1f %6s %16s %8s\n' "$mode" gpuroof "$wall" \
    "$(awk -v k="$rss" 'BEGIN {print k / 1024}')" "$(tail -n 1 "$work/gpuroof.log" | cut -d' ' -f3)" \
    "$ratio" "$result"
  if [[ -n $candidate ]]; then
    cand_wall=$(cut -d' ' -f1 "$work/candidate.log" | median)
    printf '%-11s %-8s %10s %12.1f %6s %16s %8s\n' "$mode" candidate "$cand_wall" \
      "$(cut -d' ' -f2 "$work/candidate.log" | sort -n | tail -n 1 | awk '{print $1 / 1024}')" \
      "$(tail -n 1 "$work/candidate.log" | cut -d' ' -f3)" \
      "$(awk -v g="$cand_wall" -v s="$scan_wall" 'BEGIN {printf "%.2f", (s > 0) ? g / s : 0}')" info
  fi
  printf '%-11s %-8s %10s %12.1f %6s %16s %8s\n' "$mode" sqlite3 "$scan_wall" \
    "$(awk -v k="$scan_rss" 'BEGIN {print k / 1024}')" 0 1.00 floor
done
echo "profiles: $frames kernel launches each ($activities activities); goals: launches median wall < $max_wall_s s, iterations <= $max_ratio x the sqlite3 scan of both files"
echo "CPUs: $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
