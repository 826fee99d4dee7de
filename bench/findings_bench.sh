#!/usr/bin/env bash
# Whole-process benchmark of `gpuroof findings` against `gpuroof analyze` with the API calls read,
# on gpuroof-make-bench-trace's frame pipeline with runtime calls and NVTX iterations (one kernel,
# one H2D and one D2H copy per frame; default 10 M activities and as many runtime calls):
#   analyze   analyze FILE --units-from nvtx:frame_batch --format csv   (reads the calls to
#                                                                       attribute the work)
#   findings  findings FILE --format csv                                (reads every call, then
#                                                                       runs every rule)
# Runs are interleaved (analyze, findings, analyze, ...), REPS each (default 3): median wall time,
# largest peak RSS (GNU time), ratio findings / analyze.
# Goal (issue 18): findings median wall <= MAX_RATIO (default 1.5) x analyze's.
# Exits 0 when the goal passes, 1 when it fails, 2 on a usage or tool error.
#
# Builds nothing itself. Build first (Release, benchmarks on):
#   cmake --preset release && cmake --build build/release --target gpuroof gpuroof-make-bench-trace
#   bench/findings_bench.sh [GPUROOF [MAKE_BENCH_TRACE]]
# Environment (all optional): GPUROOF, MAKE_BENCH_TRACE, BENCH_DIR (traces, reused), FRAMES
# (default 3333333: 10 M activities), REPS, MAX_RATIO (default 1.5).
set -euo pipefail

bench_name=findings_bench.sh
# shellcheck source=bench/bench_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/bench_common.sh"
bench_setup "$@"
frames=${FRAMES:-3333333}
max_ratio=${MAX_RATIO:-1.5}
[[ $frames =~ ^[1-9][0-9]*$ ]] || die "FRAMES must be a positive number, got '$frames'"

trace=$bench_dir/findings_$frames.sqlite
[[ -s $trace ]] || "$make_trace" "$((3 * frames))" "$trace" --iteration-frames 100 >/dev/null ||
  die "cannot write $trace"
cat "$trace" >/dev/null  # warm the page cache, as a re-run would find it

# run LOG COMMAND...: one timed run; appends "wall rss exit" to LOG.
run() {
  local log=$1 code=0 wall rss
  shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/out" 2>"$work/err" || code=$?
  read -r wall rss < <(tail -n 1 "$work/time")
  echo "$wall $rss $code" >>"$log"
}

echo "machine: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $reps interleaved runs each"
echo "trace:   $trace ($(du -h "$trace" | cut -f1))"
for ((i = 0; i < reps; ++i)); do
  run "$work/analyze.log" "$gpuroof" analyze "$trace" --units-from nvtx:frame_batch --format csv
  run "$work/findings.log" "$gpuroof" findings "$trace" --format csv
done
for tool in analyze findings; do
  if awk '$3 != 0 { bad = 1 } END { exit !bad }' "$work/$tool.log"; then
    die "$tool failed: $(head -n 3 "$work/err")"
  fi
done
analyze_s=$(cut -d' ' -f1 "$work/analyze.log" | median)
findings_s=$(cut -d' ' -f1 "$work/findings.log" | median)
analyze_mb=$(cut -d' ' -f2 "$work/analyze.log" | sort -g | tail -n 1 | awk '{printf "%.0f", $1 / 1024}')
findings_mb=$(cut -d' ' -f2 "$work/findings.log" | sort -g | tail -n 1 | awk '{printf "%.0f", $1 / 1024}')
ratio=$(awk -v f="$findings_s" -v a="$analyze_s" 'BEGIN { printf "%.2f", (a > 0 ? f / a : 0) }')
echo "analyze  (API calls read): median ${analyze_s} s, peak ${analyze_mb} MB"
echo "findings (every call):     median ${findings_s} s, peak ${findings_mb} MB"
echo "ratio findings / analyze:  ${ratio} (goal <= ${max_ratio})"
if awk -v r="$ratio" -v m="$max_ratio" 'BEGIN { exit !(r <= m) }'; then
  echo "PASS"
else
  echo "FAIL"
  exit 1
fi
